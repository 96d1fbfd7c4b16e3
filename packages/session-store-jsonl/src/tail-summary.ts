/**
 * A session's totals (last entry, last activity, message count, name) read from the header and the
 * tail of its file: the last batch trailer holds them, and only lines written after it (by another
 * program such as the pi agent) are counted one by one. A file with no trailer near its end (one
 * the pi agent wrote) is counted line by line in bounded chunks.
 */
import { SessionCorruptError, type SessionHeader } from "@arbor/session-store";
import {
  BATCH_LINE_MARK,
  countEntry,
  decodeTrailer,
  emptyTally,
  type SessionTally,
  TRAILER_PREFIX,
  tallyOfTrailer,
} from "./batch-format.js";
import { forEachLine, readAt, TailWindow, WindowLimitReached } from "./file-reads.js";
import { createLineHead, readLineHead } from "./line-head.js";
import { parseHeaderLine } from "./scanner.js";

const NEWLINE = 0x0a;
const TRAILER_BYTES = Buffer.from(TRAILER_PREFIX, "utf8");

/** The first tail read, in bytes. */
const INITIAL_WINDOW = 16 * 1024;
/** How far back a trailer is looked for before the file is counted from its start instead. */
const WINDOW_CAP = 4 * 1024 * 1024;
/** Chunk size of a forward count. */
const CHUNK = 1024 * 1024;
/** Largest header line accepted. */
const MAX_HEADER = 1024 * 1024;

/** Reads and parses line 1 of a session file through its descriptor. */
export function readHeader(
  fd: number,
  size: number,
  sessionId: string,
): { header: SessionHeader; headerEnd: number } {
  let length = Math.min(size, 4096);
  for (;;) {
    const bytes = readAt(fd, 0, length, true);
    const newline = bytes.indexOf(NEWLINE);
    if (newline >= 0) {
      return parseHeaderLine(sessionId, bytes.subarray(0, newline + 1));
    }
    if (length >= size || length >= MAX_HEADER) {
      throw new SessionCorruptError(
        sessionId,
        size === 0 ? "the file is empty" : "the header line is incomplete",
      );
    }
    length = Math.min(size, MAX_HEADER, length * 4);
  }
}

/** What {@link summarizeTail} found. */
export interface TailSummary {
  tally: SessionTally;
  /** Where the committed bytes end: anything after is a torn line or a batch without its trailer. */
  committedEnd: number;
}

/**
 * Summarizes a session file of `size` bytes from its tail.
 *
 * `base` is a known state (the totals at a byte offset this store wrote or read up to); only bytes
 * after it are read. Without it, the floor is the end of the header.
 */
export function summarizeTail(
  fd: number,
  size: number,
  headerEnd: number,
  base?: { offset: number; tally: SessionTally },
): TailSummary {
  const floor = base?.offset ?? headerEnd;
  if (size <= floor)
    return { tally: { ...(base?.tally ?? emptyTally()) }, committedEnd: Math.min(size, floor) };
  const window = new TailWindow(fd, floor, size, INITIAL_WINDOW, WINDOW_CAP);
  let committedEnd = size;
  let committedKnown = false;
  let countFrom = floor;
  let tally: SessionTally = { ...(base?.tally ?? emptyTally()) };
  try {
    committedEnd = committedEndOf(window, size, floor);
    committedKnown = true;
    // Walk back over complete lines to the last trailer; count forward from there.
    let lineEnd = committedEnd;
    while (lineEnd > floor) {
      const lineStart = window.lastNewlineBefore(lineEnd - 1) + 1;
      if (startsWithTrailer(window, lineStart, lineEnd)) {
        const trailer = decodeTrailer(
          window
            .slice(lineStart, lineEnd - 1)
            .toString("utf8")
            .trimEnd(),
        );
        if (trailer !== undefined) {
          tally = trailer;
          countFrom = lineEnd;
          break;
        }
      }
      lineEnd = lineStart;
    }
  } catch (error) {
    if (!(error instanceof WindowLimitReached)) throw error;
    // No trailer within reach: count from the floor. The committed end still needs the tail.
    if (!committedKnown) committedEnd = committedEndByScan(fd, floor, size);
  }
  if (countFrom < committedEnd) tally = countLines(fd, countFrom, committedEnd, tally);
  return { tally, committedEnd };
}

function startsWithTrailer(window: TailWindow, lineStart: number, lineEnd: number): boolean {
  if (lineEnd - lineStart <= TRAILER_BYTES.length) return false;
  const head = window.slice(lineStart, lineStart + TRAILER_BYTES.length);
  return head.equals(TRAILER_BYTES);
}

function committedEndOf(window: TailWindow, size: number, floor: number): number {
  let end = size;
  if (window.byteAt(end - 1) !== NEWLINE) end = window.lastNewlineBefore(end) + 1;
  while (end > floor) {
    const before = window.byteAt(end - 2);
    const mark = before === 0x0d ? window.byteAt(end - 3) : before;
    if (mark !== BATCH_LINE_MARK) break;
    end = window.lastNewlineBefore(end - 1) + 1;
  }
  return Math.max(end, floor);
}

/** The committed end found by a forward pass (for tails too long for the window). */
function committedEndByScan(fd: number, floor: number, size: number): number {
  let committed = floor;
  let offset = floor;
  forEachLine(fd, floor, size, CHUNK, (buffer, lineStart, lineEnd, newline) => {
    const length = lineEnd - lineStart + (newline ? 1 : 0);
    offset += length;
    if (!newline) return;
    const mark = buffer[lineEnd - 1] === 0x0d ? buffer[lineEnd - 2] : buffer[lineEnd - 1];
    if (mark !== BATCH_LINE_MARK) committed = offset;
  });
  return committed;
}

/**
 * Counts the entry lines of `[start, end)` onto `base` (the range ends at a line boundary). Entries
 * of a batch whose trailer is missing are not counted; lines that are not entries are ignored.
 */
export function countLines(fd: number, start: number, end: number, base: SessionTally): SessionTally {
  let tally = { ...base };
  let pending: SessionTally | undefined;
  const head = createLineHead();
  forEachLine(fd, start, end, CHUNK, (buffer, lineStart, lineEnd) => {
    const marked = buffer[lineEnd - 1] === BATCH_LINE_MARK;
    let contentEnd = lineEnd;
    while (contentEnd > lineStart && (buffer[contentEnd - 1] === 0x09 || buffer[contentEnd - 1] === 0x0d))
      contentEnd--;
    if (contentEnd === lineStart) return;
    let type: string;
    let id: string;
    let timestamp: unknown;
    let name: unknown;
    if (
      readLineHead(buffer, lineStart, contentEnd, head, true) &&
      head.type !== "session" &&
      head.type !== "session_info"
    ) {
      type = head.type;
      id = head.id;
      timestamp = head.timestamp;
    } else {
      let value: Record<string, unknown>;
      try {
        value = JSON.parse(buffer.toString("utf8", lineStart, contentEnd)) as Record<string, unknown>;
      } catch {
        if (!marked && pending !== undefined) [tally, pending] = [pending, undefined];
        return;
      }
      if (typeof value !== "object" || value === null) return;
      if (value.type === "session") {
        if (tallyOfTrailer(value) !== undefined) pending = undefined;
        return;
      }
      if (typeof value.type !== "string" || typeof value.id !== "string") return;
      type = value.type;
      id = value.id;
      timestamp = value.timestamp;
      name = value.name;
    }
    if (marked) pending ??= { ...tally };
    else if (pending !== undefined) [tally, pending] = [pending, undefined];
    countEntry(tally, type, id, timestamp, name);
  });
  return pending ?? tally;
}
