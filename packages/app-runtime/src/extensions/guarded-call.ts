/**
 * Calling code Arbor does not own (an extension's default export, hooks, event handlers, projectors,
 * commands, tools) so that it cannot hold a run for good. See docs/decisions/0013-extension-timeouts.md.
 *
 * - The synchronous part of the call runs under V8's watchdog (`node:vm` with `timeout` and `breakOnSigint`):
 *   a loop that never yields is stopped after the time limit — the watchdog is a thread of its own, so it
 *   fires where a JavaScript timer cannot — or at the first Ctrl-C, which is then raised again for the
 *   front end (it aborts the run as usual).
 * - A returned promise is raced against a timer (the time left) and the abort signal: the caller stops
 *   waiting when either fires; the promise's later result or rejection is ignored. Once the signal has
 *   fired, calls still run but their promises are not waited for.
 *
 * Not covered: a loop that never yields _after_ an `await` (it runs as a microtask, outside any call
 * Arbor makes) blocks the event loop, so neither the timer nor Ctrl-C can end it; SIGTERM, SIGKILL or
 * closing the terminal do (Arbor installs no handler of its own for them in print, json and rpc mode).
 */
import { createContext, Script } from "node:vm";

/** How a guarded call ended. */
export type GuardedOutcome<T> =
  | { kind: "returned"; value: T }
  | { kind: "threw"; error: unknown }
  /** `busy`: its synchronous part ran for the whole limit without yielding. */
  | { kind: "timed_out"; busy: boolean; timeoutMs: number }
  /** Ctrl-C stopped its synchronous part. */
  | { kind: "interrupted" }
  /** The signal fired first. */
  | { kind: "aborted" };

/** Options of {@link guardedCall}. */
export interface GuardOptions {
  /** The time limit in milliseconds; `0`: none (Ctrl-C still stops a synchronous loop). */
  timeoutMs: number;
  /** Stops the wait when it fires (the call is not told; it got the signal itself, if at all). */
  signal?: AbortSignal;
  /** What is pending, for {@link pendingGuardedCalls} (e.g. `extension /x.ts, tool_call`). */
  label?: string;
}

/** The context and script every guarded call runs in (made with the first call). */
let runner: { sandbox: { call: unknown }; invoke: Script } | undefined;
const pending = new Set<{ label: string }>();

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/**
 * Hands the Ctrl-C the watchdog consumed to the process: its `SIGINT` listeners (the front end's abort), or,
 * without one, the default (the process ends, as Ctrl-C ends it).
 */
function raiseInterruptAgain(): void {
  if (process.platform !== "win32") {
    process.kill(process.pid, "SIGINT");
    return;
  }
  // There `process.kill(pid, "SIGINT")` ends the process unconditionally.
  if (process.listenerCount("SIGINT") > 0) setImmediate(() => process.emit("SIGINT", "SIGINT"));
  else process.exit(130);
}

function codeOf(error: unknown): unknown {
  return typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
}

/**
 * Runs `call` synchronously under the watchdog: its value, or how it ended.
 *
 * Contract: never throws for the call's fault; after `interrupted` the process has been sent SIGINT again
 * (its handlers run on the next turn of the event loop; without one, the process ends as Ctrl-C ends it).
 */
export function guardedSyncCall<T>(call: () => T, timeoutMs: number): GuardedOutcome<T> {
  const started = Date.now();
  runner ??= {
    sandbox: createContext({ call: undefined }) as { call: unknown },
    invoke: new Script("call()", { filename: "arbor-guarded-call" }),
  };
  const { sandbox, invoke } = runner;
  try {
    sandbox.call = call;
    const value = invoke.runInContext(sandbox, {
      breakOnSigint: true,
      ...(timeoutMs > 0 ? { timeout: timeoutMs } : {}),
    }) as T;
    return { kind: "returned", value };
  } catch (error) {
    const code = codeOf(error);
    if (code === "ERR_SCRIPT_EXECUTION_TIMEOUT" && timeoutMs > 0 && Date.now() - started >= timeoutMs) {
      return { kind: "timed_out", busy: true, timeoutMs };
    }
    if (code === "ERR_SCRIPT_EXECUTION_INTERRUPTED") {
      raiseInterruptAgain();
      return { kind: "interrupted" };
    }
    return { kind: "threw", error };
  } finally {
    sandbox.call = undefined;
  }
}

/**
 * Calls `call` under the watchdog, then waits for the promise it returned (if any) until it settles, the
 * time left runs out or `signal` fires — whichever comes first (at once when it has fired already).
 *
 * Contract: never rejects; a timer holds the process alive while it waits (so a promise that can never
 * settle ends as `timed_out`, never as an event loop with nothing left to do).
 */
export function guardedCall<T>(
  call: () => T | PromiseLike<T>,
  options: GuardOptions,
): Promise<GuardedOutcome<Awaited<T>>> {
  const { timeoutMs, signal, label } = options;
  const started = Date.now();
  const first = guardedSyncCall(call, timeoutMs);
  if (first.kind !== "returned") return Promise.resolve(first as GuardedOutcome<Awaited<T>>);
  if (!isThenable(first.value)) return Promise.resolve(first as GuardedOutcome<Awaited<T>>);
  const promise = first.value;
  if (signal?.aborted) {
    // Called (it may record something), not waited for.
    Promise.resolve(promise).catch(() => undefined);
    return Promise.resolve({ kind: "aborted" });
  }
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const entry = label === undefined ? undefined : { label };
    const finish = (outcome: GuardedOutcome<Awaited<T>>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (entry !== undefined) pending.delete(entry);
      resolve(outcome);
    };
    const onAbort = () => finish({ kind: "aborted" });
    if (entry !== undefined) pending.add(entry);
    if (timeoutMs > 0) {
      const left = Math.max(1, timeoutMs - (Date.now() - started));
      timer = setTimeout(() => finish({ kind: "timed_out", busy: false, timeoutMs }), left);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      promise.then(
        (value) => finish({ kind: "returned", value: value as Awaited<T> }),
        (error: unknown) => finish({ kind: "threw", error }),
      );
    } catch (error) {
      finish({ kind: "threw", error });
    }
  });
}

/**
 * The labels of the guarded calls whose promise is still awaited (e.g. a command with no time limit): what
 * a process that has nothing left to do was waiting for.
 */
export function pendingGuardedCalls(): string[] {
  return [...pending].map((entry) => entry.label);
}
