/**
 * Opening a session file: its lines are scanned through one bounded window (a buffer reused from open to
 * open, so its pages are touched once per process, not once per open), and no copy of the file is kept —
 * entries read their bodies back by offset (see `FileEntrySource`). Only a file that needs a repair or a
 * migration is read whole, by the caller.
 */
import { closeSync, constants, fstatSync } from "node:fs";
import { SessionCorruptError, type SessionHeader } from "@arbor/session-store";
import { needsMigration } from "@arbor/session-store/backend";
import { NEWLINE_BYTE } from "@arbor/session-store/jsonl-format";
import { FileEntrySource } from "./file-entry-source.js";
import { readInto } from "./file-reads.js";
import { openRegularFile } from "./regular-file.js";
import { EntryScanner, parseHeaderLine, type ScanResult } from "./scanner.js";

/** The window's size: lines are scanned this many bytes at a time (a longer line grows it for one open). */
const DEFAULT_WINDOW = 4 * 1024 * 1024;

/** Windows of the default size free for the next open (one per concurrent open, kept after it). */
const spareWindows: Buffer[] = [];

/** What {@link readAndScan} returns. */
export interface ScannedFile {
  header: SessionHeader;
  /** Byte offset just after the header's newline. */
  headerEnd: number;
  /** Bytes read (the file's size when opened, or less when it shrank while being read). */
  size: number;
  /**
   * The scan of the whole file, when the file is in the current format and ends with a complete,
   * committed line; its entries read their bodies from the file. Otherwise (a torn tail, a batch without
   * its trailer at the end, an old format) the caller reads the file whole to repair or migrate it.
   */
  scan: ScanResult | undefined;
}

/**
 * Reads and scans a session file (as of its size when opened) through a window of `window` bytes.
 *
 * Contract: finds what `parseFile` + `scanEntries` find for the same bytes (entries, offsets, line
 * numbers, warnings, totals); throws what `openSync` throws (`ENOENT` for a missing file) and
 * `SessionCorruptError` for a bad header, like `parseFile`. A file that grows while it is read is read
 * up to its size at the start; one that shrinks, up to where it ends. Memory: the window, grown only to
 * hold a line longer than it.
 */
export async function readAndScan(
  path: string,
  sessionId: string,
  window = DEFAULT_WINDOW,
): Promise<ScannedFile> {
  const fd = openRegularFile(path, constants.O_RDONLY);
  const pooled = window === DEFAULT_WINDOW;
  let buffer = (pooled ? spareWindows.pop() : undefined) ?? Buffer.allocUnsafeSlow(Math.max(1, window));
  const own = buffer;
  try {
    const stat = fstatSync(fd);
    const size = stat.size;
    /** File offset of `buffer[0]`, and bytes of the file in the buffer. */
    let base = 0;
    let filled = readInto(fd, buffer, 0, Math.min(buffer.length, size), 0);
    // The header line must be whole in the window.
    while (
      buffer.subarray(0, filled).indexOf(NEWLINE_BYTE) < 0 &&
      filled === buffer.length &&
      filled < size
    ) {
      buffer = grow(buffer, filled);
      filled += readInto(fd, buffer, filled, Math.min(buffer.length, size) - filled, filled);
    }
    const { header, headerEnd } = parseHeaderLine(sessionId, buffer.subarray(0, filled));
    if (header.id !== sessionId) {
      throw new SessionCorruptError(
        sessionId,
        `the header names session "${header.id}" (the file was renamed?)`,
      );
    }
    if (needsMigration(header)) return { header, headerEnd, size, scan: undefined };

    const scanner = new EntryScanner(
      new FileEntrySource(sessionId, path, { dev: stat.dev, ino: stat.ino }),
      headerEnd,
    );
    for (;;) {
      const lastNewline = filled > 0 ? buffer.lastIndexOf(NEWLINE_BYTE, filled - 1) : -1;
      if (lastNewline >= 0 && base + lastNewline + 1 > scanner.scanned) {
        scanner.scanWindow(buffer, base, base + lastNewline + 1);
      }
      const end = base + filled;
      if (end >= size) break;
      // Keep the unscanned rest of the window (a line not complete yet) and read on after it.
      const rest = end - scanner.scanned;
      if (rest >= buffer.length) buffer = grow(buffer, filled);
      buffer.copyWithin(0, filled - rest, filled);
      base = end - rest;
      filled = rest;
      const read = readInto(fd, buffer, filled, Math.min(buffer.length - filled, size - end), end);
      if (read === 0) break; // The file shrank while being read.
      filled += read;
    }
    const end = base + filled;
    if (scanner.scanned < end || scanner.inBatch) return { header, headerEnd, size: end, scan: undefined };
    return { header, headerEnd, size: end, scan: scanner.finish() };
  } finally {
    closeSync(fd);
    if (pooled && spareWindows.length < 4) spareWindows.push(own);
  }
}

/** A buffer twice as large holding the first `filled` bytes of `buffer`. */
function grow(buffer: Buffer, filled: number): Buffer {
  const larger = Buffer.allocUnsafe(buffer.length * 2);
  buffer.copy(larger, 0, 0, filled);
  return larger;
}
