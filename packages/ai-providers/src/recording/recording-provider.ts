import { type AssistantStream, createAssistantStream } from "../assistant-stream.js";
import { type AssistantEvent, isTerminalEvent } from "../events.js";
import type { Provider, StreamOptions } from "../provider.js";
import { AssistantStreamWriter, describeError } from "../stream-writer.js";
import type { AssistantMessage, Context, Model } from "../types.js";
import {
  appendCassetteEntry,
  CASSETTE_VERSION,
  compactEvent,
  normalizeRequest,
  type RecordedEvent,
  type RecordedRequest,
  requestKey,
  sanitizeModel,
} from "./cassette.js";

/**
 * Wraps a provider so that every interaction is appended to a cassette file (see `CassetteEntry`): the
 * normalized request — API keys, headers, signals, hooks and timestamps left out — the events the
 * provider produced and the final message. The caller sees the inner provider's events unchanged and in
 * real time; the line is written when the stream ends, before its terminal event is delivered, so a
 * caller that saw `done` can replay it at once. A request whose signal had already fired is passed
 * through and not recorded (nothing was sent).
 *
 * Failures and aborts are recorded too: replaying a session gives the same messages in the same order.
 * When the line cannot be written, the stream ends with `error` (content kept) and an `errorMessage`
 * that names the cassette, since a silent gap would only surface later as an unmatched replay.
 *
 * Contract: `stream()` never throws (as every provider); `id`, `models` and `resolveModel` are the inner
 * provider's.
 */
export function createRecordingProvider(inner: Provider, cassetteFile: string): Provider {
  const stream = (model: Model, context: Context, options?: StreamOptions): AssistantStream => {
    if (options?.signal?.aborted) return inner.stream(model, context, options);
    const output = createAssistantStream();
    let request: RecordedRequest;
    let upstream: AssistantStream;
    try {
      // Normalize now: the caller may change the context while the response streams.
      request = normalizeRequest(model, context, options);
      upstream = inner.stream(model, context, options);
    } catch (error) {
      new AssistantStreamWriter(model, output).fail("error", `Recording provider: ${describeError(error)}`);
      return output;
    }
    const events: RecordedEvent[] = [];
    let last: AssistantMessage | undefined;

    const finish = (terminal: Extract<AssistantEvent, { type: "done" | "error" }>) => {
      const message = terminal.type === "done" ? terminal.message : terminal.error;
      events.push(compactEvent(terminal));
      try {
        appendCassetteEntry(cassetteFile, {
          version: CASSETTE_VERSION,
          key: requestKey(request),
          recordedAt: new Date().toISOString(),
          request,
          model: sanitizeModel(model),
          events,
          message,
        });
      } catch (error) {
        message.stopReason = "error";
        message.errorMessage = `Recording failed: could not append to the cassette ${cassetteFile}: ${describeError(error)}`;
        output.push({ type: "error", reason: "error", error: message, partial: message });
        return;
      }
      output.push(terminal);
    };

    const pump = async () => {
      try {
        for await (const event of upstream) {
          last = event.partial;
          if (isTerminalEvent(event)) {
            finish(event);
            return;
          }
          events.push(compactEvent(event));
          output.push(event);
        }
        throw new Error("the provider's stream ended without a done or error event");
      } catch (error) {
        // Only a provider that breaks its own contract gets here.
        if (output.ended) return;
        const errorMessage = `Recording provider: ${describeError(error)}`;
        if (last === undefined) {
          new AssistantStreamWriter(model, output).fail("error", errorMessage);
          return;
        }
        last.stopReason = "error";
        last.errorMessage = errorMessage;
        output.push({ type: "error", reason: "error", error: last, partial: last });
      }
    };
    void pump();
    return output;
  };

  const provider: Provider = { id: inner.id, models: inner.models, stream };
  if (inner.resolveModel !== undefined) {
    const resolve = inner.resolveModel.bind(inner);
    return { ...provider, resolveModel: (modelId) => resolve(modelId) };
  }
  return provider;
}
