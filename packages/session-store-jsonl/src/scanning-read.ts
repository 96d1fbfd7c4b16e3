/**
 * Reading a session file and scanning it at the same time: the file is read into one buffer in chunks,
 * the next chunk's read (done by libuv's thread pool, on another core) overlapping the scan of the lines
 * already read, so that opening a large session costs little more than reading it.
 */
import { closeSync, fstatSync, openSync, read, readSync } from "node:fs";
import { needsMigration } from "@arbor/session-store/backend";
import { EntryScanner, parseFile, parseHeaderLine, type ReadFile, type ScanResult } from "./scanner.js";

const NEWLINE = 0x0a;

/** Files up to this size are read with one synchronous read; larger ones chunk by chunk. */
const DEFAULT_CHUNK = 4 * 1024 * 1024;

/**
 * Chunks read at the same time: two thread-pool threads copy (and fault in) the file's pages while the
 * main thread scans — reading is the slower part.
 */
const READS_IN_FLIGHT = 2;

/** What {@link readAndScan} returns. */
export interface ScannedFile {
  read: ReadFile;
  /**
   * The scan of the whole file, when it could be made while reading: the file is in the current
   * format and ends with a complete, committed line. Otherwise the caller repairs, migrates or scans
   * `read` itself.
   */
  scan: ScanResult | undefined;
}

function readChunk(fd: number, buffer: Buffer, position: number, length: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, buffer, position, length, position, (error, bytesRead) =>
      error ? reject(error) : resolve(bytesRead),
    );
  });
}

/**
 * Reads a session file (as of its size when opened) and scans its entry lines while reading, `chunk`
 * bytes at a time (one synchronous read when the file is no larger).
 *
 * Contract: returns what `parseFile` + `scanEntries` would return for the same bytes; throws what
 * `openSync` throws (`ENOENT` for a missing file) and `SessionCorruptError` for a bad header, like
 * `parseFile`. A file that grows while it is read is read up to its size at the start; one that
 * shrinks, up to where it ends.
 */
export async function readAndScan(
  path: string,
  sessionId: string,
  chunk = DEFAULT_CHUNK,
): Promise<ScannedFile> {
  const fd = openSync(path, "r");
  let buffer: Buffer;
  let scanner: EntryScanner | undefined;
  let headerSeen = false;
  const reads: { position: number; length: number; done: Promise<number> }[] = [];
  try {
    const size = fstatSync(fd).size;
    buffer = Buffer.allocUnsafe(size);
    let filled = 0;
    if (size <= chunk) filled = readFully(fd, buffer, 0, size);
    else {
      let issued = 0;
      const issue = (): void => {
        while (reads.length < READS_IN_FLIGHT && issued < size) {
          const length = Math.min(chunk, size - issued);
          reads.push({ position: issued, length, done: readChunk(fd, buffer, issued, length) });
          issued += length;
        }
      };
      issue();
      for (let read = reads[0]; read !== undefined; read = reads[0]) {
        let bytesRead = await read.done;
        reads.shift();
        if (bytesRead > 0 && bytesRead < read.length) {
          bytesRead += readFully(fd, buffer, read.position + bytesRead, read.length - bytesRead);
        }
        filled = read.position + bytesRead;
        if (bytesRead < read.length) break; // The file ended early (it shrank): stop there.
        issue();
        // Scan the complete lines read so far while the next chunks are on their way.
        const lastNewline = buffer.lastIndexOf(NEWLINE, filled - 1);
        if (lastNewline < 0) continue;
        if (!headerSeen) {
          headerSeen = true;
          const { header, headerEnd } = parseHeaderLine(sessionId, buffer.subarray(0, filled));
          if (header.id === sessionId && !needsMigration(header)) {
            scanner = new EntryScanner(sessionId, buffer, headerEnd);
          }
        }
        scanner?.scanTo(lastNewline + 1);
      }
    }
    if (filled < size) buffer = buffer.subarray(0, filled);
  } finally {
    // Never close the descriptor under a read still in flight.
    await Promise.allSettled(reads.map((read) => read.done));
    closeSync(fd);
  }
  const file = parseFile(sessionId, buffer);
  if (file.committedEnd < buffer.length || needsMigration(file.header))
    return { read: file, scan: undefined };
  scanner ??= new EntryScanner(sessionId, buffer, file.headerEnd);
  scanner.scanTo(file.committedEnd);
  return { read: file, scan: scanner.finish() };
}

/** Reads `length` bytes at `position` synchronously (fewer at the end of the file); returns how many. */
function readFully(fd: number, buffer: Buffer, position: number, length: number): number {
  let filled = 0;
  for (let bytesRead = 1; filled < length && bytesRead > 0; filled += bytesRead) {
    bytesRead = readSync(fd, buffer, position + filled, length - filled, position + filled);
  }
  return filled;
}
