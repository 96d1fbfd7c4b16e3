/**
 * The live follower of {@link JsonlSessionStore.watch}: `fs.watch` on the session file (with a slow
 * `fstat` poll behind it, for file systems that send no events) and a read of the bytes after the
 * last committed batch it delivered.
 */
import { closeSync, type FSWatcher, fstatSync, openSync, readFileSync, watch } from "node:fs";
import type { SessionAppendListener, SessionWatch } from "@arbor/session-store";
import { readAt } from "./file-reads.js";
import { findCommittedEnd, parseHeaderLine, scanEntries } from "./scanner.js";

/** How often the size of a watched file is checked when no event came (ms). */
const POLL_MS = 500;

/** Follows one session file from its committed end at the start. */
export class JsonlWatch implements SessionWatch {
  private offset: number;
  private readonly watcher: FSWatcher | undefined;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  /**
   * Contract: throws what reading the file throws (`SessionCorruptError` for an unreadable header).
   */
  constructor(
    private readonly sessionId: string,
    private readonly path: string,
    private readonly onAppend: SessionAppendListener,
    private readonly onClose: (watch: JsonlWatch) => void,
    private readonly warn: (message: string) => void,
  ) {
    const buffer = readFileSync(path);
    this.offset = findCommittedEnd(buffer, parseHeaderLine(sessionId, buffer).headerEnd);
    try {
      this.watcher = watch(path, { persistent: false }, () => this.check());
      this.watcher.on("error", () => {}); // The poll keeps going.
    } catch {
      this.watcher = undefined; // No events here: the poll alone follows the file.
    }
    this.timer = setInterval(() => this.check(), POLL_MS);
    this.timer.unref();
  }

  /** Contract: see {@link SessionWatch.close}. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watcher?.close();
    clearInterval(this.timer);
    this.onClose(this);
  }

  /** Reads and delivers the batches committed after `offset`, if any. */
  check(): void {
    if (this.closed) return;
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch {
      return; // Deleted or being replaced: the next event or poll looks again.
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        this.warn(`${this.sessionId}: the watched file shrank (rewritten elsewhere); following from its end`);
        this.offset = size;
        return;
      }
      if (size === this.offset) return;
      const tail = readAt(fd, this.offset, size - this.offset);
      const end = findCommittedEnd(tail, 0);
      if (end === 0) return; // A batch still being written.
      const scan = scanEntries(this.sessionId, tail.subarray(0, end), 0, end);
      this.offset += end;
      for (const warning of scan.warnings) this.warn(`${this.sessionId}: ${warning}`);
      if (scan.entries.length > 0) this.onAppend(scan.entries);
    } finally {
      closeSync(fd);
    }
  }
}
