/**
 * Group commit: one `fdatasync` makes every write issued before it durable, so appends that are in
 * flight together share a sync. A caller waits for the first sync that starts after its write.
 */
import { fdatasync } from "node:fs";

/** Coalesces the durability syncs of one file descriptor. */
export class GroupCommit {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly fd: number) {}

  /**
   * Resolves once everything written to the descriptor before this call is on disk.
   *
   * Contract: rejects with the sync's error, for every caller that waited on that sync.
   */
  sync(): Promise<void> {
    if (this.queued !== undefined) return this.queued;
    if (this.running === undefined) {
      this.running = this.start();
      return this.running;
    }
    // The running sync may have started before our write: wait for the next one, shared by all
    // writes issued until it starts.
    const after = this.running.then(
      () => undefined,
      () => undefined,
    );
    this.queued = after.then(() => {
      this.queued = undefined;
      this.running = this.start();
      return this.running;
    });
    return this.queued;
  }

  /** Resolves when no sync is running or queued (their errors belong to their callers). */
  async idle(): Promise<void> {
    for (;;) {
      const pending = this.queued ?? this.running;
      if (pending === undefined) return;
      await pending.catch(() => undefined);
    }
  }

  private start(): Promise<void> {
    const run: Promise<void> = new Promise<void>((resolve, reject) => {
      fdatasync(this.fd, (error) => (error ? reject(error) : resolve()));
    }).finally(() => {
      if (this.running === run) this.running = undefined;
    });
    return run;
  }
}
