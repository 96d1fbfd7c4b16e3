/**
 * A session's totals (last entry, last activity, message count, name) read from the header and the
 * tail of its file: the last batch trailer holds them, and only lines written after it (by another
 * program such as the pi agent) are counted one by one. A file with no trailer near its end (one
 * the pi agent wrote) is counted in one forward pass with bounded memory (`countForward`), or, for a
 * listing, left partial: its last entry's id and timestamp come from its last lines.
 */
import { SessionCorruptError, type SessionHeader } from "@arbor/session-store";
import {
  BATCH_LINE_MARK_BYTE,
  BATCH_TRAILER_PREFIX_BYTES,
  CARRIAGE_RETURN_BYTE,
  NEWLINE_BYTE,
} from "@arbor/session-store/jsonl-format";
import { decodeTrailer, emptyTally, type SessionTally } from "./batch-format.js";
import { readAt } from "./file-reads.js";
import { countForward } from "./line-count.js";
import { createLineHead, readLineHead } from "./line-head.js";
import { parseHeaderLine } from "./scanner.js";

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
    const newline = bytes.indexOf(NEWLINE_BYTE);
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
 * Summarizes a session file of `size` bytes from its tail: the last trailer within the last
 * {@link TAIL_BYTES} holds the totals, and only the lines after it are counted; a file without one there
 * (the pi agent writes none) is counted from `floor` in one bounded pass (see `countForward`).
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
  const { trailer } = readTail(fd, floor, size);
  if (trailer !== undefined) return countForward(fd, trailer.end, size, trailer.tally);
  return countForward(fd, floor, size, base?.tally ?? emptyTally());
}

/** What {@link peekTail} found: the totals, or (without a trailer near the end) only the last entry's. */
export interface TailPeek {
  tally: SessionTally;
  /**
   * False when only `lastEntryId` and `updatedAt` are known (from the last lines): the counts and the
   * name need {@link summarizeTail}'s full pass.
   */
  complete: boolean;
}

/**
 * The totals of a session file read from its last bytes only: a trailer there gives them all; otherwise
 * the last committed entry lines give `lastEntryId` and `updatedAt` (`complete: false`). The last 16 KB
 * are read first, which is all an Arbor-written file (its trailer) or a pi-written one (its last lines)
 * needs; then up to {@link TAIL_BYTES}. A file whose last line alone outgrows that is summarized in
 * full (one bounded pass).
 */
export function peekTail(fd: number, size: number, headerEnd: number): TailPeek {
  if (size <= headerEnd) return { tally: emptyTally(), complete: true };
  for (const reach of [FIRST_TAIL_BYTES, TAIL_BYTES]) {
    const tail = readTailOnce(fd, headerEnd, size, reach);
    const { trailer } = tail;
    if (trailer !== undefined) {
      return { tally: countForward(fd, trailer.end, size, trailer.tally).tally, complete: true };
    }
    const tally = lastEntryOf(tail, headerEnd);
    if (tally !== undefined) return { tally, complete: false };
    if (tail.start === headerEnd) break; // The whole file was in reach.
  }
  // No entry line with a timestamp in reach: count it all.
  return { tally: summarizeTail(fd, size, headerEnd).tally, complete: true };
}

/** `lastEntryId` and `updatedAt` from the last committed entry lines of a tail (16 at most). */
function lastEntryOf({ bytes, start }: Tail, headerEnd: number): SessionTally | undefined {
  // The committed lines: not a torn last line, not a run of batch lines without their trailer.
  let end = bytes.lastIndexOf(NEWLINE_BYTE) + 1;
  const head = createLineHead();
  const tally = emptyTally();
  let lines = 0;
  while (end > 0 && lines < 16) {
    const lineStart = end >= 2 ? bytes.lastIndexOf(NEWLINE_BYTE, end - 2) + 1 : 0;
    if (lineStart === 0 && start > headerEnd) break; // The line may begin before the tail.
    let contentEnd = end - 1;
    const marked = bytes[contentEnd - 1] === BATCH_LINE_MARK_BYTE;
    while (
      contentEnd > lineStart &&
      (bytes[contentEnd - 1] === BATCH_LINE_MARK_BYTE || bytes[contentEnd - 1] === CARRIAGE_RETURN_BYTE)
    )
      contentEnd--;
    end = lineStart;
    if (marked && tally.lastEntryId === null) continue; // Uncommitted (no trailer after it).
    if (contentEnd === lineStart) continue;
    lines++;
    if (readLineHead(bytes, lineStart, contentEnd, head, true) && head.type !== "session") {
      tally.lastEntryId ??= head.id;
      if (head.timestamp !== undefined) {
        tally.updatedAt = head.timestamp;
        return tally;
      }
    }
  }
  return undefined;
}

/** Bytes read from the end of a file to find its last trailer. */
export const TAIL_BYTES = 64 * 1024;

/** The first tail read: an Arbor-written file ends with its trailer, far shorter. */
const FIRST_TAIL_BYTES = 16 * 1024;

interface Tail {
  /** The last bytes of `[floor, size)` read (at most {@link TAIL_BYTES}), from file offset `start`. */
  bytes: Buffer;
  start: number;
  trailer: { tally: SessionTally; end: number } | undefined;
}

/** The last trailer of `[floor, size)` within its last {@link TAIL_BYTES} (16 KB read first). */
function readTail(fd: number, floor: number, size: number): Tail {
  const tail = readTailOnce(fd, floor, size, FIRST_TAIL_BYTES);
  if (tail.trailer !== undefined || tail.start === floor) return tail;
  return readTailOnce(fd, floor, size, TAIL_BYTES);
}

/** The last `reach` bytes of `[floor, size)` and the last trailer among their complete lines. */
function readTailOnce(fd: number, floor: number, size: number, reach: number): Tail {
  const start = Math.max(floor, size - reach);
  const bytes = readAt(fd, start, size - start, true);
  return { bytes, start, trailer: lastTrailer(bytes, start, start === floor) };
}

/**
 * The last trailer among the complete lines of `bytes` (the file's bytes from offset `start`): its
 * totals and the file offset after its line. A line cut by the start of `bytes` is not looked at.
 */
function lastTrailer(
  bytes: Buffer,
  start: number,
  startsLine: boolean,
): { tally: SessionTally; end: number } | undefined {
  let position = bytes.length;
  for (;;) {
    const trailer = bytes.lastIndexOf(BATCH_TRAILER_PREFIX_BYTES, position - 1);
    if (trailer < 0) return undefined;
    position = trailer;
    // Byte 0 starts a line only when the bytes start at the floor (a line boundary).
    if (trailer > 0 ? bytes[trailer - 1] !== NEWLINE_BYTE : !startsLine) continue;
    const lineEnd = bytes.indexOf(NEWLINE_BYTE, trailer);
    if (lineEnd < 0) continue; // Torn.
    const tally = decodeTrailer(bytes.toString("utf8", trailer, lineEnd).trimEnd());
    if (tally !== undefined) return { tally, end: start + lineEnd + 1 };
  }
}
