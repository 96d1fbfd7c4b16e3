import type { Context, Model, StreamOptions } from "@arbor/ai-providers";
import { outputLimit } from "../chat/build-chat-request.js";
import type { OpenAICompat } from "../compat.js";
import { reasoningEffort } from "../reasoning.js";
import { convertResponsesInput, convertResponsesTools } from "./convert-input.js";

/**
 * Builds a streaming Responses API request body:
 *
 * - `input` from {@link convertResponsesInput};
 * - `max_output_tokens` (the caller's limit clamped to the model's);
 * - for reasoning models, `reasoning: { effort, summary }` (effort clamped to the model's efforts,
 *   summary `auto` unless `reasoningSummary` says otherwise);
 * - on servers that support it (api.openai.com): `store: false` with
 *   `include: ["reasoning.encrypted_content"]`, so reasoning survives the round trip without state on
 *   the server, and `prompt_cache_key` / `prompt_cache_retention` as for Chat Completions;
 * - `tools` as `{ type: "function", name, parameters, strict: false }`.
 */
export function buildResponsesRequest(
  model: Model,
  context: Context,
  options: StreamOptions | undefined,
  compat: OpenAICompat,
  reasoningSummary: "auto" | "concise" | "detailed" | "off",
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: model.id,
    input: convertResponsesInput(model, context, compat),
    stream: true,
  };
  const limit = outputLimit(model, options);
  if (limit !== undefined) body.max_output_tokens = limit;
  if (options?.temperature !== undefined) body.temperature = options.temperature;
  if (model.reasoning) {
    const effort = reasoningEffort(model, compat, options?.reasoning);
    const reasoning: Record<string, unknown> = {};
    if (effort !== undefined) reasoning.effort = effort;
    if (reasoningSummary !== "off" && effort !== "none") reasoning.summary = reasoningSummary;
    if (Object.keys(reasoning).length > 0) body.reasoning = reasoning;
  }
  if (compat.supportsEncryptedReasoning) {
    body.store = false;
    if (model.reasoning) body.include = ["reasoning.encrypted_content"];
  }
  if (compat.supportsPromptCacheKey && options?.cacheRetention !== "none") {
    if (options?.sessionId) body.prompt_cache_key = options.sessionId;
    if (options?.cacheRetention === "long") body.prompt_cache_retention = "24h";
  }
  if (context.tools && context.tools.length > 0) body.tools = convertResponsesTools(context.tools);
  return body;
}
