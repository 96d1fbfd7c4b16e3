import type { Message } from "@arbor/ai-providers";
import type { AgentMessage } from "./types.js";

/** True for the messages a model can see: `user`, `assistant` and `toolResult`. */
export function isLlmMessage(message: AgentMessage): message is Message {
  const role = (message as { role?: unknown }).role;
  return role === "user" || role === "assistant" || role === "toolResult";
}

/**
 * The default `convertToLlm`: keeps `user`, `assistant` and `toolResult` messages (by reference) and
 * drops every custom message. Packages that add custom messages (compaction and branch summaries)
 * pass their own converter that turns them into user messages.
 */
export function defaultConvertToLlm(messages: readonly AgentMessage[]): Message[] {
  return messages.filter(isLlmMessage);
}
