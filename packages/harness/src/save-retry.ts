import { ArborError } from "@arbor/ai-providers";
import { SessionStoreUnavailableError } from "@arbor/session-store";

/**
 * How long a save point the store refused is tried again (docs/reference/harness.md, "Failed saves"). The
 * delays grow from `initialDelayMs`, doubling up to `maxDelayMs`, until `timeoutMs` is spent (the time of
 * the attempts themselves included); the last delay is cut to what is left. The defaults wait 0.25, 0.5, 1,
 * 2, 4, 8, 8 and 6.25 s: nine attempts over 30 s.
 */
export interface SaveRetrySettings {
  /** The time one save point may spend retrying, in ms. Default 30 000; `0` gives up after the first failure. */
  timeoutMs?: number;
  /** The first delay, in ms. Default 250. */
  initialDelayMs?: number;
  /** The longest delay, in ms. Default 8 000. */
  maxDelayMs?: number;
}

/** {@link SaveRetrySettings} with every default filled in. */
export type ResolvedSaveRetry = Required<SaveRetrySettings>;

/** The defaults of {@link SaveRetrySettings}. */
export const DEFAULT_SAVE_RETRY: ResolvedSaveRetry = {
  timeoutMs: 30_000,
  initialDelayMs: 250,
  maxDelayMs: 8_000,
};

/**
 * Completes save-retry settings with the defaults.
 *
 * @throws {Error} naming the field when a value is not a finite number ≥ 0 (`initialDelayMs` must be > 0).
 */
export function resolveSaveRetry(settings: SaveRetrySettings = {}): ResolvedSaveRetry {
  const resolved = { ...DEFAULT_SAVE_RETRY };
  for (const key of Object.keys(DEFAULT_SAVE_RETRY) as (keyof ResolvedSaveRetry)[]) {
    const value = settings[key];
    if (value === undefined) continue;
    const positive = key === "initialDelayMs";
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (positive && value === 0)) {
      throw new Error(
        `${key} must be a number ${positive ? "> 0" : "≥ 0"} (ms), got ${JSON.stringify(value)}.`,
      );
    }
    resolved[key] = value;
  }
  return resolved;
}

/**
 * The delay before retry number `retry` (1 for the first) of a save point that has spent `elapsedMs`
 * so far, or `undefined` when its time is up.
 *
 * Contract: pure.
 */
export function saveRetryDelay(
  policy: ResolvedSaveRetry,
  retry: number,
  elapsedMs: number,
): number | undefined {
  const left = policy.timeoutMs - elapsedMs;
  if (left <= 0) return undefined;
  const delay = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.min(delay, Math.ceil(left));
}

/**
 * The store errors that waiting cannot cure, because another writer got there first: a conflict (the
 * session moved on: `SessionConflictError`), an id taken meanwhile (`SessionExistsError`) and a session
 * another live process holds open for writing (`SessionLockedError`). Retrying them blindly could only
 * conflict again.
 */
const ANOTHER_WRITER = new Set(["session_conflict", "session_exists", "session_locked"]);

/**
 * Store failures that waiting cannot cure either, because the user must act: a store that cannot be
 * written (`read_only`) or is not usable at all (`unusable`: not a database, a schema too new) —
 * `SessionStoreUnavailableError`'s reasons. A locked database, a full disk or a server that went away
 * may come back, and are retried.
 */
const NEEDS_THE_USER: ReadonlySet<string> = new Set(["read_only", "unusable"]);

/**
 * Whether a save the store refused is worth another attempt: everything but the refusals of
 * {@link ANOTHER_WRITER} and the store failures of {@link NEEDS_THE_USER} (a server that is down, a locked
 * database, a full disk may all come back).
 *
 * Contract: pure; decides by the error's `code` and `reason` (`ArborError`,
 * `SessionStoreUnavailableError.isInstance`), so it holds across duplicate installs.
 */
export function isRetryableSaveError(error: unknown): boolean {
  if (ArborError.isInstance(error) && ANOTHER_WRITER.has(error.code)) return false;
  return !(SessionStoreUnavailableError.isInstance(error) && NEEDS_THE_USER.has(error.reason));
}

/** True for a refusal because another writer appended or holds the session. */
export function isAnotherWriter(error: unknown): boolean {
  return ArborError.isInstance(error) && ANOTHER_WRITER.has(error.code);
}
