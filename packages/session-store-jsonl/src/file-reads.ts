/** Bounded reads of a session file through a file descriptor. */
import { readSync } from "node:fs";

/** Scratch space for short reads whose bytes are not kept (listing reads thousands of them). */
const SCRATCH = Buffer.allocUnsafeSlow(64 * 1024);

/**
 * Reads `length` bytes at `position` (fewer at the end of the file). With `scratch`, a read that fits
 * lands in a shared buffer that the next scratch read overwrites: the caller must be done with it by
 * then (all readers here are synchronous).
 */
export function readAt(fd: number, position: number, length: number, scratch = false): Buffer {
  const buffer =
    scratch && length <= SCRATCH.length ? SCRATCH.subarray(0, length) : Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, buffer, filled, length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

/**
 * Reads `length` bytes of the file at `position` into `buffer` at `offset` (fewer at the end of the
 * file); returns how many.
 */
export function readInto(
  fd: number,
  buffer: Buffer,
  offset: number,
  length: number,
  position: number,
): number {
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, buffer, offset + filled, length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return filled;
}
