/**
 * Waiting for work that may ignore its abort signal: the caller stops waiting when the signal fires, whatever
 * the work does after (its later result or rejection is ignored).
 */

/** What {@link untilAborted} resolves with when the signal fired first. */
export const ABORTED: unique symbol = Symbol("aborted");

/**
 * The promise's value, or {@link ABORTED} as soon as `signal` fires (at once when it has fired already).
 *
 * Contract: rejects when `promise` rejects before the signal fires; never leaves a listener on the signal
 * nor an unhandled rejection behind.
 */
export function untilAborted<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    Promise.resolve(promise).catch(() => undefined);
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(promise).then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
