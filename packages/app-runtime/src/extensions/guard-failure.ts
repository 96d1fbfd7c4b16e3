/**
 * What a failed call of extension code is reported as: one line, whatever was thrown (an `Error`, a string,
 * `undefined`, an object whose `toString` throws) and however it ended (a timeout, a busy loop, Ctrl-C).
 */
import { inspect } from "node:util";
import type { GuardedOutcome } from "./guarded-call.js";

/** `12 s`, `1.5 s`, `250 ms`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/**
 * The message of a thrown value: an error's message (its name when the message is empty), a string as it
 * is, anything else described (`threw 42`, `threw undefined`, `threw { code: 1 }`).
 *
 * Contract: never throws, whatever the value (a proxy, an object without prototype, a throwing getter).
 */
export function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) return error.message !== "" ? error.message : error.name;
    if (typeof error === "object" && error !== null) {
      const message = (error as { message?: unknown }).message;
      if (typeof message === "string" && message !== "") return message;
    }
    if (typeof error === "string") return error !== "" ? error : "threw an empty string";
    return `threw ${inspect(error, { depth: 1, breakLength: Number.POSITIVE_INFINITY }).slice(0, 200)}`;
  } catch {
    return "threw a value that cannot be shown";
  }
}

/** How a caller words a failure: what happens next, and the setting of its time limit. */
export interface FailureWording {
  /** What the run does about it, e.g. `counted as no result`, `the extension is skipped`. */
  consequence: string;
  /** The `extensionTimeouts` key of the limit (omitted when the call has none). */
  setting?: string;
}

/**
 * The one line a failed call is reported with, or `undefined` when it did not fail (it returned, or the run
 * was aborted while it ran: then not waiting for it is no fault of the extension).
 *
 * Contract: pure; never throws.
 */
export function guardFailure(outcome: GuardedOutcome<unknown>, wording: FailureWording): string | undefined {
  const setting = wording.setting === undefined ? "" : ` (setting extensionTimeouts.${wording.setting})`;
  switch (outcome.kind) {
    case "returned":
    case "aborted":
      return undefined;
    case "threw":
      return describeThrown(outcome.error);
    case "interrupted":
      return `stopped by Ctrl-C while it ran without yielding; ${wording.consequence}`;
    case "timed_out":
      return outcome.busy
        ? `ran ${formatDuration(outcome.timeoutMs)} without yielding (a busy loop?) and was stopped; ${wording.consequence}${setting}`
        : `did not settle within ${formatDuration(outcome.timeoutMs)}; ${wording.consequence}${setting}`;
  }
}
