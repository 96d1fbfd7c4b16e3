import {
  type AssistantEvent,
  type AssistantMessage,
  type AssistantStream,
  type Context,
  describeError,
  emptyAssistantMessage,
  type Model,
  type StreamFn,
  type StreamOptions,
} from "@arbor/ai-providers";
import type { RunEmitter } from "./run-emitter.js";

/** One model call. Internal. */
export interface ResponseRequest {
  streamFn: StreamFn;
  model: Model;
  context: Context;
  options: StreamOptions;
}

/** An assistant message with `stopReason: "error"` and no content, e.g. for a failure of the loop itself. */
export function errorAssistantMessage(model: Model, errorMessage: string): AssistantMessage {
  return emptyAssistantMessage(model, { stopReason: "error", errorMessage });
}

/**
 * Calls the `StreamFn` and turns its events into `message_start`, one `message_update` per content
 * event (block starts, deltas, block ends; the AssistantEvent is attached), and `message_end` with the
 * final message. A `StreamFn` that breaks its contract (throws, a stream that throws or ends without
 * `done`/`error`) yields an `error` message instead, as a provider failure would.
 *
 * Throws only when the event sink throws (an internal failure).
 */
export async function streamAssistantResponse(
  emitter: RunEmitter,
  request: ResponseRequest,
): Promise<AssistantMessage> {
  let stream: AssistantStream;
  try {
    stream = request.streamFn(request.model, request.context, request.options);
  } catch (error) {
    return emitWhole(
      emitter,
      errorAssistantMessage(request.model, `The stream function threw: ${describeError(error)}`),
    );
  }
  let started = false;
  let partial: AssistantMessage | undefined;
  let final: AssistantMessage | undefined;
  const iterator = stream[Symbol.asyncIterator]();
  for (;;) {
    let step: IteratorResult<AssistantEvent>;
    try {
      step = await iterator.next();
    } catch (error) {
      final = brokenStream(request.model, partial, `The response stream failed: ${describeError(error)}`);
      break;
    }
    if (step.done === true) break;
    const event = step.value;
    if (event.type === "done" || event.type === "error") {
      final = event.type === "done" ? event.message : event.error;
      break;
    }
    partial = event.partial;
    if (!started) {
      started = true;
      await emitter.emit({ type: "message_start", message: event.partial });
    }
    if (event.type !== "start") {
      await emitter.emit({ type: "message_update", message: event.partial, assistantMessageEvent: event });
    }
  }
  final ??= brokenStream(request.model, partial, "The response stream ended without a final message.");
  if (!started) return emitWhole(emitter, final);
  await emitter.emit({ type: "message_end", message: final });
  return final;
}

async function emitWhole(emitter: RunEmitter, message: AssistantMessage): Promise<AssistantMessage> {
  await emitter.emit({ type: "message_start", message });
  await emitter.emit({ type: "message_end", message });
  return message;
}

/** The message of a stream that broke its contract: the partial content kept, marked as an error. */
function brokenStream(
  model: Model,
  partial: AssistantMessage | undefined,
  errorMessage: string,
): AssistantMessage {
  if (partial === undefined) return errorAssistantMessage(model, errorMessage);
  return { ...partial, content: [...partial.content], stopReason: "error", errorMessage };
}
