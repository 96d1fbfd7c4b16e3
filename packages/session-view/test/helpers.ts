import type { AssistantMessage } from "@arbor/ai-providers";

/** An assistant message of `content` (a text, or blocks), with small usage, as a provider would finish it. */
export function assistantMessage(
  content: string | AssistantMessage["content"],
  options: Partial<AssistantMessage> = {},
): AssistantMessage {
  return {
    role: "assistant",
    content: typeof content === "string" ? [{ type: "text", text: content }] : content,
    api: "test",
    provider: "test",
    model: "test-model",
    usage: {
      input: 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 2,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: 2,
    ...options,
  };
}
