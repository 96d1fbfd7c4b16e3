import {
  type AssistantMessage,
  decideRetry,
  type FailureInfo,
  isContextOverflow,
  type ProviderResponseInfo,
  parseRetryAfter,
  type RetryPolicy,
} from "@arbor/ai-providers";
import type { HarnessEvent } from "./events.js";
import type { HarnessPhase } from "./phase.js";

/** What the recovery loop needs from a session. Internal. */
export interface RecoveryHost {
  /** The operation's signal: an abort ends the loop. */
  readonly signal: AbortSignal;
  readonly policy: RetryPolicy;
  readonly retryEnabled: boolean;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** The final assistant message of the last run when it failed (`stopReason: "error"`). */
  lastRunFailure(): AssistantMessage | undefined;
  /** What the provider reported about the failed request (status, `retry-after`). */
  lastResponse(): ProviderResponseInfo | undefined;
  contextWindow(): number;
  /** Compacts the context without the failed response (reason `overflow`); true when it did. */
  compactAfterOverflow(failed: AssistantMessage): Promise<boolean>;
  /** Takes the failed response out of the model's context (it stays in the session file). */
  dropFailedResponse(failed: AssistantMessage): Promise<void>;
  /** Runs the agent again from the current transcript (`Agent.continue()`); false when it could not start. */
  continueRun(): Promise<boolean>;
  setPhase(phase: HarnessPhase): void;
  emit(event: HarnessEvent): Promise<void>;
}

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

/**
 * Runs `start` (a prompt or a continuation), then recovers from the failures worth another attempt:
 *
 * - a context overflow (`isContextOverflow`): compact (reason `overflow`) and continue — once per call of
 *   this function; a second overflow stays an error;
 * - a transient failure (`isTransientFailure`: 429, 5xx, overloaded, a dropped connection …): wait as the
 *   retry policy says (`retry_scheduled`), take the failed response out of the context, and continue
 *   (`retry_attempt`); `retry_finished` ends a series of retries, successful or not.
 *
 * Anything else (a permanent error, an abort) ends the loop; the failed response stays where it is.
 */
export async function runWithRecovery(host: RecoveryHost, start: () => Promise<void>): Promise<void> {
  await start();
  let retries = 0;
  let overflowHandled = false;
  let gaveUp: string | undefined;
  for (;;) {
    const failed = host.lastRunFailure();
    if (failed === undefined || host.signal.aborted) break;
    if (isContextOverflow(failed, host.contextWindow())) {
      if (overflowHandled || !(await host.compactAfterOverflow(failed))) break;
      overflowHandled = true;
      if (host.signal.aborted || !(await host.continueRun())) break;
      continue;
    }
    if (!host.retryEnabled) break;
    const decision = decideRetry(host.policy, retries + 1, failureInfoOf(failed, host.lastResponse()));
    if (!decision.retry) {
      gaveUp = decision.reason;
      break;
    }
    retries = decision.attempt;
    await host.emit({
      type: "retry_scheduled",
      attempt: retries,
      maxRetries: host.policy.maxRetries,
      delayMs: decision.delayMs,
      errorMessage: failed.errorMessage ?? "",
    });
    host.setPhase("retry");
    try {
      await host.sleep(decision.delayMs, host.signal);
    } catch {
      // Aborted while waiting: reported below.
    }
    if (host.signal.aborted) break;
    await host.dropFailedResponse(failed);
    await host.emit({ type: "retry_attempt", attempt: retries });
    if (!(await host.continueRun())) break;
  }
  if (retries === 0) return;
  const failure = host.lastRunFailure();
  const finished: Extract<HarnessEvent, { type: "retry_finished" }> = {
    type: "retry_finished",
    success: failure === undefined && !host.signal.aborted,
    attempts: retries,
  };
  if (host.signal.aborted) finished.aborted = true;
  else if (failure !== undefined) finished.errorMessage = gaveUp ?? failure.errorMessage ?? "failed";
  await host.emit(finished);
}
