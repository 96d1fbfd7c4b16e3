import type { AgentMessage } from "@arbor/agent-core";
import type { AppendableMessage, Session, SessionEntry } from "@arbor/session-store";
import { type PendingWrite, PendingWrites } from "./pending-writes.js";
import type { SessionEvents } from "./session-events.js";

/**
 * The pending writes of one harness session (docs/reference/harness.md). Messages join the session when their
 * `message_end` arrives — in memory only; settings changes made while an operation is in flight wait in
 * {@link PendingWrites}. {@link save} is the save point: it appends the waiting settings changes after the
 * messages, writes everything in one `flush()` (one atomic batch), and emits `save_point`. A store failure
 * keeps every entry pending (nothing is dropped) and is reported as `save_error`; the next save point
 * writes them again.
 */
export class SessionWriter {
  private readonly pending = new PendingWrites();
  private readonly entryIds = new WeakMap<object, string>();
  private unsaved: string[] = [];

  constructor(
    private readonly session: Session,
    private readonly events: SessionEvents,
  ) {}

  /** Settings changes waiting for the next save point. */
  get pendingWrites(): number {
    return this.pending.length;
  }

  /** Appends a message at its `message_end` (not written until the next save point). */
  appendMessage(message: AgentMessage): void {
    const role = (message as { role?: unknown }).role;
    // Summaries are entries of their own; they reach a transcript only from the session itself.
    if (role === "compactionSummary" || role === "branchSummary") return;
    const entry = this.session.appendMessage(message as AppendableMessage);
    this.entryIds.set(message, entry.id);
    this.unsaved.push(entry.id);
  }

  /** The id of the entry a message was stored as, when this writer stored it. */
  entryIdOf(message: AgentMessage): string | undefined {
    return this.entryIds.get(message);
  }

  /** Remembers entries appended to the session directly (compactions, leaf moves) for the next `save_point`. */
  track(entries: readonly Pick<SessionEntry, "id">[]): void {
    for (const entry of entries) this.unsaved.push(entry.id);
  }

  /** Queues a settings change for the next save point. */
  queue(write: PendingWrite): void {
    this.pending.push(write);
  }

  /**
   * Appends writes to the session now, in memory, ahead of whatever follows (and of anything queued
   * before); they are written at the next save point.
   */
  stage(writes: readonly PendingWrite[]): void {
    for (const write of writes) this.pending.push(write);
    this.applyQueued();
  }

  /** Appends the queued settings changes to the session (in memory); a refused one is reported. */
  private applyQueued(): void {
    const applied = this.pending.applyTo(this.session);
    this.track(applied.entries);
    for (const refused of applied.refused) this.events.report(refused.error);
  }

  /**
   * The save point: appends the queued settings changes, flushes the session and emits `save_point` with the
   * ids written (nothing is emitted when nothing was pending). Never throws.
   *
   * @returns false when the store refused the write (the entries stay pending).
   */
  async save(reason: "turn_end" | "agent_end" | "operation"): Promise<boolean> {
    const session = this.session;
    this.applyQueued();
    if (session.pendingCount === 0) {
      this.unsaved = [];
      return true;
    }
    try {
      await session.flush();
    } catch (error) {
      this.events.report(error);
      await this.events.emit({ type: "save_error", error });
      return false;
    }
    const entryIds = this.unsaved;
    this.unsaved = [];
    await this.events.emit({ type: "save_point", reason, entryIds });
    return true;
  }
}
