/**
 * Counting the entry lines of a byte range of a session file in one forward pass with bounded memory:
 * one reused chunk buffer, and of a line longer than a chunk only its first bytes (its tree fields) and
 * its last bytes (the batch mark) — never the line itself, unless its tree fields are not written the
 * usual way (then that one line is read whole, once). Linear in the bytes read, whatever the lines'
 * lengths.
 */
import {
  BATCH_LINE_MARK_BYTE,
  CARRIAGE_RETURN_BYTE,
  isBatchTrailer,
  isSessionLine,
  NEWLINE_BYTE,
} from "@arbor/session-store/jsonl-format";
import { countEntry, type SessionTally } from "./batch-format.js";
import { readInto } from "./file-reads.js";
import { createLineHead, readLineHead } from "./line-head.js";

const CLOSE_BRACE = 0x7d;

/** Chunk size of the pass. */
const CHUNK = 1024 * 1024;
/** Bytes kept of the start of a line longer than a chunk (its tree fields are far shorter). */
const HEAD = 4096;

let sharedChunk: Buffer | undefined;

/** What {@link countForward} found. */
export interface ForwardCount {
  /** `base` plus the entries of the range (a batch without its trailer at the end not counted). */
  tally: SessionTally;
  /** End of the last committed line: before a torn last line and a batch without its trailer. */
  committedEnd: number;
}

/**
 * Counts the entry lines of `[start, end)` of a file onto `base` (see the module comment). Lines that
 * are not entries are ignored; the entries of a batch whose trailer is missing are not counted.
 *
 * Contract: synchronous (the chunk buffer is shared); reads each byte of the range once, except a long
 * line whose tree fields need JSON.parse.
 */
export function countForward(fd: number, start: number, end: number, base: SessionTally): ForwardCount {
  sharedChunk ??= Buffer.allocUnsafeSlow(CHUNK);
  const chunk = sharedChunk;
  const head = createLineHead();
  let tally: SessionTally = { ...base };
  let pending: SessionTally | undefined;
  let committedEnd = start;

  /**
   * One line: `bytes[offset, offset + length)` holds its start (all of it unless `whole` is false). The
   * chunk itself is passed (not a view of it), so that a parentId equal to the previous line's id is
   * recognized by its bytes and not decoded again.
   */
  const line = (
    bytes: Buffer,
    offset: number,
    length: number,
    lineStart: number,
    lineEnd: number,
    last: number[],
  ) => {
    // `last` holds the line's final bytes before the newline (up to 3), oldest first.
    let trim = last.length;
    while (trim > 0 && (last[trim - 1] === BATCH_LINE_MARK_BYTE || last[trim - 1] === CARRIAGE_RETURN_BYTE))
      trim--;
    const marked =
      last.at(-1) === BATCH_LINE_MARK_BYTE ||
      (last.at(-1) === CARRIAGE_RETURN_BYTE && last.at(-2) === BATCH_LINE_MARK_BYTE);
    const contentLength = lineEnd - lineStart - (last.length - trim);
    if (contentLength <= 0) return;
    const whole = length >= contentLength;
    const lastContent = trim > 0 ? last[trim - 1] : undefined;
    let type: string | undefined;
    let id = "";
    let timestamp: unknown;
    let name: unknown;
    if (lastContent === CLOSE_BRACE) {
      const headBytes = whole ? bytes : closedHead(bytes, offset, length);
      const headStart = whole ? offset : 0;
      const headEnd = whole ? offset + contentLength : length + 1;
      if (
        readLineHead(headBytes, headStart, headEnd, head, true) &&
        head.type !== "session" &&
        head.type !== "session_info"
      ) {
        type = head.type;
        id = head.id;
        timestamp = head.timestamp;
      }
    }
    if (type === undefined) {
      const text = whole
        ? bytes.toString("utf8", offset, offset + contentLength)
        : readLine(fd, lineStart, contentLength);
      let value: Record<string, unknown>;
      try {
        value = JSON.parse(text) as Record<string, unknown>;
      } catch {
        if (!marked && pending !== undefined) [tally, pending] = [pending, undefined];
        if (!marked) committedEnd = lineEnd + 1;
        return;
      }
      if (!marked) committedEnd = lineEnd + 1;
      if (typeof value !== "object" || value === null) return;
      if (isSessionLine(value)) {
        if (isBatchTrailer(value)) pending = undefined;
        return;
      }
      if (typeof value.type !== "string" || typeof value.id !== "string") return;
      type = value.type;
      id = value.id;
      timestamp = value.timestamp;
      name = value.name;
    } else if (!marked) committedEnd = lineEnd + 1;
    if (marked) pending ??= { ...tally };
    else if (pending !== undefined) [tally, pending] = [pending, undefined];
    countEntry(tally, type, id, timestamp, name);
  };

  let position = start; // File offset of chunk[0].
  let filled = 0;
  let longHead: Buffer | undefined; // The start of a line longer than a chunk, while skipping to its end.
  let longStart = 0;
  let last: number[] = [];
  while (position + filled < end) {
    head.idBuffer = undefined; // The chunk's bytes move from one read to the next.
    const read = readInto(
      fd,
      chunk,
      filled,
      Math.min(chunk.length - filled, end - position - filled),
      position + filled,
    );
    if (read === 0) break;
    filled += read;
    let lineStart = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE_BYTE, lineStart);
      if (newline < 0 || newline >= filled) break;
      if (longHead !== undefined) {
        last = [...last, ...chunk.subarray(Math.max(0, newline - 3), newline)].slice(-3);
        line(longHead, 0, longHead.length, longStart, position + newline, last);
        longHead = undefined;
      } else {
        last = [...chunk.subarray(Math.max(lineStart, newline - 3), newline)];
        line(chunk, lineStart, newline - lineStart, position + lineStart, position + newline, last);
      }
      lineStart = newline + 1;
    }
    if (longHead !== undefined) {
      // Still inside the long line: remember its last bytes, drop the chunk.
      last = [...last, ...chunk.subarray(Math.max(0, filled - 3), filled)].slice(-3);
      position += filled;
      filled = 0;
    } else if (lineStart === 0 && filled === chunk.length) {
      // A line longer than a chunk: keep its head and skip on to its newline.
      longHead = Buffer.from(chunk.subarray(0, HEAD));
      longStart = position;
      last = [...chunk.subarray(filled - 3, filled)];
      position += filled;
      filled = 0;
    } else {
      chunk.copyWithin(0, lineStart, filled);
      position += lineStart;
      filled -= lineStart;
    }
  }
  // Whatever is left has no newline: a torn line, not committed.
  return { tally: pending ?? tally, committedEnd };
}

/** The first `length` bytes of a line (from `offset`) followed by `}`, so that its tree fields can be read alone. */
function closedHead(bytes: Buffer, offset: number, length: number): Buffer {
  const out = Buffer.allocUnsafe(length + 1);
  bytes.copy(out, 0, offset, offset + length);
  out[length] = CLOSE_BRACE;
  return out;
}

/** One whole line (its tree fields could not be read from its start alone). */
function readLine(fd: number, start: number, length: number): string {
  const bytes = Buffer.allocUnsafe(length);
  readInto(fd, bytes, 0, length, start);
  return bytes.toString("utf8");
}
