import { createReadStream } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { byteLength, truncateLine } from "./truncate.js";

/** Which lines {@link readLineWindow} returns and how much of them. */
export interface LineWindowOptions {
  /** First line to return (1-based). */
  offset: number;
  /** Most lines returned. */
  maxLines: number;
  /** Most UTF-8 bytes returned (lines joined with `\n`); the first line is always returned. */
  maxBytes: number;
  /** Longer lines are cut (with a marker saying how long they were). */
  maxLineLength: number;
  signal?: AbortSignal;
}

/** Lines of a text file and where they sit in it. */
export interface LineWindow {
  /** The lines returned (without line endings; a UTF-8 byte order mark is dropped). */
  lines: string[];
  /** The file's line count (a final newline does not open a line). */
  totalLines: number;
  /** Which limit stopped the window before the end of the file, if one did. */
  stoppedBy?: "lines" | "bytes";
  /** How many returned lines were cut to `maxLineLength`. */
  cutLines: number;
}

/**
 * Reads a window of lines from a text file while streaming it: memory stays bounded by the window (a
 * huge file or a huge single line costs time, not memory), and the whole file is scanned once to count
 * its lines for the continuation hint.
 */
export async function readLineWindow(path: string, options: LineWindowOptions): Promise<LineWindow> {
  const { offset, maxLines, maxBytes, maxLineLength } = options;
  const keepChars = maxLineLength + 1;
  const lines: string[] = [];
  let bytes = 0;
  let cutLines = 0;
  let stoppedBy: LineWindow["stoppedBy"];
  let collecting = true;
  let completed = 0;
  let partial = "";
  let partialLength = 0;
  let trailing = false;
  let first = true;

  const takeLine = () => {
    let line = partial;
    let length = partialLength;
    partial = "";
    partialLength = 0;
    if (line.length === length && line.endsWith("\r")) {
      line = line.slice(0, -1);
      length--;
    }
    const { text: shown, truncated } = truncateLine(line, maxLineLength, length);
    const size = byteLength(shown) + (lines.length > 0 ? 1 : 0);
    if (lines.length >= maxLines) {
      stoppedBy = "lines";
      collecting = false;
      return;
    }
    if (lines.length > 0 && bytes + size > maxBytes) {
      stoppedBy = "bytes";
      collecting = false;
      return;
    }
    lines.push(shown);
    bytes += size;
    if (truncated) cutLines++;
  };

  const decoder = new StringDecoder("utf8");
  const consume = (text: string) => {
    let start = 0;
    for (;;) {
      const newline = text.indexOf("\n", start);
      const end = newline === -1 ? text.length : newline;
      const inWindow = collecting && completed + 1 >= offset;
      if (inWindow && end > start) {
        if (partial.length < keepChars) partial += text.slice(start, Math.min(end, start + keepChars));
        partialLength += end - start;
      }
      if (newline === -1) {
        if (end > start) trailing = true;
        return;
      }
      completed++;
      trailing = false;
      if (inWindow) takeLine();
      start = newline + 1;
    }
  };

  const stream = createReadStream(path, { highWaterMark: 64 * 1024, signal: options.signal });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let text = decoder.write(chunk);
    if (first && text.length > 0) {
      if (text.startsWith("\uFEFF")) text = text.slice(1);
      first = false;
    }
    consume(text);
  }
  consume(decoder.end());
  if (trailing) {
    const inWindow = collecting && completed + 1 >= offset;
    completed++;
    if (inWindow) takeLine();
  }
  return { lines, totalLines: completed, ...(stoppedBy === undefined ? {} : { stoppedBy }), cutLines };
}
