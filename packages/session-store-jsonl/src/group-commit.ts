/**
 * Group commit: one `fdatasync` makes every write issued before it durable, so appends that are in
 * flight together share a sync. A caller waits for the first sync that starts after its write.
 *
 * Writes are held back by the caller and made in one piece just before the sync that covers them
 * starts (the `beforeSync` hook). When the caller's turn of the event loop ends — every append made in
 * one burst has joined — the group's sync starts. A lone append is synced in place (`fdatasyncSync`:
 * no thread-pool round trip, which costs about as much as a fast disk's sync); a group is synced on the
 * thread pool, so the next appends are encoded while the disk works. A group that reaches
 * {@link EARLY_GROUP} callers starts its sync at once, and up to {@link MAX_SYNCS} syncs run at a
 * time: with many appends in flight, the disk works on one part of them while the rest are encoded.
 */
import { fdatasync, fdatasyncSync } from "node:fs";

/** Callers after which a group's sync starts without waiting for the end of the burst. */
export const EARLY_GROUP = 8;
/** Syncs running at the same time at most. */
export const MAX_SYNCS = 2;

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

/** Coalesces the durability syncs of one file descriptor. */
export class GroupCommit {
  /** Syncs running on the thread pool. */
  private syncing = 0;
  /** The end-of-burst start is queued. */
  private scheduled = false;
  private closed = false;
  /** Callers whose writes no started sync covers: the next sync's group. */
  private waiting: Waiter[] = [];
  private idleWaiters: (() => void)[] = [];

  /**
   * @param beforeSync Called just before each sync starts, to make the writes held back for it;
   *   `later` is true when the sync starts after another one completed (not in the turn of the event
   *   loop its callers wrote in). Contract: when it throws, the sync is not made and every caller waiting for it is rejected with
   *   that error.
   */
  constructor(
    private readonly fd: number,
    private readonly beforeSync: (later: boolean) => void = () => {},
  ) {}

  /**
   * Resolves once everything written to the descriptor before this call (and whatever `beforeSync`
   * writes before the sync) is on disk.
   *
   * Contract: rejects with the sync's error, for every caller that waited on that sync.
   */
  sync(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (this.waiting.length >= EARLY_GROUP && this.syncing < MAX_SYNCS) this.start(false);
      else if (this.syncing === 0 && !this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => this.startAfterBurst());
      }
    });
  }

  /** Resolves when no sync is running or waiting to run (their errors belong to their callers). */
  idle(): Promise<void> {
    if (this.syncing === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops using the descriptor (it is about to be closed): no sync starts after those running, and
   * callers still waiting are rejected.
   */
  close(): void {
    this.closed = true;
    if (this.syncing === 0 && this.waiting.length > 0) this.start(false);
  }

  private startAfterBurst(): void {
    this.scheduled = false;
    if (this.syncing === 0 && this.waiting.length > 0) this.start(false);
  }

  private start(later: boolean): void {
    const group = this.waiting;
    this.waiting = [];
    try {
      if (this.closed) throw new Error("the session file was closed before its sync");
      this.beforeSync(later);
    } catch (error) {
      settle(group, error as Error);
      this.resolveIdle();
      return;
    }
    if (group.length === 1 && this.syncing === 0) {
      let failure: Error | undefined;
      try {
        fdatasyncSync(this.fd);
      } catch (error) {
        failure = error as Error;
      }
      this.resolveIdle();
      settle(group, failure);
      return;
    }
    this.syncing++;
    fdatasync(this.fd, (error) => {
      this.syncing--;
      // Callers that wrote while this sync ran: their sync starts now, before this group's callers resume.
      if (this.waiting.length > 0) this.start(true);
      else this.resolveIdle();
      settle(group, error ?? undefined);
    });
  }

  private resolveIdle(): void {
    if (this.syncing > 0 || this.waiting.length > 0) return;
    const idle = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of idle) resolve();
  }
}

function settle(group: readonly Waiter[], error: Error | undefined): void {
  for (const waiter of group) {
    if (error) waiter.reject(error);
    else waiter.resolve();
  }
}
