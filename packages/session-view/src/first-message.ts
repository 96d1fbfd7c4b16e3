/**
 * The first thing the user said in a session, found cheaply in the beginning of a JSONL session file (a
 * list shows it as the session's one-line preview): only lines that can hold a user message are parsed.
 * Reading the file is the caller's (typically its first 64 KiB, {@link FIRST_MESSAGE_HEAD_BYTES}).
 */
import { clipText, singleLine } from "./format.js";
import { contentText } from "./message-text.js";

/** Bytes worth reading from the start of a file to find the first user message. */
export const FIRST_MESSAGE_HEAD_BYTES = 64 * 1024;

/** Options of {@link firstUserMessage}. */
export interface FirstUserMessageOptions {
  /** Longest result, in characters (default 200). */
  maxChars?: number;
  /**
   * False when `head` is only the beginning of the file (its last line may be cut and is ignored).
   * Default true.
   */
  complete?: boolean;
}

/**
 * The text of the first user message in the beginning of a JSONL session file (the header line is
 * skipped), on one line and at most `maxChars` characters; undefined when there is none.
 *
 * Contract: pure; never throws, whatever `head` holds; O(head).
 */
export function firstUserMessage(head: string, options: FirstUserMessageOptions = {}): string | undefined {
  const lines = head.split("\n");
  if (options.complete === false) lines.pop(); // Possibly cut in the middle.
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index]!;
    if (!line.includes('"user"')) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const entry = value as { type?: unknown; message?: { role?: unknown; content?: unknown } } | null;
    if (entry?.type !== "message" || entry.message?.role !== "user") continue;
    const message = singleLine(contentText(entry.message.content, { images: "omit" }));
    if (message !== "") return clipText(message, options.maxChars ?? 200);
  }
  return undefined;
}
