import type { AgentEvent, AgentMessage } from "@arbor/agent-core";
import type { HarnessHookError } from "./errors.js";
import type { CompactionReason } from "./hooks.js";
import type { HarnessOperation } from "./phase.js";
import type { KeptEntries } from "./unsaved-entries.js";

/**
 * How a compaction ended (the `outcome` of `compaction_end` and the result of `compact()`). Every outcome
 * carries `message`: what happened in plain words, for a front end to show as is (e.g. "Nothing to compact
 * yet: the session has only one turn.").
 */
export type HarnessCompactionOutcome =
  | {
      kind: "compacted";
      /** The id of the `compaction` entry. */
      entryId: string;
      summary: string;
      firstKeptEntryId: string;
      tokensBefore: number;
      tokensAfter: number;
      /** True when a `session_before_compact` handler supplied the summary. */
      fromHook: boolean;
      message: string;
    }
  | {
      kind: "nothing_to_compact";
      /** Why, as a code (see `NothingToCompact.reason` of `@arbor/compaction`); `message` says it in words. */
      reason: string;
      tokensBefore: number;
      message: string;
    }
  | { kind: "cancelled"; message: string }
  | { kind: "aborted"; message: string }
  | { kind: "failed"; message: string };

/**
 * What a harness session reports to `subscribe()` listeners: every {@link AgentEvent} of its runs, plus:
 *
 * - `queue_update`: the steering, follow-up or next-turn queue changed;
 * - `save_point`: pending writes reached the store (`tool_calls`: an assistant message that calls tools,
 *   before they run; `turn_end`, `agent_end`, or the end of an operation);
 * - `compaction_start` / `compaction_end`: a compaction (reason `threshold`, `overflow` or `manual`);
 * - `prune`: before a threshold compaction, old tool results became stubs that say how to `recall` them (a
 *   `prune` entry); when that was enough, no compaction follows;
 * - `branch_summary`: `navigateTree()` wrote the summary of the branch it left, or `mergeBranch()` the
 *   summary of the branch it folded in;
 * - `retry_scheduled` / `retry_attempt` / `retry_finished`: a transient provider failure is retried;
 * - `hook_error`: a hook handler threw (the run went on without it);
 * - `save_retry`: the store refused a save point; it is tried again after `delayMs` (for up to
 *   `settings.saveRetry.timeoutMs`; never after a conflict);
 * - `save_error`: the store refused a save point after its retries: the entries stay pending, and are kept by
 *   the `unsavedEntries` keeper (`kept` says where); the run stops before another tool or model call;
 * - `run_stopped`: a run ended early because a save failed — `message` says so in plain words (what was
 *   refused, where the entries not stored are), for a front end to show as is;
 * - `settled`: an operation (prompt, continue, compact, navigateTree, mergeBranch, fork) finished and the session is idle.
 */
export type HarnessEvent =
  | AgentEvent
  | {
      type: "queue_update";
      steering: readonly AgentMessage[];
      followUp: readonly AgentMessage[];
      nextTurn: readonly AgentMessage[];
    }
  | {
      type: "save_point";
      reason: SaveReason;
      /** Ids of the entries written, in order. */
      entryIds: readonly string[];
    }
  | { type: "compaction_start"; reason: CompactionReason; tokensBefore: number }
  | {
      type: "compaction_end";
      reason: CompactionReason;
      outcome: HarnessCompactionOutcome;
      tokensBefore: number;
      /** The estimated context size after it (equal to `tokensBefore` when nothing was compacted). */
      tokensAfter: number;
    }
  | {
      type: "prune";
      /** The id of the `prune` entry. */
      entryId: string;
      /** How many tool results are shown as stubs from now on. */
      count: number;
      tokensBefore: number;
      tokensAfter: number;
      /** What happened in plain words, for a front end to show as is. */
      message: string;
    }
  | {
      type: "branch_summary";
      /** The id of the `branch_summary` entry (the new leaf). */
      entryId: string;
      summary: string;
      /**
       * `navigateTree()`: the entry the new branch starts from (`root` for the start of the session);
       * `mergeBranch()`: the last entry of the merged branch.
       */
      fromId: string;
      oldLeafId: string | null;
      fromHook: boolean;
    }
  | {
      type: "retry_scheduled";
      /** 1 for the first retry. */
      attempt: number;
      /** How many retries this kind of failure gets (fewer for a stalled stream: see `RetryPolicy`). */
      maxRetries: number;
      delayMs: number;
      errorMessage: string;
    }
  | { type: "retry_attempt"; attempt: number }
  | {
      type: "retry_finished";
      success: boolean;
      /** Retries made. */
      attempts: number;
      /** Set when it gave up: why. */
      errorMessage?: string;
      aborted?: boolean;
    }
  | { type: "hook_error"; hook: string; error: HarnessHookError }
  | {
      type: "save_retry";
      /** 1 after the first refusal. */
      attempt: number;
      delayMs: number;
      /** How long the save point may spend retrying in all (`settings.saveRetry.timeoutMs`). */
      timeoutMs: number;
      error: unknown;
    }
  | {
      type: "save_error";
      /** The store's last error. */
      error: unknown;
      /** Attempts made (1 for a refusal that is never retried: a conflict). */
      attempts?: number;
      /** Entries not stored. */
      entryCount?: number;
      /** Where the `unsavedEntries` keeper put them. */
      kept?: KeptEntries;
    }
  | { type: "run_stopped"; reason: "save_failed"; message: string; kept?: KeptEntries }
  | { type: "settled"; operation: HarnessOperation };

/** Why a save point was reached (the `reason` of `save_point`). */
export type SaveReason = "tool_calls" | "turn_end" | "agent_end" | "operation";

/** The `type` of any {@link HarnessEvent}. */
export type HarnessEventType = HarnessEvent["type"];

/**
 * Receives every event of a session, in order. Listeners run one after another, each awaited, and the run
 * waits for them (a listener may read the store at `save_point` and see the turn written).
 *
 * Contract: may be async; a throw is reported to `onError` as a `HarnessListenerError` and the next
 * listener runs.
 */
export type HarnessListener = (event: HarnessEvent) => void | Promise<void>;
