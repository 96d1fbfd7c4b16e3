import type {
  Tool as AnthropicTool,
  CacheControlEphemeral,
  MessageCreateParamsStreaming,
} from "@anthropic-ai/sdk/resources/messages";
import type { CacheRetention, Context, Model, StreamOptions } from "@arbor/ai-providers";
import { convertMessages } from "./convert-messages.js";
import { compatOf } from "./models.js";
import type { AnthropicProviderSettings } from "./settings.js";
import { outputConfigOf, planThinking } from "./thinking.js";

/** The `cache_control` marker for a retention, or undefined for `none`. */
export function cacheControlFor(retention: CacheRetention): CacheControlEphemeral | undefined {
  if (retention === "none") return undefined;
  return retention === "long" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
}

/** A streaming request body, with `temperature` allowed (the SDK types no longer list it). */
export type AnthropicRequestBody = MessageCreateParamsStreaming & { temperature?: number };

/**
 * Builds the streaming Messages API request body for one call:
 *
 * - `model`, `max_tokens`, `thinking` and `output_config.effort` from {@link planThinking} (the level
 *   mapped to a budget or an effort and clamped to the model);
 * - `system` as one text block carrying `cache_control` (or a plain string with `cacheRetention: "none"`);
 * - `messages` from {@link convertMessages}, the last user turn carrying the same `cache_control`;
 * - `tools` with their TypeBox schemas as `input_schema`;
 * - `temperature` only when asked for, when the model accepts sampling parameters, and when it does not
 *   think (thinking requires the default temperature);
 * - `stream: true`.
 */
export function buildRequestBody(
  model: Model,
  context: Context,
  options: StreamOptions | undefined,
  settings: AnthropicProviderSettings,
): AnthropicRequestBody {
  const retention = options?.cacheRetention ?? settings.cacheRetention ?? "short";
  const cacheControl = cacheControlFor(retention);
  const plan = planThinking(model, options?.reasoning, options?.maxTokens, {
    budgets: settings.thinkingBudgets,
    display: settings.thinkingDisplay,
  });
  const body: AnthropicRequestBody = {
    model: model.id,
    max_tokens: plan.maxTokens,
    messages: convertMessages(context.messages, model, cacheControl),
    stream: true,
  };
  const systemPrompt = context.systemPrompt;
  if (systemPrompt !== undefined && systemPrompt.trim().length > 0) {
    body.system =
      cacheControl === undefined
        ? systemPrompt
        : [{ type: "text", text: systemPrompt, cache_control: cacheControl }];
  }
  if (context.tools !== undefined && context.tools.length > 0) {
    body.tools = context.tools.map(
      (tool): AnthropicTool => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.parameters as unknown as AnthropicTool.InputSchema,
      }),
    );
  }
  if (plan.thinking !== undefined) body.thinking = plan.thinking;
  const outputConfig = outputConfigOf(plan);
  if (outputConfig !== undefined) body.output_config = outputConfig;
  if (options?.temperature !== undefined && !plan.thinkingOn && compatOf(model).samplingParameters) {
    body.temperature = options.temperature;
  }
  return body;
}
