/**
 * Bounded reads of a session file through a file descriptor: a growing window over its tail, and a
 * chunked walk over the lines of a byte range. Neither holds more than one chunk (or one line, when a
 * line is longer) in memory.
 */
import { readSync } from "node:fs";

const NEWLINE = 0x0a;

/** Scratch space for short reads whose bytes are not kept (listing reads thousands of them). */
const SCRATCH = Buffer.allocUnsafeSlow(16 * 1024);

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

/** Thrown by {@link TailWindow} when the bytes asked for lie beyond its cap. */
export class WindowLimitReached extends Error {}

/**
 * The bytes `[start, end)` of a file, read from the end backwards and grown (doubling) on demand,
 * never below `floor` and never larger than `cap` bytes.
 */
export class TailWindow {
  private bytes: Buffer;
  private start: number;

  constructor(
    private readonly fd: number,
    readonly floor: number,
    readonly end: number,
    initialSize: number,
    private readonly cap: number,
  ) {
    this.start = Math.max(floor, end - initialSize);
    this.bytes = readAt(fd, this.start, end - this.start, true);
  }

  /** The byte at a file offset in `[floor, end)`. */
  byteAt(offset: number): number | undefined {
    if (offset < this.floor || offset >= this.end) return undefined;
    this.ensure(offset);
    return this.bytes[offset - this.start];
  }

  /** The file offset of the last newline before `before`, or `floor - 1` when there is none. */
  lastNewlineBefore(before: number): number {
    let from = before - 1;
    for (;;) {
      if (from < this.floor) return this.floor - 1;
      const found = from >= this.start ? this.bytes.lastIndexOf(NEWLINE, from - this.start) : -1;
      if (found >= 0) return this.start + found;
      if (this.start <= this.floor) return this.floor - 1;
      from = this.start - 1;
      this.grow();
    }
  }

  /** The bytes `[from, to)` as a slice of the window (no copy). */
  slice(from: number, to: number): Buffer {
    this.ensure(from);
    return this.bytes.subarray(from - this.start, to - this.start);
  }

  private ensure(offset: number): void {
    while (offset < this.start) this.grow();
  }

  private grow(): void {
    const size = this.end - this.start;
    if (size >= this.cap) throw new WindowLimitReached();
    const newStart = Math.max(this.floor, this.end - Math.min(this.cap, size * 2));
    const before = readAt(this.fd, newStart, this.start - newStart);
    this.bytes = Buffer.concat([before, this.bytes]);
    this.start = newStart;
  }
}

/**
 * Calls `onLine(buffer, lineStart, lineEnd, newline)` for every line of the file range
 * `[start, end)`, in order, reading `chunkSize` bytes at a time. `lineEnd` excludes the newline;
 * `newline` is false for a last line without one. Offsets are relative to the buffer passed.
 */
export function forEachLine(
  fd: number,
  start: number,
  end: number,
  chunkSize: number,
  onLine: (buffer: Buffer, lineStart: number, lineEnd: number, newline: boolean) => void,
): void {
  let carry: Buffer | undefined;
  let position = start;
  while (position < end) {
    const chunk = readAt(fd, position, Math.min(chunkSize, end - position));
    if (chunk.length === 0) break;
    position += chunk.length;
    const buffer: Buffer = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
    let lineStart = 0;
    for (;;) {
      const newline = buffer.indexOf(NEWLINE, lineStart);
      if (newline < 0) break;
      onLine(buffer, lineStart, newline, true);
      lineStart = newline + 1;
    }
    carry = lineStart < buffer.length ? Buffer.from(buffer.subarray(lineStart)) : undefined;
  }
  if (carry !== undefined) onLine(carry, 0, carry.length, false);
}
