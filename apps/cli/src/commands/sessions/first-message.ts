/**
 * The first thing the user said in a session, read cheaply for `arbor sessions list`: only the beginning
 * of a session file is read (64 KiB by default), and only lines that can hold a user message are parsed.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { clip, oneLine } from "../../export/entry-view.js";

/** Bytes read from the start of a file. */
const DEFAULT_HEAD_BYTES = 64 * 1024;

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const block of content) {
    if (typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text") {
      const text = (block as { text?: unknown }).text;
      if (typeof text === "string") texts.push(text);
    }
  }
  return texts.join(" ");
}

/**
 * The text of the first user message within the first `maxBytes` of a JSONL session file, on one line and
 * at most `maxChars` characters; undefined when there is none there or the file cannot be read.
 *
 * Contract: never throws; reads at most `maxBytes` bytes.
 */
export function readFirstUserMessage(
  path: string,
  maxChars = 200,
  maxBytes = DEFAULT_HEAD_BYTES,
): string | undefined {
  let head: Buffer;
  try {
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(maxBytes);
      const read = readSync(fd, buffer, 0, maxBytes, 0);
      head = buffer.subarray(0, read);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const text = head.toString("utf8");
  const lines = text.split("\n");
  if (head.length === maxBytes) lines.pop(); // Possibly cut in the middle.
  for (const line of lines.slice(1)) {
    if (!line.includes('"user"')) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const entry = value as { type?: unknown; message?: { role?: unknown; content?: unknown } } | null;
    if (entry?.type !== "message" || entry.message?.role !== "user") continue;
    const message = oneLine(contentText(entry.message.content));
    if (message !== "") return clip(message, maxChars);
  }
  return undefined;
}
