import { afterEach, describe, expect, it, vi } from "vitest";
import { ArborError, InvalidArgumentError } from "../src/errors.js";
import {
  DEFAULT_RETRY_POLICY,
  decideRetry,
  type FailureInfo,
  isTransientFailure,
  parseRetryAfter,
  RetryGaveUpError,
  type RetryPolicy,
  resolveRetryPolicy,
  retryWithPolicy,
  sleep,
} from "../src/retry.js";

const NO_JITTER: RetryPolicy = { ...DEFAULT_RETRY_POLICY, jitter: 0 };

afterEach(() => {
  vi.useRealTimers();
});

describe("DEFAULT_RETRY_POLICY", () => {
  it("retries three times after 2 s, 4 s and 8 s", () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      maxRetries: 3,
      baseDelayMs: 2000,
      maxDelayMs: 30_000,
      maxRetryDelayMs: 60_000,
      jitter: 0.2,
      maxStallRetries: 1,
    });
    expect(Object.isFrozen(DEFAULT_RETRY_POLICY)).toBe(true);
  });
});

describe("isTransientFailure", () => {
  const transient: [string, FailureInfo][] = [
    ["429", { status: 429, message: "429 Too Many Requests" }],
    ["408", { status: 408 }],
    ["409", { status: 409 }],
    ["500", { status: 500, message: "Internal Server Error" }],
    ["502", { status: 502 }],
    ["503", { status: 503 }],
    ["504", { status: 504 }],
    ["529 overloaded", { status: 529, message: '{"type":"overloaded_error","message":"Overloaded"}' }],
    ["other 5xx", { status: 520 }],
    ["overloaded stream error", { message: "Overloaded" }],
    ["overloaded_error code", { code: "overloaded_error" }],
    ["rate limit text", { message: "rate limit exceeded, slow down" }],
    [
      "rate_limit_error",
      { message: '{"type":"rate_limit_error","message":"Number of requests has exceeded"}' },
    ],
    ["ECONNRESET code", { code: "ECONNRESET", message: "read ECONNRESET" }],
    ["ETIMEDOUT", { code: "ETIMEDOUT" }],
    ["ECONNREFUSED", { message: "connect ECONNREFUSED 127.0.0.1:11434" }],
    ["EPIPE", { code: "EPIPE" }],
    ["socket hang up", { message: "socket hang up" }],
    ["fetch failed", { message: "TypeError: fetch failed" }],
    ["timeout", { message: "Request timeout after 600000 ms" }],
    ["timed out", { message: "The operation timed out." }],
    ["network error", { message: "network error" }],
    ["terminated", { message: "TypeError: terminated" }],
    ["other side closed", { message: "SocketError: other side closed" }],
    ["Connection error", { message: "Connection error." }],
    [
      "Gemini quota that says when to retry",
      {
        status: 429,
        message:
          "You exceeded your current quota, please check your plan and billing details. Please retry in 41.6s.",
      },
    ],
  ];

  const permanent: [string, FailureInfo][] = [
    ["400", { status: 400, message: "Bad Request" }],
    ["401", { status: 401, message: "invalid x-api-key" }],
    ["403", { status: 403 }],
    ["404", { status: 404, message: "model not found" }],
    ["422", { status: 422 }],
    ["4xx even with a transient-looking text", { status: 400, message: "upstream timeout" }],
    [
      "OpenAI 429 insufficient_quota",
      {
        status: 429,
        code: "insufficient_quota",
        message: "You exceeded your current quota, please check your plan and billing details.",
      },
    ],
    ["402 billing", { status: 402, message: "Payment Required" }],
    [
      "Anthropic credit balance",
      {
        message: "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing.",
      },
    ],
    [
      "request larger than the TPM limit",
      {
        status: 429,
        message:
          "Request too large for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Requested 36278. The input or output tokens must be reduced in order to run successfully.",
      },
    ],
    ["context overflow", { status: 400, message: "prompt is too long: 213462 tokens > 200000 maximum" }],
    [
      "context overflow reported as 500",
      {
        status: 500,
        message: '{"code":500,"message":"Context size has been exceeded.","type":"server_error"}',
      },
    ],
    ["context overflow code", { code: "context_length_exceeded" }],
    ["unknown text without status", { message: "Something odd happened" }],
    ["nothing known", {}],
    ["abort", { message: "This operation was aborted", code: "ABORT_ERR" }],
  ];

  it.each(transient)("treats %s as transient", (_name, info) => {
    expect(isTransientFailure(info)).toBe(true);
  });

  it.each(permanent)("treats %s as not transient", (_name, info) => {
    expect(isTransientFailure(info)).toBe(false);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);

  it("reads retry-after in seconds", () => {
    expect(parseRetryAfter({ "retry-after": "30" }, now)).toBe(30_000);
    expect(parseRetryAfter({ "retry-after": "1.5" }, now)).toBe(1500);
    expect(parseRetryAfter({ "retry-after": "0" }, now)).toBe(0);
  });

  it("reads retry-after-ms in milliseconds, before retry-after", () => {
    expect(parseRetryAfter({ "retry-after-ms": "250", "retry-after": "30" }, now)).toBe(250);
    expect(parseRetryAfter({ "retry-after-ms": "12.2" }, now)).toBe(13);
  });

  it("reads retry-after as an HTTP date, relative to now and never negative", () => {
    const in90Seconds = new Date(now + 90_000).toUTCString();
    expect(parseRetryAfter({ "retry-after": in90Seconds }, now)).toBe(90_000);
    const past = new Date(now - 5000).toUTCString();
    expect(parseRetryAfter({ "retry-after": past }, now)).toBe(0);
  });

  it("reads a Headers object and matches names case-insensitively in records", () => {
    expect(parseRetryAfter(new Headers({ "Retry-After": "7" }), now)).toBe(7000);
    expect(parseRetryAfter({ "Retry-After": "7" }, now)).toBe(7000);
    expect(parseRetryAfter({ "RETRY-AFTER-MS": "40" }, now)).toBe(40);
  });

  it("falls back to OpenAI's x-ratelimit-reset durations", () => {
    expect(
      parseRetryAfter({ "x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s" }, now),
    ).toBe(360_000);
    expect(
      parseRetryAfter(
        {
          "x-ratelimit-reset-requests": "20ms",
          "x-ratelimit-remaining-requests": "0",
          "x-ratelimit-reset-tokens": "6m0s",
          "x-ratelimit-remaining-tokens": "12000",
        },
        now,
      ),
    ).toBe(20);
    expect(parseRetryAfter({ "x-ratelimit-reset-tokens": "1h2m3.5s" }, now)).toBe(3_723_500);
  });

  it("returns undefined when there is nothing usable", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": undefined }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "-5" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after-ms": "abc" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "x-ratelimit-reset-tokens": "whenever" }, now)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
  });
});

describe("decideRetry", () => {
  const overloaded: FailureInfo = { status: 529, message: "Overloaded" };

  it("doubles the delay from baseDelayMs without jitter", () => {
    expect(decideRetry(NO_JITTER, 1, overloaded)).toEqual({
      retry: true,
      delayMs: 2000,
      attempt: 1,
      maxRetries: 3,
    });
    expect(decideRetry(NO_JITTER, 2, overloaded)).toEqual({
      retry: true,
      delayMs: 4000,
      attempt: 2,
      maxRetries: 3,
    });
    expect(decideRetry(NO_JITTER, 3, overloaded)).toEqual({
      retry: true,
      delayMs: 8000,
      attempt: 3,
      maxRetries: 3,
    });
  });

  it("retries a stalled stream once by default (a dead server is given up after about two idle limits)", () => {
    const stalled: FailureInfo = {
      message: "stream stalled: no data from the server for 60 s (the stream idle limit)",
    };
    expect(decideRetry(NO_JITTER, 1, stalled)).toEqual({
      retry: true,
      delayMs: 2000,
      attempt: 1,
      maxRetries: 1,
    });
    expect(decideRetry(NO_JITTER, 2, stalled)).toEqual({
      retry: false,
      reason:
        "gave up after 1 retry: stream stalled: no data from the server for 60 s (the stream idle limit)",
    });
    expect(decideRetry({ ...NO_JITTER, maxStallRetries: 3 }, 3, { code: "stream_stalled" })).toMatchObject({
      retry: true,
      maxRetries: 3,
    });
    expect(() => resolveRetryPolicy({ maxStallRetries: 1.5 })).toThrow(
      /"maxStallRetries" must be an integer/,
    );
  });

  it("caps the delay at maxDelayMs", () => {
    const policy: RetryPolicy = { ...NO_JITTER, maxRetries: 10 };
    expect(decideRetry(policy, 5, overloaded)).toEqual({
      retry: true,
      delayMs: 30_000,
      attempt: 5,
      maxRetries: 10,
    });
    expect(decideRetry(policy, 10, overloaded)).toEqual({
      retry: true,
      delayMs: 30_000,
      attempt: 10,
      maxRetries: 10,
    });
  });

  it("spreads the delay by ± jitter using the random source", () => {
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, jitter: 0.2 };
    expect(decideRetry(policy, 1, overloaded, () => 0)).toEqual({
      retry: true,
      delayMs: 1600,
      attempt: 1,
      maxRetries: 3,
    });
    expect(decideRetry(policy, 1, overloaded, () => 0.5)).toEqual({
      retry: true,
      delayMs: 2000,
      attempt: 1,
      maxRetries: 3,
    });
    expect(decideRetry(policy, 2, overloaded, () => 1)).toEqual({
      retry: true,
      delayMs: 4800,
      attempt: 2,
      maxRetries: 3,
    });
  });

  it("never exceeds maxDelayMs with jitter", () => {
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxRetries: 10 };
    expect(decideRetry(policy, 6, overloaded, () => 1)).toEqual({
      retry: true,
      delayMs: 30_000,
      attempt: 6,
      maxRetries: 10,
    });
    expect(decideRetry(policy, 6, overloaded, () => 0)).toEqual({
      retry: true,
      delayMs: 24_000,
      attempt: 6,
      maxRetries: 10,
    });
  });

  it("honours the server's retry-after exactly, even when shorter or longer than the computed delay", () => {
    expect(decideRetry(DEFAULT_RETRY_POLICY, 1, { status: 429, retryAfterMs: 45_000 }, () => 0)).toEqual({
      retry: true,
      delayMs: 45_000,
      attempt: 1,
      maxRetries: 3,
    });
    expect(decideRetry(DEFAULT_RETRY_POLICY, 3, { status: 429, retryAfterMs: 100 }, () => 0)).toEqual({
      retry: true,
      delayMs: 100,
      attempt: 3,
      maxRetries: 3,
    });
    expect(decideRetry(DEFAULT_RETRY_POLICY, 1, { status: 429, retryAfterMs: 60_000 })).toEqual({
      retry: true,
      delayMs: 60_000,
      attempt: 1,
      maxRetries: 3,
    });
  });

  it("fails at once when the server asks for longer than maxRetryDelayMs", () => {
    const decision = decideRetry(DEFAULT_RETRY_POLICY, 1, {
      status: 429,
      message: "Rate limited",
      retryAfterMs: 3_600_000,
    });
    expect(decision).toEqual({
      retry: false,
      reason: "Server asked to retry after 3600 s (longer than the 60 s limit): Rate limited",
    });
  });

  it("gives up after maxRetries", () => {
    expect(decideRetry(NO_JITTER, 4, { status: 503, message: "503 Service Unavailable" })).toEqual({
      retry: false,
      reason: "gave up after 3 retries: 503 Service Unavailable",
    });
    expect(decideRetry({ ...NO_JITTER, maxRetries: 0 }, 1, overloaded)).toEqual({
      retry: false,
      reason: "gave up after 0 retries: Overloaded",
    });
  });

  it("does not retry what is not transient, and says so", () => {
    const auth = decideRetry(NO_JITTER, 1, { status: 401, message: "invalid x-api-key" });
    expect(auth.retry).toBe(false);
    expect(!auth.retry && auth.reason).toMatch(/non-transient failure: invalid x-api-key/);
    const overflow = decideRetry(NO_JITTER, 1, {
      status: 400,
      message: "prompt is too long: 213462 tokens > 200000 maximum",
    });
    expect(!overflow.retry && overflow.reason).toMatch(/context overflow: prompt is too long/);
    const statusOnly = decideRetry(NO_JITTER, 1, { status: 404 });
    expect(!statusOnly.retry && statusOnly.reason).toMatch(/HTTP 404$/);
  });

  it("rejects an attempt that is not a positive integer", () => {
    expect(() => decideRetry(NO_JITTER, 0, overloaded)).toThrow(InvalidArgumentError);
    expect(() => decideRetry(NO_JITTER, 1.5, overloaded)).toThrow(InvalidArgumentError);
  });
});

describe("sleep", () => {
  it("resolves after the delay and clears nothing left behind", async () => {
    vi.useFakeTimers();
    let done = false;
    const pending = sleep(1000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with the signal's reason and clears its timer when aborted", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    const reason = new Error("stop now");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects at once when the signal already aborted", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    controller.abort();
    await expect(sleep(60_000, controller.signal)).rejects.toMatchObject({ name: "AbortError" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with an AbortError when the signal has no reason", async () => {
    vi.useFakeTimers();
    const signal = {
      aborted: false,
      reason: undefined,
      listener: undefined as (() => void) | undefined,
      addEventListener(_type: string, listener: () => void) {
        this.listener = listener;
      },
      removeEventListener() {},
    };
    const pending = sleep(60_000, signal as unknown as AbortSignal);
    signal.aborted = true;
    signal.listener?.();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("removes its abort listener once it resolves", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const remove = vi.spyOn(controller.signal, "removeEventListener");
    const pending = sleep(10, controller.signal);
    await vi.advanceTimersByTimeAsync(10);
    await pending;
    expect(remove).toHaveBeenCalledWith("abort", expect.any(Function));
  });
});

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const classify = (error: unknown): FailureInfo =>
  error instanceof HttpError ? { status: error.status, message: error.message } : { message: String(error) };

describe("retryWithPolicy", () => {
  it("returns the first success after transient failures, waiting as decided", async () => {
    vi.useFakeTimers();
    const attempts: number[] = [];
    const retries: { attempt: number; delayMs: number }[] = [];
    const operation = async (attempt: number) => {
      attempts.push(attempt);
      if (attempt < 2) throw new HttpError(503, "503 Service Unavailable");
      return "ok";
    };
    const result = retryWithPolicy(operation, {
      policy: { jitter: 0 },
      classify,
      onRetry: ({ attempt, delayMs }) => retries.push({ attempt, delayMs }),
    });
    await vi.advanceTimersByTimeAsync(2000);
    expect(attempts).toEqual([0, 1]);
    await vi.advanceTimersByTimeAsync(4000);
    await expect(result).resolves.toBe("ok");
    expect(attempts).toEqual([0, 1, 2]);
    expect(retries).toEqual([
      { attempt: 1, delayMs: 2000 },
      { attempt: 2, delayMs: 4000 },
    ]);
  });

  it("gives up after maxRetries with the reason in the message and the last error as cause", async () => {
    vi.useFakeTimers();
    let calls = 0;
    const last = new HttpError(529, "Overloaded");
    const result = retryWithPolicy(
      async () => {
        calls++;
        throw last;
      },
      { policy: { maxRetries: 2, baseDelayMs: 10, jitter: 0 }, classify },
    );
    const settled = result.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(30);
    const error = await settled;
    expect(calls).toBe(3);
    expect(error).toBeInstanceOf(RetryGaveUpError);
    expect(ArborError.isInstance(error)).toBe(true);
    expect((error as RetryGaveUpError).message).toBe("gave up after 2 retries: Overloaded");
    expect((error as RetryGaveUpError).cause).toBe(last);
    expect((error as RetryGaveUpError).attempts).toBe(3);
  });

  it("with retrying off (maxRetries 0) rethrows a transient failure as it is, without a 'gave up' prefix", async () => {
    let calls = 0;
    const failure = new HttpError(529, "Overloaded");
    const error = await retryWithPolicy(
      async () => {
        calls++;
        throw failure;
      },
      { policy: { maxRetries: 0 }, classify },
    ).catch((caught: unknown) => caught);
    expect(calls).toBe(1);
    expect(error).toBe(failure);
    expect(String((error as Error).message)).not.toMatch(/gave up/);
  });

  it("fails at once when the server asks for too long a wait", async () => {
    let calls = 0;
    const error = await retryWithPolicy(
      async () => {
        calls++;
        throw new HttpError(429, "Rate limited");
      },
      { classify: (thrown) => ({ ...classify(thrown), retryAfterMs: 120_000 }) },
    ).catch((thrown: unknown) => thrown);
    expect(calls).toBe(1);
    expect((error as Error).message).toBe(
      "Server asked to retry after 120 s (longer than the 60 s limit): Rate limited",
    );
  });

  it("rethrows a non-transient error unchanged without retrying", async () => {
    let calls = 0;
    const auth = new HttpError(401, "invalid x-api-key");
    const onRetry = vi.fn();
    await expect(
      retryWithPolicy(
        async () => {
          calls++;
          throw auth;
        },
        { classify, onRetry },
      ),
    ).rejects.toBe(auth);
    expect(calls).toBe(1);
    expect(onRetry).not.toHaveBeenCalled();
  });

  it("stops with the signal's reason when aborted during the wait", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    let calls = 0;
    const result = retryWithPolicy(
      async () => {
        calls++;
        throw new HttpError(503, "503 Service Unavailable");
      },
      { classify, signal: controller.signal, policy: { jitter: 0 } },
    );
    const settled = result.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1000);
    const reason = new Error("user cancelled");
    controller.abort(reason);
    expect(await settled).toBe(reason);
    expect(calls).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not run the operation when the signal already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const operation = vi.fn(async () => "never");
    await expect(retryWithPolicy(operation, { classify, signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(operation).not.toHaveBeenCalled();
  });

  it("ignores a throwing onRetry observer", async () => {
    vi.useFakeTimers();
    let calls = 0;
    const result = retryWithPolicy(
      async () => {
        calls++;
        if (calls === 1) throw new Error("socket hang up");
        return 42;
      },
      {
        classify,
        policy: { baseDelayMs: 5, jitter: 0 },
        onRetry: () => {
          throw new Error("observer broke");
        },
      },
    );
    await vi.advanceTimersByTimeAsync(5);
    await expect(result).resolves.toBe(42);
  });

  it("rejects an invalid policy before running", async () => {
    const operation = vi.fn(async () => 1);
    await expect(retryWithPolicy(operation, { classify, policy: { jitter: 2 } })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    expect(operation).not.toHaveBeenCalled();
  });
});

describe("resolveRetryPolicy", () => {
  it("fills missing and undefined fields from the defaults", () => {
    expect(resolveRetryPolicy()).toEqual(DEFAULT_RETRY_POLICY);
    expect(resolveRetryPolicy({ maxRetries: 5, jitter: undefined })).toEqual({
      ...DEFAULT_RETRY_POLICY,
      maxRetries: 5,
    });
    expect(resolveRetryPolicy({ maxRetries: 0, jitter: 0, baseDelayMs: 0 })).toMatchObject({
      maxRetries: 0,
      jitter: 0,
      baseDelayMs: 0,
    });
  });

  it("returns a fresh object", () => {
    const policy = resolveRetryPolicy();
    policy.maxRetries = 99;
    expect(DEFAULT_RETRY_POLICY.maxRetries).toBe(3);
  });

  it.each([
    [{ maxRetries: -1 }, /"maxRetries" must be a finite, non-negative number, got -1/],
    [{ maxRetries: 1.5 }, /"maxRetries" must be an integer, got 1.5/],
    [{ baseDelayMs: Number.NaN }, /"baseDelayMs" must be a finite, non-negative number, got NaN/],
    [
      { maxDelayMs: Number.POSITIVE_INFINITY },
      /"maxDelayMs" must be a finite, non-negative number, got Infinity/,
    ],
    [{ maxRetryDelayMs: -100 }, /"maxRetryDelayMs" must be a finite, non-negative number/],
    [{ jitter: 1.2 }, /"jitter" must be a fraction between 0 and 1, got 1.2/],
    [{ jitter: -0.1 }, /"jitter" must be a finite, non-negative number/],
    [{ maxRetries: "3" as unknown as number }, /"maxRetries" must be a finite, non-negative number, got 3/],
  ] as [Partial<RetryPolicy>, RegExp][])("rejects %o", (partial, message) => {
    expect(() => resolveRetryPolicy(partial)).toThrow(InvalidArgumentError);
    expect(() => resolveRetryPolicy(partial)).toThrow(message);
  });
});
