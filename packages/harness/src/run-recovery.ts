import {
  type AssistantMessage,
  decideRetry,
  type FailureInfo,
  isContextOverflow,
  type ProviderResponseInfo,
  parseRetryAfter,
} from "@arbor/ai-providers";
import type { HarnessEvent } from "./events.js";
import { reportRunStopped } from "./save-points.js";
import type { SessionContext } from "./session-context.js";

/** The failure as `decideRetry` needs it: the error text, plus the HTTP status and `retry-after` when known. */
export function failureInfoOf(
  message: AssistantMessage,
  response: ProviderResponseInfo | undefined,
): FailureInfo {
  const info: FailureInfo = { message: message.errorMessage ?? "" };
  if (response !== undefined && response.status >= 400) {
    info.status = response.status;
    const retryAfterMs = parseRetryAfter(response.headers);
    if (retryAfterMs !== undefined) info.retryAfterMs = retryAfterMs;
  }
  return info;
}

/** What the last run's outcome calls for. */
export type RecoveryStep =
  /** Compact without the failed response (reason `overflow`), then continue. */
  | { kind: "overflow"; failed: AssistantMessage }
  /**
   * Wait `delayMs`, take the failed response out of the context, then continue (`maxRetries`: how many
   * retries this kind of failure gets).
   */
  | { kind: "retry"; failed: AssistantMessage; attempt: number; maxRetries: number; delayMs: number }
  /** Nothing (more) to recover: the run stands as it ended. */
  | { kind: "stop" };

const STOP: RecoveryStep = { kind: "stop" };

/**
 * The recovery of one run (a prompt or a continuation) from the failures worth another attempt. The session
 * runs the loop — it owns the phase and the agent — and asks this object what to do after each run:
 *
 * - a context overflow (`isContextOverflow`): compact (reason `overflow`) and continue — once per run; a
 *   second overflow stays an error;
 * - a transient failure (`isTransientFailure`: 429, 5xx, overloaded, a dropped connection …): wait as the
 *   retry policy says (`retry_scheduled`), take the failed response out of the context, and continue
 *   (`retry_attempt`); `retry_finished` ends a series of retries, successful or not.
 *
 * Anything else (a permanent error, an abort) stops; the failed response stays where it is. Internal.
 */
export class RunRecovery {
  private retries = 0;
  private overflowHandled = false;
  private gaveUp: string | undefined;

  constructor(
    private readonly context: SessionContext,
    private readonly signal: AbortSignal,
  ) {}

  /** What the outcome of the run that just ended calls for. */
  next(): RecoveryStep {
    const { context } = this;
    const failed = context.lastRunFailure();
    if (failed === undefined || this.signal.aborted) return STOP;
    if (isContextOverflow(failed, context.contextWindow())) {
      if (this.overflowHandled) return STOP;
      this.overflowHandled = true;
      return { kind: "overflow", failed };
    }
    const { settings } = context.runtime;
    if (!settings.retryEnabled) return STOP;
    const info = failureInfoOf(failed, context.lastProviderResponse);
    const decision = decideRetry(settings.retry, this.retries + 1, info);
    if (!decision.retry) {
      this.gaveUp = decision.reason;
      return STOP;
    }
    this.retries = decision.attempt;
    return {
      kind: "retry",
      failed,
      attempt: decision.attempt,
      maxRetries: decision.maxRetries,
      delayMs: decision.delayMs,
    };
  }

  /** Announces a retry (`retry_scheduled`); the session is then in phase `retry`. */
  async schedule(step: Extract<RecoveryStep, { kind: "retry" }>): Promise<void> {
    await this.context.events.emit({
      type: "retry_scheduled",
      attempt: step.attempt,
      maxRetries: step.maxRetries,
      delayMs: step.delayMs,
      errorMessage: step.failed.errorMessage ?? "",
    });
  }

  /**
   * Waits the retry's delay, takes the failed response out of the context and emits `retry_attempt`.
   * Returns false when aborted while waiting (nothing changed).
   */
  async retry(step: Extract<RecoveryStep, { kind: "retry" }>): Promise<boolean> {
    const { context, signal } = this;
    try {
      await context.runtime.sleep(step.delayMs, signal);
    } catch {
      // Aborted while waiting: reported by finish().
    }
    if (signal.aborted) return false;
    await context.dropFailedResponse(step.failed);
    await context.events.emit({ type: "retry_attempt", attempt: step.attempt });
    return true;
  }

  /** Ends a series of retries with `retry_finished` (nothing when no retry was made). */
  async finish(): Promise<void> {
    if (this.retries === 0) return;
    const { context, signal } = this;
    const failure = context.lastRunFailure();
    const finished: Extract<HarnessEvent, { type: "retry_finished" }> = {
      type: "retry_finished",
      success: failure === undefined && !signal.aborted,
      attempts: this.retries,
    };
    if (signal.aborted) finished.aborted = true;
    else if (failure !== undefined) finished.errorMessage = this.gaveUp ?? failure.errorMessage ?? "failed";
    await context.events.emit(finished);
  }
}

/** What {@link recoverRun} drives: the session owns the phase, the compactor and the agent. Internal. */
export interface RecoveryDriver {
  /** Compacts without the failed response (reason `overflow`); false when nothing was compacted. */
  compactAfterOverflow(failed: AssistantMessage): Promise<boolean>;
  /** The session waits to retry (phase `retry`). */
  waitToRetry(): void;
  /** Runs the agent again from the transcript; false when it could not start. */
  resume(): Promise<boolean>;
}

/**
 * After a run: recovers from the failures worth another attempt as {@link RunRecovery} decides, until it
 * says stop. A failed save stops it at once — no retry and no continuation runs after it — and is reported
 * as `run_stopped`.
 */
export async function recoverRun(
  context: SessionContext,
  signal: AbortSignal,
  driver: RecoveryDriver,
): Promise<void> {
  const recovery = new RunRecovery(context, signal);
  for (let step = recovery.next(); step.kind !== "stop" && !context.writer.failed; step = recovery.next()) {
    if (step.kind === "overflow") {
      if (!(await driver.compactAfterOverflow(step.failed)) || signal.aborted) break;
    } else {
      await recovery.schedule(step);
      driver.waitToRetry();
      if (!(await recovery.retry(step))) break;
    }
    if (!(await driver.resume())) break;
  }
  await recovery.finish();
  if (context.writer.failed) await reportRunStopped(context.events, context.writer);
}
