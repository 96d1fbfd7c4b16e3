import { ArborError } from "@arbor/ai-providers";
import type { HarnessPhase } from "./phase.js";
import { keptText, refusalText, type SaveFailure } from "./save-failure.js";

/**
 * Typed errors for misuse of the harness. Failures a caller can act on (a provider error, a failing tool,
 * a compaction the summarizer could not write) are never thrown: they become messages, events and results.
 */

/** Stable machine-readable error codes of this package. */
export type HarnessErrorCode =
  | "harness_busy"
  | "harness_closed"
  | "invalid_harness_options"
  | "unknown_tool"
  | "invalid_merge"
  | "unresolved_model"
  | "hook_failed"
  | "listener_failed"
  | "session_unsaved";

/**
 * A structural operation (`prompt`, `continue`, `compact`, `navigateTree`, `fork`, …) was called while
 * another one is in flight. `steer()`, `followUp()`, `nextTurn()`, `abort()` and the settings changes are
 * always allowed; everything else waits for `waitForIdle()`.
 */
export class HarnessBusyError extends ArborError {
  constructor(
    /** The operation that was refused. */
    readonly operation: string,
    /** The operation in flight. */
    readonly running: string,
    /** Its phase when the call came. */
    readonly phase: HarnessPhase,
  ) {
    super(
      "harness_busy",
      `Cannot ${operation}: the session is busy (${running}, phase "${phase}"). ` +
        "Queue the message with steer(), followUp() or nextTurn(), or call abort() and await waitForIdle() first.",
    );
    this.name = "HarnessBusyError";
  }
}

/** The session was closed (`close()`); open it again with `harness.openSession(id)`. */
export class HarnessClosedError extends ArborError {
  constructor(
    readonly sessionId: string,
    operation: string,
  ) {
    super(
      "harness_closed",
      `Cannot ${operation}: session "${sessionId}" is closed. Open it again with harness.openSession().`,
    );
    this.name = "HarnessClosedError";
  }
}

/** `createHarness()` options (or a setting) are invalid; the message names the field and what was given. */
export class InvalidHarnessOptionsError extends ArborError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("invalid_harness_options", message, options);
    this.name = "InvalidHarnessOptionsError";
  }
}

/** `setActiveTools()` named a tool the harness was not given. */
export class UnknownToolError extends ArborError {
  constructor(
    readonly toolNames: readonly string[],
    known: readonly string[],
  ) {
    super(
      "unknown_tool",
      `Unknown tool${toolNames.length === 1 ? "" : "s"} ${toolNames.map((name) => `"${name}"`).join(", ")}. ` +
        `The harness has: ${known.length > 0 ? known.join(", ") : "(no tools)"}.`,
    );
    this.name = "UnknownToolError";
  }
}

/**
 * `mergeBranch()` was asked for a merge that folds in nothing: the branch and the target are the same
 * entry, or the branch is already on the target's path. Nothing was changed.
 */
export class InvalidMergeError extends ArborError {
  constructor(
    readonly sourceLeafId: string,
    readonly targetLeafId: string,
    message: string,
  ) {
    super("invalid_merge", message);
    this.name = "InvalidMergeError";
  }
}

/** A model reference (`"provider/model"`) could not be resolved to a `Model`. */
export class UnresolvedModelError extends ArborError {
  constructor(
    readonly reference: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super("unresolved_model", `Cannot use model "${reference}": ${reason}`, options);
    this.name = "UnresolvedModelError";
  }
}

/**
 * A hook handler threw (or rejected). Never thrown at the caller: it is reported as a `hook_error` event
 * and to `onError`, and the handler counts as having returned nothing.
 */
export class HarnessHookError extends ArborError {
  constructor(
    /** The hook's name, e.g. `tool_call`. */
    readonly hook: string,
    cause: unknown,
  ) {
    super("hook_failed", `The ${hook} hook failed: ${describe(cause)}`, { cause });
    this.name = "HarnessHookError";
  }
}

/** A `subscribe()` listener threw. Reported to `onError`; the other listeners and the run go on. */
export class HarnessListenerError extends ArborError {
  constructor(
    /** The type of the event the listener failed on. */
    readonly eventType: string,
    cause: unknown,
  ) {
    super("listener_failed", `A harness listener failed on "${eventType}": ${describe(cause)}`, { cause });
    this.name = "HarnessListenerError";
  }
}

/**
 * A session holds entries its store refused, so `prompt()` and `continue()` run nothing: the store still
 * refused them when the operation tried again (docs/reference/harness.md, "Failed saves").
 */
export class SessionUnsavedError extends ArborError {
  constructor(
    readonly sessionId: string,
    readonly failure: SaveFailure,
  ) {
    super(
      "session_unsaved",
      `Session "${sessionId}" holds entries its store refused (${refusalText(failure)}); nothing runs until ` +
        `they are saved. ${keptText(failure)}`,
      { cause: failure.error },
    );
    this.name = "SessionUnsavedError";
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
