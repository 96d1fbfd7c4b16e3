/**
 * The file operations that must reach the disk in order: full writes, directory syncs, and moving a
 * torn tail to its `.torn` sidecar before the file is truncated (so nothing is ever lost).
 */
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { NEWLINE, NEWLINE_BYTE } from "@arbor/session-store/jsonl-format";
import { readAt } from "./file-reads.js";
import { openRegularFile } from "./regular-file.js";

/** Writes the first `length` bytes of `bytes` (all of them by default), looping over short writes. */
export function writeAll(fd: number, bytes: Buffer, length = bytes.length): void {
  let written = 0;
  while (written < length) written += writeSync(fd, bytes, written, length - written);
}

/** Makes a directory's entries (a created or renamed file) durable; a no-op where unsupported. */
export function syncDirectory(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    fsyncSync(fd);
  } catch {
    // Some platforms cannot open or sync a directory; the file data itself is synced regardless.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The path of a session file's torn-tail sidecar. */
export function tornSidecarPath(path: string): string {
  return `${path}.torn`;
}

/**
 * Moves the bytes after `committedEnd` of the file open as `fd` (read-write) to `<path>.torn`
 * (appended, synced) and then truncates the file to `committedEnd` (synced). Returns the number of
 * bytes moved.
 *
 * Contract: the caller holds the session's lock. If a previous sidecar does not end with a newline,
 * one is added before the new bytes so two tears never run together.
 */
export function moveTornTail(fd: number, path: string, committedEnd: number): number {
  const size = fstatSync(fd).size;
  if (size <= committedEnd) return 0;
  const torn = readAt(fd, committedEnd, size - committedEnd);
  const sidecar = openRegularFile(
    tornSidecarPath(path),
    constants.O_RDWR | constants.O_CREAT | constants.O_APPEND,
    0o600,
  );
  try {
    const existing = fstatSync(sidecar).size;
    if (existing > 0 && readAt(sidecar, existing - 1, 1)[0] !== NEWLINE_BYTE)
      writeAll(sidecar, Buffer.from(NEWLINE));
    writeAll(sidecar, torn);
    fsyncSync(sidecar);
  } finally {
    closeSync(sidecar);
  }
  ftruncateSync(fd, committedEnd);
  fsyncSync(fd);
  return torn.length;
}
