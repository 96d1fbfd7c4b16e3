/**
 * Compatibility switches: what an OpenAI-compatible server accepts and sends. A preset supplies the
 * defaults, the settings and a model's `compat` field override them (model over settings over preset).
 */

/** The field that carries the output-token limit of a Chat Completions request. */
export type MaxTokensField = "max_completion_tokens" | "max_tokens";

/**
 * How reasoning effort is requested: `openai` sends `reasoning_effort` (Chat Completions) or
 * `reasoning.effort` (Responses); `openrouter` sends `reasoning: { effort }` on Chat Completions.
 */
export type ReasoningFormat = "openai" | "openrouter";

/** What one server (and model) accepts. Every field is plain data. */
export interface OpenAICompat {
  /** Whether the `developer` role is accepted; reasoning models get it instead of `system`. */
  supportsDeveloperRole: boolean;
  /** Whether `stream_options: { include_usage: true }` is accepted (Chat Completions). */
  supportsUsageInStreaming: boolean;
  /** Which field carries the output-token limit (Chat Completions). */
  maxTokensField: MaxTokensField;
  /** Whether reasoning effort may be sent at all. */
  supportsReasoningEffort: boolean;
  /** How reasoning effort is sent. */
  reasoningFormat: ReasoningFormat;
  /**
   * The reasoning efforts the model accepts, lowest first (e.g. `["none", "low", "medium", "high"]`);
   * a requested level is clamped to this list. Empty means "any of minimal, low, medium, high".
   */
  reasoningEfforts: readonly string[];
  /** Whether a request without an API key must fail before it is sent. */
  requiresApiKey: boolean;
  /**
   * Whether the Responses API may be asked for encrypted reasoning (`store: false`,
   * `include: ["reasoning.encrypted_content"]`), kept for the round trip to the same model.
   */
  supportsEncryptedReasoning: boolean;
  /** Whether `prompt_cache_key` / `prompt_cache_retention` are accepted (api.openai.com). */
  supportsPromptCacheKey: boolean;
}

/** Defaults for an unknown OpenAI-compatible server: the most widely accepted request shape. */
export const GENERIC_COMPAT: Readonly<OpenAICompat> = Object.freeze({
  supportsDeveloperRole: false,
  supportsUsageInStreaming: true,
  maxTokensField: "max_tokens",
  supportsReasoningEffort: false,
  reasoningFormat: "openai",
  reasoningEfforts: [],
  requiresApiKey: false,
  supportsEncryptedReasoning: false,
  supportsPromptCacheKey: false,
});

const COMPAT_KEYS = Object.keys(GENERIC_COMPAT) as (keyof OpenAICompat)[];

/**
 * Merges compat layers, later layers winning; only known keys with a value of the right type are taken
 * from each layer (a model's free-form `compat` record may hold anything).
 */
export function mergeCompat(
  base: Readonly<OpenAICompat>,
  ...layers: (Partial<OpenAICompat> | Record<string, unknown> | undefined)[]
): OpenAICompat {
  const merged: OpenAICompat = { ...base };
  for (const layer of layers) {
    if (layer === undefined) continue;
    for (const key of COMPAT_KEYS) {
      const value = (layer as Record<string, unknown>)[key];
      if (value === undefined) continue;
      const expected = GENERIC_COMPAT[key];
      if (Array.isArray(expected)) {
        if (Array.isArray(value) && value.every((entry) => typeof entry === "string")) {
          (merged as unknown as Record<string, unknown>)[key] = [...value];
        }
      } else if (typeof value === typeof expected) {
        (merged as unknown as Record<string, unknown>)[key] = value;
      }
    }
  }
  return merged;
}
