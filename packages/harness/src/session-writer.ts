import type { AgentMessage } from "@arbor/agent-core";
import type { AppendableMessage, Session, SessionEntry } from "@arbor/session-store";
import { SessionUnsavedError } from "./errors.js";
import type { SaveReason } from "./events.js";
import type { HarnessRuntime } from "./harness-options.js";
import { type PendingWrite, PendingWrites } from "./pending-writes.js";
import type { SaveFailure } from "./save-failure.js";
import { isAnotherWriter, isRetryableSaveError, saveRetryDelay } from "./save-retry.js";
import type { SessionEvents } from "./session-events.js";
import { TOOL_OUTPUT_ENTRY, type ToolOutputRecord } from "./tool-output-budget.js";
import type { UnsavedEntries } from "./unsaved-entries.js";

const neverAborted = new AbortController().signal;

/**
 * The pending writes of one harness session (docs/reference/harness.md). Messages join the session when their
 * `message_end` arrives — in memory only; settings changes made while an operation is in flight wait in
 * {@link PendingWrites}. {@link save} is the save point: it appends the waiting settings changes after the
 * messages, writes everything in one `flush()` (one atomic batch), and emits `save_point`.
 *
 * A refused save is retried with growing delays for `settings.saveRetry.timeoutMs` (`save_retry` events),
 * never after another writer appended (a conflict). When it is given up the entries stay pending, the
 * `unsavedEntries` keeper keeps them (a recovery file), `save_error` says where, and the writer is
 * {@link failed}: the session stops its run, and later save points only update what the keeper holds, until
 * {@link retryFailed} (the start of the next run) stores them.
 */
export class SessionWriter {
  private readonly pending = new PendingWrites();
  private readonly entryIds = new WeakMap<object, string>();
  /** The entries appended since the last successful save, in order (what a failed save leaves unstored). */
  private unsaved: SessionEntry[] = [];
  /** The last entry the store is known to hold (`undefined`: none saved since the session was opened). */
  private storedTail: string | null | undefined;
  /** The leaf the session was opened at: the best guess of the store's last entry before the first save. */
  private readonly openedAt: string | null;
  private failure: SaveFailure | undefined;
  /** The whole outputs of cut tool results, by call id, until their result message is appended. */
  private readonly toolOutputs = new Map<string, ToolOutputRecord>();

  constructor(
    private readonly session: Session,
    private readonly events: SessionEvents,
    private readonly runtime: Pick<HarnessRuntime, "settings" | "sleep" | "unsavedEntries" | "now">,
  ) {
    this.openedAt = session.entryCount === 0 ? null : session.leafId;
  }

  /** Settings changes waiting for the next save point. */
  get pendingWrites(): number {
    return this.pending.length;
  }

  /** True after a save point was given up, until a later save stores what it left ({@link retryFailed}). */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** The failed save point, while {@link failed}. */
  get lastFailure(): SaveFailure | undefined {
    return this.failure;
  }

  /** Appends a message at its `message_end` (not written until the next save point). */
  appendMessage(message: AgentMessage): void {
    const role = (message as { role?: unknown }).role;
    // Summaries are entries of their own; they reach a transcript only from the session itself.
    if (role === "compactionSummary" || role === "branchSummary") return;
    const entry = this.session.appendMessage(message as AppendableMessage);
    this.entryIds.set(message, entry.id);
    this.unsaved.push(entry);
    if (role !== "toolResult") return;
    const toolCallId = (message as { toolCallId?: unknown }).toolCallId;
    const record = typeof toolCallId === "string" ? this.toolOutputs.get(toolCallId) : undefined;
    if (record === undefined) return;
    this.toolOutputs.delete(record.toolCallId);
    this.unsaved.push(this.session.appendCustom(TOOL_OUTPUT_ENTRY, record));
  }

  /**
   * Keeps the whole output of a tool call whose result was cut to fit the context: when the call's result
   * message is appended, a `custom` entry {@link TOOL_OUTPUT_ENTRY} holding it follows it on the path, and both
   * are written at the same save point.
   */
  keepToolOutput(record: ToolOutputRecord): void {
    this.toolOutputs.set(record.toolCallId, record);
  }

  /** Drops the kept outputs whose result message never came (the end of a run). */
  forgetToolOutputs(): void {
    this.toolOutputs.clear();
  }

  /** The id of the entry a message was stored as, when this writer stored it. */
  entryIdOf(message: AgentMessage): string | undefined {
    return this.entryIds.get(message);
  }

  /** Remembers entries appended to the session directly (compactions, leaf moves) for the next save point. */
  track(entries: readonly SessionEntry[]): void {
    for (const entry of entries) this.unsaved.push(entry);
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
   * The save point: appends the queued settings changes (not at `tool_calls`: they follow the turn's
   * messages), flushes the session with retries, and emits `save_point` with the ids written (nothing is
   * emitted when nothing was pending). After a failed save it does not write: it hands every entry still
   * unsaved to the keeper. Never throws.
   *
   * @returns false when the entries stay unsaved.
   */
  async save(reason: SaveReason, signal: AbortSignal = neverAborted): Promise<boolean> {
    if (reason !== "tool_calls") this.applyQueued();
    if (this.session.pendingCount === 0) {
      this.unsaved = [];
      return true;
    }
    const failure = this.failure;
    if (failure === undefined) return this.write(reason, signal);
    await this.keep(failure);
    return false;
  }

  /**
   * After a failed save: writes what it left (with the retries of any save point). On success the keeper's
   * copy is released and the writer is no longer {@link failed}. Never throws.
   */
  async retryFailed(signal: AbortSignal = neverAborted): Promise<boolean> {
    const failure = this.failure;
    if (failure === undefined) return true;
    this.failure = undefined;
    if (await this.write("operation", signal, failure)) {
      if (failure.kept !== undefined) await this.runtime.unsavedEntries?.release(failure.kept);
      return true;
    }
    return false;
  }

  /**
   * Before a run: what a failed save left is written first ({@link retryFailed}).
   *
   * @throws {SessionUnsavedError} when the store still refuses it: nothing may run.
   */
  async saveFailedFirst(signal?: AbortSignal): Promise<void> {
    if (await this.retryFailed(signal)) return;
    throw new SessionUnsavedError(this.session.id, this.failure as SaveFailure);
  }

  /** Flushes with retries; on the last refusal, records the failure and keeps the entries. */
  private async write(reason: SaveReason, signal: AbortSignal, previous?: SaveFailure): Promise<boolean> {
    const policy = this.runtime.settings.saveRetry;
    let attempts = 0;
    let elapsed = 0;
    for (;;) {
      attempts++;
      const started = performance.now();
      try {
        await this.session.flush();
        break;
      } catch (error) {
        elapsed += performance.now() - started;
        const delay =
          isRetryableSaveError(error) && !signal.aborted
            ? saveRetryDelay(policy, attempts, elapsed)
            : undefined;
        if (delay === undefined) return this.fail(error, attempts, elapsed, previous);
        await this.events.emit({
          type: "save_retry",
          attempt: attempts,
          delayMs: delay,
          timeoutMs: policy.timeoutMs,
          error,
        });
        try {
          await this.runtime.sleep(delay, signal);
        } catch {
          // Aborted while waiting: the next attempt is the last.
        }
        elapsed += delay;
      }
    }
    const last = this.unsaved.at(-1);
    if (last !== undefined) this.storedTail = last.id;
    const entryIds = this.unsaved.map((entry) => entry.id);
    this.unsaved = [];
    await this.events.emit({ type: "save_point", reason, entryIds });
    return true;
  }

  private async fail(
    error: unknown,
    attempts: number,
    retriedMs: number,
    previous?: SaveFailure,
  ): Promise<false> {
    const failure: SaveFailure = {
      error,
      attempts,
      retriedMs,
      conflict: isAnotherWriter(error),
      entryCount: 0,
      kept: previous?.kept,
      keptError: undefined,
    };
    this.failure = failure;
    await this.keep(failure);
    const kept = failure.kept === undefined ? {} : { kept: failure.kept };
    await this.events.emit({ type: "save_error", error, attempts, entryCount: failure.entryCount, ...kept });
    // After the event: a reporter can tell a refusal a listener took charge of by its error object.
    this.events.report(error);
    return false;
  }

  /** Hands every entry still unsaved to the keeper (replacing what it kept before). */
  private async keep(failure: SaveFailure): Promise<void> {
    const unsaved = this.unsavedEntries(failure);
    failure.entryCount = unsaved.entries.length;
    const keeper = this.runtime.unsavedEntries;
    if (keeper === undefined) return;
    try {
      failure.kept = await keeper.keep(unsaved, failure.kept);
      failure.keptError = undefined;
    } catch (error) {
      failure.keptError = error;
      this.events.report(error);
    }
  }

  private unsavedEntries(failure: SaveFailure): UnsavedEntries {
    const { session } = this;
    const conflictExpected = (failure.error as { expectedLastEntryId?: unknown }).expectedLastEntryId;
    const expected =
      failure.conflict && (typeof conflictExpected === "string" || conflictExpected === null)
        ? conflictExpected
        : this.storedTail === undefined
          ? this.openedAt
          : this.storedTail;
    return {
      sessionId: session.id,
      header: session.header,
      sessionStored: session.isStored,
      expectedLastEntryId: expected,
      entries: [...this.unsaved],
      reason: failure.error instanceof Error ? failure.error.message : String(failure.error),
      conflict: failure.conflict,
      failedAt: this.runtime.now().toISOString(),
    };
  }
}
