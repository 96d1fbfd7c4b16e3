/**
 * The live follower of {@link SqliteSessionStore.watch}: `PRAGMA data_version` changes when another
 * connection commits, so a cheap poll tells when to read the rows after the last one delivered.
 */
import type { SessionAppendListener, SessionWatch, StoredEntry } from "@arbor/session-store";

/** What a {@link SqliteWatcher} needs from its store. */
export interface SqliteWatcherOptions {
  sessionId: string;
  /** The `seq` of the first row to deliver. */
  from: number;
  intervalMs: number;
  dataVersion: () => number;
  /** The rows from `seq` on, and the `seq` after the last of them. */
  readAfter: (seq: number) => { entries: StoredEntry[]; next: number };
  onAppend: SessionAppendListener;
  onClose: (watcher: SqliteWatcher) => void;
}

/** Follows one session of one database connection. */
export class SqliteWatcher implements SessionWatch {
  private next: number;
  private version: number;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: SqliteWatcherOptions) {
    this.next = options.from;
    this.version = options.dataVersion();
    this.timer = setInterval(() => this.poll(), Math.max(1, options.intervalMs));
    this.timer.unref();
  }

  /** Reads now: this connection appended to `sessionId` (its own commits leave `data_version` alone). */
  poke(sessionId: string): void {
    if (sessionId === this.options.sessionId) this.deliver();
  }

  /** Contract: see {@link SessionWatch.close}. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.options.onClose(this);
  }

  private poll(): void {
    if (this.closed) return;
    const version = this.options.dataVersion();
    if (version === this.version) return;
    this.version = version;
    this.deliver();
  }

  private deliver(): void {
    if (this.closed) return;
    const { entries, next } = this.options.readAfter(this.next);
    this.next = next;
    if (entries.length > 0) this.options.onAppend(entries);
  }
}
