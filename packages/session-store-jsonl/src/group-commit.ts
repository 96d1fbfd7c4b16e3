/**
 * Group commit: one `fdatasync` makes every write issued before it durable, so appends that are in
 * flight together share a sync. A caller waits for the first sync that starts after its write.
 *
 * Syncs run back to back: when one completes and writes were made while it ran, the next sync starts
 * at once — before the callers it made durable resume — so the disk works on the next group while
 * those callers prepare and write their next batches (the CPU never waits for the disk while there is
 * work, and the disk never waits for a burst of writes to end).
 */
import { fdatasync } from "node:fs";

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

/** Coalesces the durability syncs of one file descriptor. */
export class GroupCommit {
  private running = false;
  /** Callers whose writes the running sync (if any) does not cover: the next sync's group. */
  private waiting: Waiter[] = [];
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly fd: number) {}

  /**
   * Resolves once everything written to the descriptor before this call is on disk.
   *
   * Contract: rejects with the sync's error, for every caller that waited on that sync.
   */
  sync(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.running) this.start();
    });
  }

  /** Resolves when no sync is running or waiting to run (their errors belong to their callers). */
  idle(): Promise<void> {
    if (!this.running && this.waiting.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private start(): void {
    const group = this.waiting;
    this.waiting = [];
    this.running = true;
    fdatasync(this.fd, (error) => {
      this.running = false;
      // Writes made while this sync ran: their sync starts now, before this group's callers resume.
      if (this.waiting.length > 0) this.start();
      else {
        const idle = this.idleWaiters;
        this.idleWaiters = [];
        for (const resolve of idle) resolve();
      }
      for (const waiter of group) {
        if (error) waiter.reject(error);
        else waiter.resolve();
      }
    });
  }
}
