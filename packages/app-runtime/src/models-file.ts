/**
 * `models.json` in the Arbor home: custom providers — any OpenAI-compatible endpoint (a vLLM or llama.cpp
 * server, a gateway, a hosted API) or Anthropic Messages-compatible endpoint (`"api": "anthropic"`: a
 * gateway, a proxy, another vendor's Anthropic-compatible API) with its models and their limits — and
 * `modelLimits` for any model, built-in ones included. Each provider becomes an `@arbor/provider-openai` or
 * `@arbor/provider-anthropic` provider with that id, so `--provider <id>` and `--model <id>/<model>` work.
 *
 * ```json
 * {
 *   "providers": {
 *     "my-vllm": {
 *       "baseUrl": "http://127.0.0.1:8000/v1",
 *       "api": "chat",
 *       "apiKeyEnv": "MY_VLLM_KEY",
 *       "models": [{ "id": "qwen3-coder-30b", "contextWindow": 65536, "maxTokens": 8192 }]
 *     },
 *     "my-gateway": {
 *       "baseUrl": "https://llm-gateway.example.com",
 *       "api": "anthropic",
 *       "apiKeyEnv": "GATEWAY_KEY",
 *       "headers": { "x-team": "tools" },
 *       "models": [{ "id": "claude-sonnet-5-5", "contextWindow": 200000 }]
 *     }
 *   },
 *   "modelLimits": { "anthropic/claude-sonnet-5-5": { "contextWindow": 200000 } }
 * }
 * ```
 *
 * The key is never stored in the file: `apiKeyEnv` names the environment variable that holds it.
 */
import { join } from "node:path";
import { type Model, type Static, Type } from "@arbor/ai-providers";
import { readJsonFile, validateConfig } from "./config-file.js";
import { type ModelLimits, ModelLimitsSchema } from "./model-limits.js";

/** Context window of a custom model that states none: 128,000 (OpenAI-compatible) or 200,000 (Anthropic). */
export const CUSTOM_CONTEXT_WINDOW = { openai: 128_000, anthropic: 200_000 } as const;

/** Output limit of a custom model that states none. */
export const CUSTOM_MAX_TOKENS = 16_384;

/**
 * What an OpenAI-compatible endpoint (or one model of it) accepts — the `compat` switches of
 * `@arbor/provider-openai`, named the same. A model's `compat` wins over its provider's.
 */
const CompatSchema = Type.Object(
  {
    supportsDeveloperRole: Type.Optional(Type.Boolean()),
    supportsUsageInStreaming: Type.Optional(Type.Boolean()),
    maxTokensField: Type.Optional(
      Type.Union([Type.Literal("max_completion_tokens"), Type.Literal("max_tokens")]),
    ),
    supportsReasoningEffort: Type.Optional(
      Type.Boolean({ description: "send reasoning effort (reasoning.effort, reasoning_effort)" }),
    ),
    reasoningFormat: Type.Optional(Type.Union([Type.Literal("openai"), Type.Literal("openrouter")])),
    reasoningEfforts: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    requiresApiKey: Type.Optional(Type.Boolean()),
    supportsEncryptedReasoning: Type.Optional(
      Type.Boolean({
        description: 'Responses API: store: false and include: ["reasoning.encrypted_content"]',
      }),
    ),
    supportsPromptCacheKey: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** The `compat` of a `models.json` provider or model. */
export type CustomCompat = Static<typeof CompatSchema>;

/**
 * The switches an `"api": "responses"` provider starts from: the `openai` preset's for reasoning (effort,
 * encrypted reasoning with `store: false`, the `developer` role); no key required, no prompt cache key
 * (api.openai.com's own field).
 */
export const RESPONSES_COMPAT: Readonly<CustomCompat> = Object.freeze({
  supportsDeveloperRole: true,
  supportsReasoningEffort: true,
  supportsEncryptedReasoning: true,
});

const ModelEntrySchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    name: Type.Optional(Type.String()),
    contextWindow: Type.Optional(Type.Integer({ minimum: 1 })),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1 })),
    reasoning: Type.Optional(Type.Boolean()),
    input: Type.Optional(Type.Array(Type.Union([Type.Literal("text"), Type.Literal("image")]))),
    compat: Type.Optional(CompatSchema),
    cost: Type.Optional(
      Type.Object(
        {
          input: Type.Number({ minimum: 0 }),
          output: Type.Number({ minimum: 0 }),
          cacheRead: Type.Optional(Type.Number({ minimum: 0 })),
          cacheWrite: Type.Optional(Type.Number({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const ProviderEntrySchema = Type.Object(
  {
    baseUrl: Type.String({
      pattern: "^https?://",
      description:
        "the server's URL: ending in /v1 for OpenAI-compatible ones, without /v1 for Anthropic ones",
    }),
    api: Type.Optional(
      Type.Union([Type.Literal("chat"), Type.Literal("responses"), Type.Literal("anthropic")], {
        description: "chat (default), responses, or anthropic (the Anthropic Messages API)",
      }),
    ),
    apiKeyEnv: Type.Optional(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    reasoning: Type.Optional(
      Type.Boolean({
        description:
          "whether its models reason (default: true for responses and anthropic, false for chat); a model's own wins",
      }),
    ),
    compat: Type.Optional(CompatSchema),
    models: Type.Optional(Type.Array(ModelEntrySchema)),
  },
  { additionalProperties: false },
);

/** The schema of `models.json`. */
export const ModelsFileSchema = Type.Object(
  {
    providers: Type.Optional(
      Type.Record(Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$" }), ProviderEntrySchema),
    ),
    modelLimits: Type.Optional(ModelLimitsSchema),
  },
  { additionalProperties: false },
);

/** One custom provider of `models.json`. */
export type CustomProviderEntry = Static<typeof ProviderEntrySchema>;

/** `models.json`'s content. */
export type ModelsFile = Static<typeof ModelsFileSchema>;

/** The path of `models.json` in a home. */
export function modelsFilePath(home: string): string {
  return join(home, "models.json");
}

/**
 * Reads and validates `<home>/models.json`; no providers when the file does not exist.
 *
 * @throws {ArborUserError} (`invalid_models_file`) naming the file and each bad field.
 */
export function loadModelsFile(home: string): {
  providers: Record<string, CustomProviderEntry>;
  modelLimits: ModelLimits;
  file?: string;
} {
  const path = modelsFilePath(home);
  const raw = readJsonFile(path, "invalid_models_file", "models file");
  if (raw === undefined) return { providers: {}, modelLimits: {} };
  const file = validateConfig<ModelsFile>(ModelsFileSchema, raw, path, "invalid_models_file", "models file", {
    apiKey:
      'keys are never written in models.json: put the key in an environment variable and name the variable with "apiKeyEnv" (e.g. "apiKeyEnv": "MY_PROVIDER_API_KEY"); a pi "apiKey" that names a variable becomes "apiKeyEnv" as it is',
  });
  return { providers: file.providers ?? {}, modelLimits: file.modelLimits ?? {}, file: path };
}

/**
 * The compatibility switches of an OpenAI-compatible custom provider: {@link RESPONSES_COMPAT} for
 * `"api": "responses"` (nothing for `chat`: the generic defaults), then the entry's `compat`.
 */
export function customCompat(entry: CustomProviderEntry): CustomCompat {
  return { ...(entry.api === "responses" ? RESPONSES_COMPAT : {}), ...entry.compat };
}

/**
 * The models of a custom provider as `Model`s (no price unless given; text input unless given; reasoning
 * unless the entry says otherwise for `responses` and `anthropic`, not for `chat`).
 */
export function customModels(providerId: string, entry: CustomProviderEntry): Model[] {
  const anthropic = entry.api === "anthropic";
  const reasons = entry.reasoning ?? (anthropic || entry.api === "responses");
  return (entry.models ?? []).map((model) => {
    const contextWindow =
      model.contextWindow ?? (anthropic ? CUSTOM_CONTEXT_WINDOW.anthropic : CUSTOM_CONTEXT_WINDOW.openai);
    return {
      id: model.id,
      name: model.name ?? model.id,
      provider: providerId,
      api: anthropic
        ? "anthropic-messages"
        : entry.api === "responses"
          ? "openai-responses"
          : "openai-completions",
      baseUrl: entry.baseUrl,
      reasoning: model.reasoning ?? reasons,
      input: model.input ?? ["text"],
      ...(model.compat === undefined ? {} : { compat: { ...model.compat } }),
      cost: {
        input: model.cost?.input ?? 0,
        output: model.cost?.output ?? 0,
        cacheRead: model.cost?.cacheRead ?? 0,
        cacheWrite: model.cost?.cacheWrite ?? 0,
      },
      contextWindow,
      maxTokens: Math.min(model.maxTokens ?? CUSTOM_MAX_TOKENS, contextWindow),
    };
  });
}
