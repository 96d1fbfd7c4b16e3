/**
 * Reading entry lines back from a session file by their offsets, after a scan that kept no copy of the
 * file: a small cache of aligned blocks (each read into a buffer it reuses), so that parsing the bodies
 * of a context — contiguous lines, read forwards or backwards — costs one read per block.
 */
import { closeSync, constants, fstatSync } from "node:fs";
import { SessionCorruptError } from "@arbor/session-store";
import { readInto } from "./file-reads.js";
import { openRegularFile } from "./regular-file.js";
import type { EntrySource } from "./stored-entry.js";

/** Size (and alignment) of a cached block. */
const BLOCK = 1024 * 1024;
/** Blocks kept per source. */
const BLOCKS = 2;

interface Block {
  start: number;
  length: number;
  bytes: Buffer;
}

/** The identity of a file as scanned: a read-back of another file at its path is refused. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** An {@link EntrySource} reading a session file's lines back by offset (see the module comment). */
export class FileEntrySource implements EntrySource {
  private readonly blocks: Block[] = [];

  constructor(
    readonly sessionId: string,
    private readonly path: string,
    private readonly identity: FileIdentity,
  ) {}

  text(start: number, end: number): string {
    const block = this.blocks.find((held) => start >= held.start && end <= held.start + held.length);
    if (block !== undefined) {
      // Most recently used first.
      if (this.blocks[0] !== block) {
        this.blocks.splice(this.blocks.indexOf(block), 1);
        this.blocks.unshift(block);
      }
      return block.bytes.toString(undefined, start - block.start, end - block.start);
    }
    const from = start - (start % BLOCK);
    if (end - from > BLOCK) {
      // A line longer than a block: read it alone.
      return this.read(start, end - start, Buffer.allocUnsafe(end - start)).toString(
        undefined,
        0,
        end - start,
      );
    }
    const reused = this.blocks.length >= BLOCKS ? this.blocks.pop()! : undefined;
    const bytes = reused?.bytes ?? Buffer.allocUnsafeSlow(BLOCK);
    const read = this.read(from, BLOCK, bytes, end - from);
    const next: Block = { start: from, length: read.length, bytes };
    this.blocks.unshift(next);
    return bytes.toString(undefined, start - from, end - from);
  }

  /** Reads up to `length` bytes at `position` into `into`; at least `needed` must be there. */
  private read(position: number, length: number, into: Buffer, needed = length): Buffer {
    let fd: number;
    try {
      fd = openRegularFile(this.path, constants.O_RDONLY);
    } catch (error) {
      throw this.changed("it can no longer be opened", error);
    }
    try {
      const stat = fstatSync(fd);
      if (stat.dev !== this.identity.dev || stat.ino !== this.identity.ino)
        throw this.changed("another file was put in its place");
      const filled = readInto(fd, into, 0, Math.min(length, Math.max(0, stat.size - position)), position);
      if (filled < needed) throw this.changed("it is shorter than when it was opened");
      return into.subarray(0, filled);
    } finally {
      closeSync(fd);
    }
  }

  private changed(what: string, cause?: unknown): SessionCorruptError {
    return new SessionCorruptError(
      this.sessionId,
      `the session file changed since it was opened (${what}); open the session again`,
      cause === undefined ? undefined : { cause },
    );
  }
}
