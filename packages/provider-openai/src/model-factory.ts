import type { Api, Model } from "@arbor/ai-providers";
import type { OpenAIModelEntry } from "./catalog.js";
import type { OpenAIApi } from "./presets.js";

/** The `Model.api` of each wire protocol. */
export function modelApi(api: OpenAIApi): Api {
  return api === "responses" ? "openai-responses" : "openai-completions";
}

/** What every model of one provider shares. */
export interface ModelDefaults {
  provider: string;
  api: OpenAIApi;
  baseUrl: string;
  contextWindow: number;
  maxTokens: number;
}

/** A catalog row as a {@link Model}. Cache writes are billed as ordinary input. */
export function modelFromEntry(entry: OpenAIModelEntry, defaults: ModelDefaults): Model {
  const [input, cachedInput, output] = entry.price;
  const model: Model = {
    id: entry.id,
    name: entry.name,
    provider: defaults.provider,
    api: modelApi(defaults.api),
    baseUrl: defaults.baseUrl,
    reasoning: entry.reasoning,
    input: [...entry.input],
    cost: { input, output, cacheRead: cachedInput, cacheWrite: input },
    contextWindow: entry.contextWindow,
    maxTokens: entry.maxTokens,
  };
  if (entry.reasoningEfforts) model.compat = { reasoningEfforts: [...entry.reasoningEfforts] };
  return model;
}

/**
 * A model the catalog does not know, with the stated defaults: no price, text input, the default
 * context window and output limit, and `reasoning: true` so a requested effort is passed on (a server
 * that streams no reasoning simply sends none).
 */
export function unknownModel(id: string, defaults: ModelDefaults): Model {
  return {
    id,
    name: id,
    provider: defaults.provider,
    api: modelApi(defaults.api),
    baseUrl: defaults.baseUrl,
    reasoning: true,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: defaults.contextWindow,
    maxTokens: defaults.maxTokens,
  };
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}

/** OpenRouter's price strings are dollars per token. */
function perMillion(value: unknown): number {
  const number = typeof value === "string" ? Number(value) : typeof value === "number" ? value : Number.NaN;
  return Number.isFinite(number) && number > 0 ? number * 1_000_000 : 0;
}

/**
 * A model from one entry of a server's `GET /models` list. Fields servers add beyond `id` are read
 * when present: the context window from `context_length` (OpenRouter, LM Studio), `context_window`
 * (Groq) or `max_model_len` (vLLM); the output limit from `top_provider.max_completion_tokens`
 * (OpenRouter, capped at the window); image input from `architecture.input_modalities`; prices from
 * OpenRouter's `pricing`; the name from `name`. Everything else takes the stated defaults.
 */
export function modelFromListing(entry: Record<string, unknown>, defaults: ModelDefaults): Model {
  const model = unknownModel(String(entry.id), defaults);
  if (typeof entry.name === "string" && entry.name.length > 0) model.name = entry.name;
  const window =
    positive(entry.context_length) ?? positive(entry.context_window) ?? positive(entry.max_model_len);
  if (window !== undefined) model.contextWindow = window;
  const topProvider = entry.top_provider as { max_completion_tokens?: unknown } | undefined;
  const maxTokens = positive(topProvider?.max_completion_tokens);
  if (maxTokens !== undefined) model.maxTokens = maxTokens;
  if (model.maxTokens > model.contextWindow) model.maxTokens = model.contextWindow;
  const modalities = (entry.architecture as { input_modalities?: unknown } | undefined)?.input_modalities;
  if (Array.isArray(modalities) && modalities.includes("image")) model.input = ["text", "image"];
  const pricing = entry.pricing as Record<string, unknown> | undefined;
  if (pricing !== undefined) {
    const input = perMillion(pricing.prompt);
    model.cost = {
      input,
      output: perMillion(pricing.completion),
      cacheRead: perMillion(pricing.input_cache_read),
      cacheWrite: perMillion(pricing.input_cache_write) || input,
    };
  }
  return model;
}
