/**
 * Output limits shared by the tools: what a model sees is capped by lines and by bytes (whichever is hit
 * first), and single lines by characters, so one tool result can never flood the context window.
 */

/** Default cap on the lines of one tool result. */
export const DEFAULT_MAX_LINES = 2000;

/** Default cap on the bytes (UTF-8) of one tool result. */
export const DEFAULT_MAX_BYTES = 50 * 1024;

/** Limits of one tool result: lines and UTF-8 bytes, whichever is hit first. */
export interface OutputLimits {
  maxLines: number;
  maxBytes: number;
}

/** The lines of a text (`\n` separated; a trailing `\r` is kept). A final newline does not open a line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Counts the lines of a text the way {@link splitLines} does, without allocating them. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let count = 0;
  let index = text.indexOf("\n");
  while (index !== -1) {
    count++;
    index = text.indexOf("\n", index + 1);
  }
  return text.endsWith("\n") ? count : count + 1;
}

/** The end of a text, cut to the limits. */
export interface TailTruncation {
  /** The lines kept, joined with `\n` (no final newline). */
  text: string;
  /** Whether anything was cut. */
  truncated: boolean;
  /** Which limit cut the text. */
  truncatedBy?: "lines" | "bytes";
  /** How many lines (or pieces of a line) `text` holds. */
  shownLines: number;
  /** The first kept line is only the end of a longer line (one line alone was over `maxBytes`). */
  partialLine: boolean;
}

/** Keeps the last lines of `text` that fit the limits (the tail of a command's output). */
export function truncateTail(text: string, limits: OutputLimits): TailTruncation {
  const lines = splitLines(text);
  const kept: string[] = [];
  let bytes = 0;
  let truncatedBy: TailTruncation["truncatedBy"];
  let partialLine = false;
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]!;
    const size = byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (kept.length >= limits.maxLines) {
      truncatedBy = "lines";
      break;
    }
    if (bytes + size > limits.maxBytes) {
      truncatedBy = "bytes";
      if (kept.length === 0) {
        kept.push(lastBytes(line, limits.maxBytes));
        partialLine = true;
      }
      break;
    }
    kept.push(line);
    bytes += size;
  }
  kept.reverse();
  return {
    text: kept.join("\n"),
    truncated: truncatedBy !== undefined,
    ...(truncatedBy === undefined ? {} : { truncatedBy }),
    shownLines: kept.length,
    partialLine,
  };
}

/**
 * A line cut to `maxLength` characters, with a marker saying how long it was. `totalLength` is the
 * line's real length when `line` holds only its beginning (default `line.length`).
 */
export function truncateLine(
  line: string,
  maxLength: number,
  totalLength: number = line.length,
): { text: string; truncated: boolean } {
  if (totalLength <= maxLength) return { text: line, truncated: false };
  return {
    text: `${line.slice(0, maxLength)}… [line truncated: ${totalLength.toLocaleString("en-US")} characters]`,
    truncated: true,
  };
}

/** The UTF-8 size of a string. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** A byte count for people and models: `512 B`, `50 KB`, `1.5 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${trimZero((bytes / 1024).toFixed(1))} KB`;
  return `${trimZero((bytes / (1024 * 1024)).toFixed(1))} MB`;
}

function trimZero(text: string): string {
  return text.endsWith(".0") ? text.slice(0, -2) : text;
}

/** The last `maxBytes` bytes of a string, without a broken character at the start. */
function lastBytes(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text, "utf8");
  let start = Math.max(0, buffer.length - maxBytes);
  // Skip UTF-8 continuation bytes so the slice starts on a character boundary.
  while (start < buffer.length && (buffer[start]! & 0xc0) === 0x80) start++;
  return buffer.subarray(start).toString("utf8");
}
