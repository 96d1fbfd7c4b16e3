import { readFileSync } from "node:fs";
import type { SseEvent } from "@internal/conformance";

/** The corpus of streams recorded from Anthropic's API (one JSON event per line, with provenance). */
const CORPUS = new URL("../../../../fixtures/streams/anthropic/", import.meta.url);

/**
 * The responses of a recording in `fixtures/streams/anthropic`, as SSE events for the fake server: the
 * event name is the JSON `type`, and a recording holding several HTTP responses one after another is split
 * after each `message_stop`. `lines` picks 1-based line numbers of the file (inclusive) first.
 */
export function recordedResponses(file: string, lines?: [first: number, last: number]): SseEvent[][] {
  let rows = readFileSync(new URL(file, CORPUS), "utf8").split("\n");
  if (lines !== undefined) rows = rows.slice(lines[0] - 1, lines[1]);
  const responses: SseEvent[][] = [];
  let current: SseEvent[] = [];
  for (const row of rows) {
    if (row.trim() === "") continue;
    const data = JSON.parse(row) as { type: string };
    current.push({ event: data.type, data });
    if (data.type === "message_stop") {
      responses.push(current);
      current = [];
    }
  }
  if (current.length > 0) responses.push(current);
  return responses;
}

/** The single response of a recording (throws when it holds several). */
export function recordedResponse(file: string): SseEvent[] {
  const [only, ...rest] = recordedResponses(file);
  if (only === undefined || rest.length > 0) throw new Error(`${file} does not hold exactly one response`);
  return only;
}
