import { ArborError } from "./errors.js";

/**
 * The stream idle timeout: a response that sends no byte for a while is abandoned, so that the attempt can
 * be retried, instead of waiting for the HTTP client's own body timeout (minutes). The clock runs from the
 * moment the request is sent (a server that accepts the connection and never answers counts too) and
 * restarts at every chunk of the response body.
 */

/** Default idle limit: 60 s without a byte (long enough for a slow first token, short enough to notice a stall). */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 60_000;

/**
 * A response sent nothing for longer than the idle limit. Transient: the retry policy retries it. Its words
 * avoid "timeout" on purpose: HTTP clients turn any error saying so into their own generic timeout error.
 */
export class StreamStalledError extends ArborError {
  /** The limit that was exceeded, in ms. */
  readonly idleMs: number;

  constructor(idleMs: number) {
    super(
      "stream_stalled",
      `stream stalled: no data from the server for ${Number((idleMs / 1000).toFixed(3))} s ` +
        "(the stream idle limit); the attempt was abandoned",
    );
    this.name = "StreamStalledError";
    this.idleMs = idleMs;
  }
}

/**
 * Checks an idle limit: a finite number ≥ 0 (`0` turns the timeout off).
 *
 * @throws {RangeError} naming the value, for anything else.
 */
export function checkIdleTimeout(name: string, value: number | undefined): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new RangeError(
      `${name} must be a number of milliseconds ≥ 0 (0 turns it off), got ${String(value)}.`,
    );
  }
}

/**
 * Wraps a `fetch` so that each request fails with a {@link StreamStalledError} when no response (headers) or
 * no body chunk arrives for `idleMs` (`0` or less: returns `base` unchanged). The underlying request is
 * aborted then; an abort of the caller's own signal passes through as it is.
 *
 * Contract: the returned function behaves as `base` apart from the stall; it never keeps a timer alive after
 * the body ends, errors or is cancelled.
 */
export function idleTimeoutFetch(base: typeof fetch, idleMs: number): typeof fetch {
  if (!(idleMs > 0)) return base;
  return async (input, init) => {
    const controller = new AbortController();
    const outer = init?.signal;
    const forward = () => controller.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener("abort", forward, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    };
    const finish = () => {
      stop();
      outer?.removeEventListener("abort", forward);
    };
    let response: Response;
    try {
      response = await new Promise<Response>((resolve, reject) => {
        timer = setTimeout(() => {
          const error = new StreamStalledError(idleMs);
          controller.abort(error);
          reject(error);
        }, idleMs);
        base(input, { ...init, signal: controller.signal }).then(resolve, reject);
      });
    } catch (error) {
      finish();
      throw error;
    }
    stop();
    const body = response.body;
    if (body === null) {
      finish();
      return response;
    }
    const reader = body.getReader();
    let cancelled = false;
    /** Runs a controller call unless the consumer cancelled (a closed controller throws). */
    const settle = (call: () => void) => {
      if (cancelled) return;
      try {
        call();
      } catch {
        // Closed or errored already.
      }
    };
    const watched = new ReadableStream<Uint8Array>({
      pull: (stream) =>
        new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            const error = new StreamStalledError(idleMs);
            finish();
            settle(() => stream.error(error));
            controller.abort(error);
            reader.cancel(error).catch(() => undefined);
            resolve();
          }, idleMs);
          reader.read().then(
            ({ done, value }) => {
              stop();
              if (done) {
                finish();
                settle(() => stream.close());
              } else settle(() => stream.enqueue(value));
              resolve();
            },
            (error: unknown) => {
              finish();
              settle(() => stream.error(error));
              resolve();
            },
          );
        }),
      cancel: (reason) => {
        cancelled = true;
        finish();
        return reader.cancel(reason);
      },
    });
    return new Response(watched, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
