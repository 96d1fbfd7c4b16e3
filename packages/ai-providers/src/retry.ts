import { ArborError, InvalidArgumentError } from "./errors.js";
import { isContextOverflowText } from "./overflow.js";

/**
 * Retry policy for transient provider failures (rate limits, overloads, dropped connections): which failures
 * are worth another attempt, how long to wait before it, and a loop that applies both.
 */

/** How often and how patiently to retry transient failures. Every duration is in milliseconds. */
export interface RetryPolicy {
  /** Retries after the first attempt; `0` disables retrying. */
  maxRetries: number;
  /** Delay before the first retry; each further retry doubles it. */
  baseDelayMs: number;
  /** Upper bound of a computed (exponential) delay. */
  maxDelayMs: number;
  /** Longest server-requested delay (`retry-after`) to wait for; a longer request fails at once. */
  maxRetryDelayMs: number;
  /** Random spread of a computed delay, as a fraction in [0, 1]: `0.2` means ± 20 %. */
  jitter: number;
  /**
   * Retries after a stalled stream (no data for the stream idle limit, see `StreamStalledError`), at most
   * `maxRetries`. Each stalled attempt costs the whole idle limit, and a server that stalls once mostly stalls
   * again: one more attempt finds a hiccup, more only make a user wait on a dead server.
   */
  maxStallRetries: number;
}

/**
 * Three retries after 2 s, 4 s and 8 s (± 20 %), waiting for a server's `retry-after` up to 60 s; one retry
 * after a stalled stream (a dead server is given up after about two idle limits: ~2 min with the default
 * 60 s, not ~4¼ min).
 */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 3,
  baseDelayMs: 2000,
  maxDelayMs: 30_000,
  maxRetryDelayMs: 60_000,
  jitter: 0.2,
  maxStallRetries: 1,
});

/** What is known about one failure, as a provider's classifier extracted it. */
export interface FailureInfo {
  /** HTTP status, when the failure was an HTTP response. */
  status?: number;
  /** The error text (the provider's message, or the thrown error's message). */
  message?: string;
  /** A machine-readable code: a Node.js error code (`ECONNRESET`) or a provider error type. */
  code?: string;
  /** Server-requested delay before retrying (see {@link parseRetryAfter}). */
  retryAfterMs?: number;
}

/**
 * Whether to retry and after how long (`maxRetries`: how many retries this kind of failure gets, for a
 * "retry 1 of N" notice); when not, why not (in words fit for an error message).
 */
export type RetryDecision =
  | { retry: true; delayMs: number; attempt: number; maxRetries: number }
  | { retry: false; reason: string };

/** Statuses worth retrying besides every 5xx (which includes Anthropic's 529 "overloaded"). */
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([408, 409, 425, 429]);

/** Texts of failures that go away on their own: overloads, rate limits, network and stream breakage. */
const TRANSIENT_TEXT_PATTERNS: readonly RegExp[] = [
  /overloaded/i,
  /rate[_ -]?limit/i,
  /too many requests/i,
  /\b(?:ECONNRESET|ETIMEDOUT|ECONNREFUSED|ECONNABORTED|EPIPE|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH)\b/,
  /\bUND_ERR_(?:SOCKET|CONNECT_TIMEOUT|HEADERS_TIMEOUT|BODY_TIMEOUT|CLOSED)\b/,
  /socket hang up/i,
  /fetch failed/i,
  /\btimeout|\btimed out\b/i,
  /network error/i,
  /\bterminated\b/i,
  /other side closed/i,
  /\bstream[_ ]stalled\b/i,
  /connection error/i,
  /service unavailable/i,
  /bad gateway/i,
  /internal server error/i,
  /\b(?:api_error|server_error)\b/i,
];

/**
 * Texts of failures that no wait cures: an exhausted quota or unpaid bill (OpenAI answers those with 429
 * `insufficient_quota`), and a request larger than the per-minute token limit itself (OpenAI and Groq:
 * `Request too large for gpt-4o ... on tokens per min (TPM): Limit 30000, Requested 36278`).
 */
const PERMANENT_TEXT_PATTERNS: readonly RegExp[] = [
  /insufficient_quota/i,
  /exceeded your current quota/i,
  /quota (?:has been )?(?:exceeded|exhausted)/i,
  /\bbilling\b/i,
  /credit balance/i,
  /payment required/i,
  /request too large for\b.*\bper min/i,
];

/** A quota text that still says when to come back (Gemini's per-minute quota: `Please retry in 41.6s.`). */
const RETRY_HINT_PATTERN = /(?:retry|try again) (?:in|after) \d/i;

/**
 * True when a failure is worth retrying unchanged. Decided in this order:
 *
 * 1. A context overflow ({@link isContextOverflowText} on the message or code) is never transient: the same
 *    request fails again until the conversation is compacted, whatever the status (llama.cpp can report one
 *    as 500).
 * 2. An exhausted quota, a billing problem (HTTP 402, OpenAI's 429 `insufficient_quota`) or a request larger
 *    than the per-minute token limit is not transient, unless the failure says when to retry (a
 *    `retryAfterMs`, or a "retry in N s" text as Gemini's per-minute quota sends).
 * 3. With an HTTP status of 400 or more: 408, 409, 425, 429 and every 5xx (500, 502, 503, 504, Anthropic's
 *    529) are transient; every other 4xx (400, 401, 403, 404, 413, 422, ...) is not.
 * 4. Otherwise (no status, e.g. a network error or an error event inside a stream) the message and code
 *    decide: `overloaded` / `overloaded_error`, rate limits, `ECONNRESET`, `ETIMEDOUT`, `ECONNREFUSED`,
 *    `EPIPE`, `socket hang up`, `fetch failed`, `timeout` / `timed out`, `network error`, `terminated`,
 *    `other side closed`, `Connection error`, a stalled stream (`stream_stalled`, see `StreamStalledError`)
 *    and the like are transient; anything else is not.
 */
export function isTransientFailure(info: FailureInfo): boolean {
  const message = info.message ?? "";
  const code = info.code ?? "";
  if (isContextOverflowText(message) || isContextOverflowText(code)) return false;
  const text = `${message} ${code}`;
  const saysWhenToRetry = info.retryAfterMs !== undefined || RETRY_HINT_PATTERN.test(text);
  if (info.status === 402) return false;
  if (!saysWhenToRetry && PERMANENT_TEXT_PATTERNS.some((pattern) => pattern.test(text))) return false;
  const status = info.status;
  if (status !== undefined && status >= 400) {
    return TRANSIENT_STATUSES.has(status) || (status >= 500 && status <= 599);
  }
  return TRANSIENT_TEXT_PATTERNS.some((pattern) => pattern.test(text));
}

/** Header values by case-insensitive name, from a `Headers` or a plain record. */
function headerReader(
  headers: Headers | Record<string, string | undefined>,
): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === "function") {
    const fetchHeaders = headers as Headers;
    return (name) => fetchHeaders.get(name) ?? undefined;
  }
  const lowered = new Map<string, string>();
  for (const [key, value] of Object.entries(headers as Record<string, string | undefined>)) {
    if (typeof value === "string") lowered.set(key.toLowerCase(), value);
  }
  return (name) => lowered.get(name);
}

const PLAIN_NUMBER = /^\s*\d+(?:\.\d+)?\s*$/;
/** Every HTTP-date form (IMF-fixdate, RFC 850, asctime) names its month; bare `Date.parse` accepts `"-5"`. */
const HTTP_DATE_MONTH = /\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b/i;
const DURATION =
  /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/;

/** Parses a Go-style duration as OpenAI's `x-ratelimit-reset-*` headers send it (`20ms`, `1s`, `6m0s`). */
function parseDurationMs(value: string): number | undefined {
  const trimmed = value.trim();
  if (trimmed.length === 0) return undefined;
  const match = DURATION.exec(trimmed);
  if (!match) return undefined;
  const [, hours, minutes, seconds, milliseconds] = match;
  const part = (text: string | undefined, scale: number) => (text === undefined ? 0 : Number(text) * scale);
  return part(hours, 3_600_000) + part(minutes, 60_000) + part(seconds, 1000) + part(milliseconds, 1);
}

/**
 * Reads a server-requested retry delay from response headers and returns it in milliseconds, or `undefined`
 * when there is none or it cannot be read. In order of precedence:
 *
 * 1. `retry-after-ms`: milliseconds (OpenAI, Azure OpenAI).
 * 2. `retry-after`: seconds (`"30"`, `"1.5"`), or an HTTP date, measured from `now` (never negative).
 * 3. When neither is present, as bodyless 429 responses often have only these: OpenAI's
 *    `x-ratelimit-reset-requests` / `x-ratelimit-reset-tokens` durations (`"6m0s"`, `"20ms"`). The reset of
 *    an exhausted budget (`x-ratelimit-remaining-*` is `0`) wins; without that hint the longer reset is used.
 *
 * Names are matched case-insensitively in a plain record too. Garbage values are ignored.
 */
export function parseRetryAfter(
  headers: Headers | Record<string, string | undefined> | undefined,
  now: number = Date.now(),
): number | undefined {
  if (headers === undefined) return undefined;
  const read = headerReader(headers);

  const milliseconds = read("retry-after-ms");
  if (milliseconds !== undefined && PLAIN_NUMBER.test(milliseconds)) return Math.ceil(Number(milliseconds));

  const retryAfter = read("retry-after")?.trim();
  if (retryAfter !== undefined && retryAfter.length > 0) {
    if (PLAIN_NUMBER.test(retryAfter)) return Math.ceil(Number(retryAfter) * 1000);
    const date = HTTP_DATE_MONTH.test(retryAfter) ? Date.parse(retryAfter) : Number.NaN;
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }

  const resets: { delayMs: number; exhausted: boolean }[] = [];
  for (const budget of ["requests", "tokens"]) {
    const reset = read(`x-ratelimit-reset-${budget}`);
    const delayMs = reset === undefined ? undefined : parseDurationMs(reset);
    if (delayMs === undefined) continue;
    resets.push({
      delayMs: Math.ceil(delayMs),
      exhausted: read(`x-ratelimit-remaining-${budget}`)?.trim() === "0",
    });
  }
  const exhausted = resets.filter((reset) => reset.exhausted);
  const candidates = exhausted.length > 0 ? exhausted : resets;
  if (candidates.length === 0) return undefined;
  return Math.max(...candidates.map((reset) => reset.delayMs));
}

/** A duration in seconds for messages: `3600`, `1.5`, `0.25`. */
function formatSeconds(milliseconds: number): string {
  return String(Number((milliseconds / 1000).toFixed(3)));
}

/** The failure in words for a decision's reason. */
function describeFailure(info: FailureInfo): string {
  if (info.message !== undefined && info.message.length > 0) return info.message;
  if (info.status !== undefined) return `HTTP ${info.status}${info.code ? ` (${info.code})` : ""}`;
  return info.code ?? "unknown error";
}

/**
 * Decides whether to make retry number `attempt` (1 for the first retry) after a failure, and how long to
 * wait before it:
 *
 * - not {@link isTransientFailure} → no retry; the reason says the failure is not retryable (a context
 *   overflow is named as such);
 * - `attempt > policy.maxRetries` → no retry: `gave up after N retries: <message>`;
 * - a `retryAfterMs` above `policy.maxRetryDelayMs` → no retry, at once:
 *   `Server asked to retry after 3600 s (longer than the 60 s limit): <message>`;
 * - a `retryAfterMs` otherwise → retry after exactly that delay (honoured, never shortened);
 * - else → retry after `baseDelayMs * 2^(attempt - 1)` capped at `maxDelayMs`, spread by ± `jitter`
 *   (`random` supplies the spread, default `Math.random`), and never above `maxDelayMs`.
 *
 * @throws {InvalidArgumentError} when `attempt` is not a positive integer.
 */
export function decideRetry(
  policy: RetryPolicy,
  attempt: number,
  info: FailureInfo,
  random: () => number = Math.random,
): RetryDecision {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new InvalidArgumentError(
      `decideRetry: attempt must be a positive integer (1 for the first retry), got ${attempt}.`,
    );
  }
  const failure = describeFailure(info);
  if (!isTransientFailure(info)) {
    const overflow = isContextOverflowText(info.message ?? "") || isContextOverflowText(info.code ?? "");
    const kind = overflow ? "context overflow" : "failure";
    return { retry: false, reason: `Not retrying a non-transient ${kind}: ${failure}` };
  }
  const maxRetries = isStalledStream(info)
    ? Math.min(policy.maxRetries, policy.maxStallRetries)
    : policy.maxRetries;
  if (attempt > maxRetries) {
    const retries = maxRetries === 1 ? "retry" : "retries";
    return { retry: false, reason: `gave up after ${maxRetries} ${retries}: ${failure}` };
  }
  const retryAfterMs = info.retryAfterMs;
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
    if (retryAfterMs > policy.maxRetryDelayMs) {
      const asked = formatSeconds(retryAfterMs);
      const limit = formatSeconds(policy.maxRetryDelayMs);
      return {
        retry: false,
        reason: `Server asked to retry after ${asked} s (longer than the ${limit} s limit): ${failure}`,
      };
    }
    return { retry: true, delayMs: Math.ceil(retryAfterMs), attempt, maxRetries };
  }
  const exponential = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  const spread = policy.jitter * (2 * clampUnit(random()) - 1);
  const delayMs = Math.round(Math.min(Math.max(exponential * (1 + spread), 0), policy.maxDelayMs));
  return { retry: true, delayMs, attempt, maxRetries };
}

/** True when a failure is a stalled stream (`StreamStalledError`: no data for the idle limit). */
function isStalledStream(info: FailureInfo): boolean {
  return info.code === "stream_stalled" || /\bstream[_ ]stalled\b/i.test(info.message ?? "");
}

/** A random value forced into [0, 1] (a broken random source must not break the delay). */
function clampUnit(value: number): number {
  if (!Number.isFinite(value)) return 0.5;
  return Math.min(Math.max(value, 0), 1);
}

/** The signal's abort reason, or a standard `AbortError` when it has none. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/**
 * Resolves after `ms` milliseconds (negative or non-finite counts as 0). When `signal` aborts first, or
 * already has, it rejects with the signal's reason (an `AbortError` `DOMException` when the reason is
 * unset), clears its timer and removes its listener.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, delay);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Thrown by {@link retryWithPolicy} when it stops retrying a transient failure: the retries ran out, or the
 * server asked for a longer wait than the policy allows. `cause` is the last error; `reason` the decision's
 * reason (also the message).
 */
export class RetryGaveUpError extends ArborError {
  /** Why retrying stopped, e.g. `gave up after 3 retries: 503 Service Unavailable`. */
  readonly reason: string;
  /** How many times the operation ran. */
  readonly attempts: number;

  constructor(reason: string, attempts: number, cause: unknown) {
    super("retry_gave_up", reason, { cause });
    this.name = "RetryGaveUpError";
    this.reason = reason;
    this.attempts = attempts;
  }
}

/** Options of {@link retryWithPolicy}. */
export interface RetryWithPolicyOptions {
  /** Overrides of {@link DEFAULT_RETRY_POLICY}; validated by {@link resolveRetryPolicy}. */
  policy?: Partial<RetryPolicy>;
  /** Aborts the wait between attempts (and is the caller's to pass on to the operation). */
  signal?: AbortSignal;
  /**
   * Describes a failure for {@link decideRetry}.
   *
   * Contract: called once per failed attempt with what the operation threw; must return synchronously; a
   * throw ends the loop and propagates to the caller.
   */
  classify: (error: unknown) => FailureInfo;
  /**
   * Called before each wait, with the retry number (1 for the first retry), the delay and the error retried.
   *
   * Contract: for observation only (logging, UI); a throw is ignored.
   */
  onRetry?: (event: { attempt: number; delayMs: number; error: unknown }) => void;
  /** Source of the jitter, in [0, 1); default `Math.random`. */
  random?: () => number;
}

/**
 * Runs `operation`, retrying its failures as {@link decideRetry} decides and waiting with an abortable
 * {@link sleep} in between. `operation` receives the retry number: `0` for the first run, `1` for the first
 * retry, and so on. Resolves with the first success. When it stops, it rejects with:
 *
 * - the operation's own error, unchanged, for a non-transient failure (so callers keep its type), and for
 *   every failure when `policy.maxRetries` is `0` (retrying is off: nothing was given up);
 * - a {@link RetryGaveUpError} whose message is the decision's reason and whose `cause` is the last error,
 *   when retries ran out or the server asked for too long a wait;
 * - the signal's reason when `signal` aborts (before a run, or during a wait); an error the operation throws
 *   after the signal aborted is rethrown unchanged, without classifying it.
 *
 * @throws {InvalidArgumentError} (as a rejection) when `options.policy` is invalid.
 */
export async function retryWithPolicy<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryWithPolicyOptions,
): Promise<T> {
  const policy = resolveRetryPolicy(options.policy);
  const signal = options.signal;
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw abortReason(signal);
    try {
      return await operation(attempt);
    } catch (error) {
      if (signal?.aborted) throw error;
      const info = options.classify(error);
      // Not worth retrying, or retrying is off (a caller that retries on its own asks for `maxRetries: 0`):
      // the failure is reported as it is, with no "gave up after 0 retries" in front of it.
      if (!isTransientFailure(info) || policy.maxRetries === 0) throw error;
      const decision = decideRetry(policy, attempt + 1, info, options.random);
      if (!decision.retry) throw new RetryGaveUpError(decision.reason, attempt + 1, error);
      try {
        options.onRetry?.({ attempt: decision.attempt, delayMs: decision.delayMs, error });
      } catch {
        // Observation only: a failing observer must not change the outcome.
      }
      await sleep(decision.delayMs, signal);
    }
  }
}

const POLICY_KEYS = [
  "maxRetries",
  "baseDelayMs",
  "maxDelayMs",
  "maxRetryDelayMs",
  "jitter",
  "maxStallRetries",
] as const;

/**
 * Completes a partial policy with {@link DEFAULT_RETRY_POLICY} (keys set to `undefined` keep the default) and
 * validates it: every value a finite, non-negative number, `maxRetries` and `maxStallRetries` integers,
 * `jitter` in [0, 1].
 *
 * @throws {InvalidArgumentError} naming the first invalid field and the value given.
 */
export function resolveRetryPolicy(partial?: Partial<RetryPolicy>): RetryPolicy {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY };
  for (const key of POLICY_KEYS) {
    const value: unknown = partial?.[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new InvalidArgumentError(
        `Invalid retry policy: "${key}" must be a finite, non-negative number, got ${String(value)}.`,
      );
    }
    policy[key] = value;
  }
  for (const key of ["maxRetries", "maxStallRetries"] as const) {
    if (!Number.isInteger(policy[key])) {
      throw new InvalidArgumentError(
        `Invalid retry policy: "${key}" must be an integer, got ${policy[key]}.`,
      );
    }
  }
  if (policy.jitter > 1) {
    throw new InvalidArgumentError(
      `Invalid retry policy: "jitter" must be a fraction between 0 and 1, got ${policy.jitter}.`,
    );
  }
  return policy;
}
