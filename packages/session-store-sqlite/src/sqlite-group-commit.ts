/**
 * Group commit for a synchronous database: appends made while the event loop is busy (in the same tick,
 * or in the promise reactions that follow it) wait for the tick to end and then commit together, in one
 * transaction, in the order they were made. One append alone commits as soon as the tick ends.
 */

/** An append waiting for its turn. */
export interface QueuedAppend<T> {
  readonly request: T;
  /** Settles the caller's promise: `undefined` for success, else the error it fails with. */
  settle(error: unknown): void;
}

/**
 * Commits every append of a group, in order.
 *
 * Contract: returns one outcome per append (`undefined`: stored; else the error that append fails with,
 * the others unaffected), or throws when the whole group failed (each append then fails with that error).
 */
export type CommitGroup<T> = (appends: readonly T[]) => unknown[];

/** The queue of appends not yet committed (see the module comment). */
export class AppendQueue<T> {
  private pending: QueuedAppend<T>[] = [];
  private scheduled = false;

  constructor(private readonly commit: CommitGroup<T>) {}

  /** Queues an append; resolves once it is committed, rejects with its own error. */
  enqueue(request: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ request, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the current tick and every promise reaction it set off: the appends they make join.
        process.nextTick(() => this.drain());
      }
    });
  }

  /**
   * Commits what is queued now. The store calls it before any other operation, so operations keep the
   * order they were made in.
   *
   * Contract: never throws; settles every queued append.
   */
  drain(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const group = this.pending;
    this.pending = [];
    let outcomes: unknown[];
    try {
      outcomes = this.commit(group.map((queued) => queued.request));
    } catch (error) {
      for (const queued of group) queued.settle(error);
      return;
    }
    for (const [index, queued] of group.entries()) queued.settle(outcomes[index]);
  }
}
