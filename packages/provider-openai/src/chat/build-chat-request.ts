import type { Context, Model, StreamOptions } from "@arbor/ai-providers";
import type { OpenAICompat } from "../compat.js";
import { reasoningEffort } from "../reasoning.js";
import { convertChatMessages, convertChatTools } from "./convert-messages.js";

/** The output limit of a request: the caller's, clamped to the model's; the model's by default. */
export function outputLimit(model: Model, options: StreamOptions | undefined): number | undefined {
  const requested = options?.maxTokens ?? model.maxTokens;
  if (!(requested > 0)) return undefined;
  return model.maxTokens > 0 ? Math.min(Math.floor(requested), model.maxTokens) : Math.floor(requested);
}

/**
 * Builds a streaming Chat Completions request body:
 *
 * - `messages` from {@link convertChatMessages} (system prompt as `developer` for reasoning models on
 *   servers that accept the role, else `system`);
 * - `stream_options: { include_usage: true }` when the server accepts it;
 * - the output limit in `max_completion_tokens` or `max_tokens` (as the server wants);
 * - `reasoning_effort` (or OpenRouter's `reasoning: { effort }`) clamped to the model's efforts;
 * - `prompt_cache_key` (the session id) and, for `cacheRetention: "long"`, `prompt_cache_retention:
 *   "24h"` on api.openai.com;
 * - `tools` in the `{ type: "function", function }` shape.
 */
export function buildChatRequest(
  model: Model,
  context: Context,
  options: StreamOptions | undefined,
  compat: OpenAICompat,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: model.id,
    messages: convertChatMessages(model, context, compat),
    stream: true,
  };
  if (compat.supportsUsageInStreaming) body.stream_options = { include_usage: true };
  const limit = outputLimit(model, options);
  if (limit !== undefined) body[compat.maxTokensField] = limit;
  if (options?.temperature !== undefined) body.temperature = options.temperature;
  const effort = reasoningEffort(model, compat, options?.reasoning);
  if (effort !== undefined) {
    if (compat.reasoningFormat === "openrouter") body.reasoning = { effort };
    else body.reasoning_effort = effort;
  }
  if (compat.supportsPromptCacheKey && options?.cacheRetention !== "none") {
    if (options?.sessionId) body.prompt_cache_key = options.sessionId;
    if (options?.cacheRetention === "long") body.prompt_cache_retention = "24h";
  }
  if (context.tools && context.tools.length > 0) body.tools = convertChatTools(context.tools);
  return body;
}
