import {
  type AssistantMessage,
  type AssistantStream,
  type Context,
  createAssistantStream,
  createProviderStream,
  describeError,
  emptyAssistantMessage,
  type Model,
  type ProviderResponseInfo,
  type StreamFn,
  type StreamOptions,
} from "@arbor/ai-providers";
import type { HookRunner } from "./hook-registry.js";

/** What the wrapped stream function reports about each request, for the retry decision. */
export interface ProviderCallObserver {
  /** A request is about to be made (the last response seen so far is forgotten). */
  onRequest(): void;
  /** The provider reported an HTTP response (status and headers; e.g. `retry-after` of a 429). */
  onResponse(info: ProviderResponseInfo): void;
}

/**
 * Wraps the agent's `StreamFn` with the provider hooks (docs/reference/harness.md):
 *
 * - `before_provider_request` sees model, converted context and options and may patch the options; when it
 *   has handlers, the provider is called once they have run (the returned stream forwards its events);
 * - `before_provider_payload` runs as the request's `onPayload` (chained before the caller's own);
 * - `after_provider_response` runs from `onResponse` (after the caller's own).
 *
 * Contract: never throws (a `StreamFn` must not): a failure of the wrapper itself ends the stream with an
 * `error` message. With no request hooks the provider is called synchronously, with no overhead.
 */
export function wrapStreamFn(inner: StreamFn, hooks: HookRunner, observer: ProviderCallObserver): StreamFn {
  return (model, context, options) => {
    observer.onRequest();
    const callerPayload = options?.onPayload;
    const callerResponse = options?.onResponse;
    const wired: StreamOptions = {
      ...options,
      onResponse: async (info, responseModel) => {
        observer.onResponse(info);
        try {
          await callerResponse?.(info, responseModel);
        } catch {
          // Observation only (the contract of onResponse).
        }
        await hooks.notify("after_provider_response", { ...info, model: responseModel });
      },
    };
    if (hooks.has("before_provider_payload")) {
      wired.onPayload = async (body, payloadModel) => {
        let payload = body;
        for (const handler of hooks.handlers("before_provider_payload")) {
          const result = await hooks.call("before_provider_payload", handler, {
            payload,
            model: payloadModel,
          });
          if (result !== undefined && "payload" in result && result.payload !== undefined)
            payload = result.payload;
        }
        const replaced = await callerPayload?.(payload, payloadModel);
        return replaced === undefined ? payload : replaced;
      };
    }
    if (!hooks.has("before_provider_request")) return safeCall(inner, model, context, wired);
    return deferredStream(model, async () => {
      const { signal, ...visible } = wired;
      let patched: Omit<StreamOptions, "signal"> = visible;
      for (const handler of hooks.handlers("before_provider_request")) {
        const result = await hooks.call("before_provider_request", handler, {
          model,
          context,
          options: patched,
        });
        if (result?.options === undefined) continue;
        const headers =
          result.options.headers === undefined
            ? patched.headers
            : { ...patched.headers, ...result.options.headers };
        patched = {
          ...patched,
          ...result.options,
          onPayload: patched.onPayload,
          onResponse: patched.onResponse,
        };
        if (headers !== undefined) patched.headers = headers;
      }
      return safeCall(inner, model, context, { ...patched, signal });
    });
  };
}

function safeCall(inner: StreamFn, model: Model, context: Context, options: StreamOptions): AssistantStream {
  try {
    return inner(model, context, options);
  } catch (error) {
    return failedStream(model, `The stream function threw: ${describeError(error)}`);
  }
}

/**
 * A stream that forwards the events of the stream `start` resolves to. When preparing the request or
 * the inner stream fails (a broken `StreamFn` — providers never throw), it ends with an `error` event
 * that keeps the partial message forwarded so far, after a `start` when none was forwarded.
 */
function deferredStream(model: Model, start: () => Promise<AssistantStream>): AssistantStream {
  const output = createAssistantStream();
  let partial: AssistantMessage | undefined;
  const fail = (errorMessage: string) => {
    if (output.ended) return;
    const message: AssistantMessage = partial
      ? { ...partial, stopReason: "error", errorMessage }
      : emptyAssistantMessage(model, { stopReason: "error", errorMessage });
    if (partial === undefined) output.push({ type: "start", partial: message });
    output.push({ type: "error", reason: "error", error: message, partial: message });
  };
  const pump = async () => {
    let source: AssistantStream;
    try {
      source = await start();
    } catch (error) {
      fail(`Preparing the request failed: ${describeError(error)}`);
      return;
    }
    try {
      for await (const event of source) {
        if (output.ended) break;
        partial = event.partial;
        output.push(event);
      }
    } catch (error) {
      fail(`The response stream failed: ${describeError(error)}`);
    }
    fail("The response stream ended without a final message.");
  };
  void pump();
  return output;
}

/** A stream that ends at once with an `error` message (after `start`, as the protocol requires). */
function failedStream(model: Model, errorMessage: string): AssistantStream {
  return createProviderStream(model, undefined, () => {
    throw new Error(errorMessage);
  });
}
