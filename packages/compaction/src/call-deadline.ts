/**
 * One summarizer call under a deadline: the call gets its own `AbortSignal`, fired when the caller's signal
 * fires or when `timeoutMs` passes, and the wait ends at that moment even if the stream never answers. Every
 * listener and timer it adds is removed when the call ends, so a long compaction adds none to the caller's
 * signal (no `MaxListenersExceededWarning`).
 */

/** How a call under a deadline ended. */
export type DeadlineOutcome<T> =
  | { kind: "done"; value: T }
  | { kind: "threw"; error: unknown }
  | { kind: "aborted" }
  | { kind: "timeout" };

/**
 * Runs `run(signal)` until it settles, the caller's `signal` fires, or `timeoutMs` passes (0 or less, or
 * not finite: no limit). The signal given to `run` fires in the last two cases.
 *
 * Contract: never rejects; removes its listener from `signal` and clears its timer before resolving.
 */
export async function withDeadline<T>(
  run: (signal: AbortSignal) => Promise<T>,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<DeadlineOutcome<T>> {
  if (signal?.aborted === true) return { kind: "aborted" };
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<DeadlineOutcome<T>>((resolve) => {
    onAbort = () => {
      controller.abort(signal?.reason);
      resolve({ kind: "aborted" });
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    if (Number.isFinite(timeoutMs) && timeoutMs > 0) {
      timer = setTimeout(() => {
        controller.abort(new Error(`the summarizer did not answer within ${timeoutMs} ms`));
        resolve({ kind: "timeout" });
      }, timeoutMs);
    }
  });
  const work: Promise<DeadlineOutcome<T>> = (async () => {
    try {
      return { kind: "done", value: await run(controller.signal) } as const;
    } catch (error) {
      return { kind: "threw", error } as const;
    }
  })();
  try {
    return await Promise.race([work, stopped]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
  }
}
