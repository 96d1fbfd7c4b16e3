/**
 * `SessionSummary.firstMessage` of a session file: the text of its first user message, found in the first
 * {@link FIRST_MESSAGE_BYTES} after the header (only lines that can hold a user message are parsed), so a
 * list shows each session's first prompt without reading the file. A first prompt longer than the span
 * (a large paste) is shown by its beginning, taken from the cut line.
 */
import { readSync } from "node:fs";
import { storedMessageText } from "@arbor/session-store/backend";
import { NEWLINE } from "@arbor/session-store/jsonl-format";

/** How far after the header the first user message is looked for. */
export const FIRST_MESSAGE_BYTES = 4 * 1024;

/** Characters of a cut first prompt that are kept (lists show one line of it). */
const CUT_PROMPT_CHARS = 200;

/**
 * The first user message's text in the file open at `fd` (`size` bytes, header ending at `headerEnd`).
 *
 * Contract: never throws for what the file holds (unreadable lines are passed over); reads at most
 * {@link FIRST_MESSAGE_BYTES}; undefined when there is none in that span.
 */
export function readFirstMessage(fd: number, size: number, headerEnd: number): string | undefined {
  const length = Math.min(FIRST_MESSAGE_BYTES, size - headerEnd);
  if (length <= 0) return undefined;
  const buffer = Buffer.allocUnsafe(length);
  const read = readSync(fd, buffer, 0, length, headerEnd);
  const lines = buffer.toString("utf8", 0, read).split(NEWLINE);
  const cut = headerEnd + read < size ? lines.pop() : undefined; // Cut by the end of the span.
  for (const line of lines) {
    if (!line.includes('"user"') || !line.includes('"message"')) continue;
    let entry: { type?: unknown; message?: { role?: unknown } } | null;
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry?.type !== "message" || entry.message?.role !== "user") continue;
    const text = storedMessageText(line);
    if (text !== undefined) return text;
  }
  return cut === undefined ? undefined : cutPromptText(cut);
}

/**
 * The beginning of a user message's first text from a line cut before its end: the characters after
 * `"text":"` (or a string `"content":"`), up to the cut, unescaped.
 */
function cutPromptText(line: string): string | undefined {
  if (!/"type":"message"/.test(line) || !/"role":"user"/.test(line)) return undefined;
  const match = /"(?:text|content)":"((?:[^"\\]|\\.)*)/.exec(line);
  if (match === null) return undefined;
  // Drop a trailing partial escape (`\`, `\u12`) so that the rest parses as a JSON string.
  const body = match[1]!.slice(0, CUT_PROMPT_CHARS * 2).replace(/\\(u[0-9a-fA-F]{0,3})?$/, "");
  try {
    const text = (JSON.parse(`"${body}"`) as string).slice(0, CUT_PROMPT_CHARS).trim();
    return text === "" ? undefined : `${text}…`;
  } catch {
    return undefined;
  }
}
