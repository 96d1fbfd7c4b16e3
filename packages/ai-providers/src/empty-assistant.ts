import { emptyUsage } from "./cost.js";
import type { AssistantMessage, Model, StopReason } from "./types.js";

/**
 * An assistant message of `model` with no content and zero usage: the start of a streamed response, or
 * (with `stopReason: "error"` and an `errorMessage`) a failure that happened before any content.
 *
 * Contract: returns a new message every call (its `usage` is new too); `timestamp` is `Date.now()`.
 */
export function emptyAssistantMessage(
  model: Pick<Model, "api" | "provider" | "id">,
  options: { stopReason?: StopReason; errorMessage?: string } = {},
): AssistantMessage {
  const message: AssistantMessage = {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason: options.stopReason ?? "stop",
    timestamp: Date.now(),
  };
  if (options.errorMessage !== undefined) message.errorMessage = options.errorMessage;
  return message;
}
