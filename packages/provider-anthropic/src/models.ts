import type { Model } from "@arbor/ai-providers";

/**
 * The Claude model catalog as plain data.
 *
 * Prices are US dollars per million tokens as Anthropic's models overview and pricing pages listed them on
 * 2026-11-30 (Claude Sonnet 5.5's cache read as cut on 2026-10-07). `cacheWrite` is the 5-minute write
 * price; a 1-hour write (`cacheRetention: "long"`) costs twice the input price on every listed model, which
 * is how the provider prices it. Claude Haiku 5.5 has two price bands by prompt length; the catalog holds
 * the band for prompts up to 100,000 tokens (longer prompts cost 5x).
 */

/** How a model is asked to think (plain data in `Model.compat.thinking`). */
export type AnthropicThinkingMode =
  /** Manual extended thinking: `thinking: { type: "enabled", budget_tokens }`. */
  | "budget"
  /** Adaptive thinking with `output_config.effort`; `thinking: { type: "disabled" }` turns it off. */
  | "adaptive"
  /** Adaptive thinking that cannot be turned off; `off` asks for the lowest effort instead. */
  | "always";

/** Effort values of `output_config.effort`. */
export type AnthropicEffort = "low" | "medium" | "high" | "xhigh" | "max";

/** The provider-specific switches a catalog entry carries in `Model.compat`. */
export interface AnthropicModelCompat {
  thinking: AnthropicThinkingMode;
  /** Effort levels the model accepts, lowest first (adaptive models only). */
  effortLevels?: AnthropicEffort[];
  /** Whether `temperature` is accepted (newer models reject non-default sampling parameters). */
  samplingParameters: boolean;
}

const ALL_EFFORTS: AnthropicEffort[] = ["low", "medium", "high", "xhigh", "max"];

interface CatalogEntry {
  id: string;
  name: string;
  price: [input: number, output: number, cacheRead: number, cacheWrite: number];
  contextWindow: number;
  maxTokens: number;
  compat: AnthropicModelCompat;
}

const adaptive = (effortLevels = ALL_EFFORTS): AnthropicModelCompat => ({
  thinking: "adaptive",
  effortLevels,
  samplingParameters: false,
});
const always = (): AnthropicModelCompat => ({
  thinking: "always",
  effortLevels: ALL_EFFORTS,
  samplingParameters: false,
});

const ENTRIES: CatalogEntry[] = [
  // Current models (2026-11-30).
  {
    id: "claude-fable-5-2",
    name: "Claude Fable 5.2",
    price: [8, 40, 0.2, 10],
    contextWindow: 1_000_000,
    maxTokens: 128_000,
    compat: always(),
  },
  {
    id: "claude-opus-5-5",
    name: "Claude Opus 5.5",
    price: [4, 20, 0.2, 5],
    contextWindow: 1_000_000,
    maxTokens: 128_000,
    compat: always(),
  },
  {
    id: "claude-sonnet-5-5",
    name: "Claude Sonnet 5.5",
    price: [2, 10, 0.1, 2.5],
    contextWindow: 1_000_000,
    maxTokens: 128_000,
    compat: adaptive(),
  },
  {
    id: "claude-haiku-5-5",
    name: "Claude Haiku 5.5",
    price: [0.1, 0.5, 0.01, 0.125],
    contextWindow: 1_000_000,
    maxTokens: 128_000,
    compat: adaptive(),
  },
  // Legacy models that are still served.
  {
    id: "claude-fable-5-1",
    name: "Claude Fable 5.1",
    price: [10, 50, 0.25, 12.5],
    contextWindow: 1_000_000,
    maxTokens: 128_000,
    compat: always(),
  },
  {
    id: "claude-opus-5",
    name: "Claude Opus 5",
    price: [5, 25, 0.5, 6.25],
    contextWindow: 1_000_000,
    maxTokens: 128_000,
    compat: adaptive(),
  },
  {
    id: "claude-sonnet-5",
    name: "Claude Sonnet 5",
    price: [2, 10, 0.2, 2.5],
    contextWindow: 1_000_000,
    maxTokens: 128_000,
    compat: adaptive(),
  },
  {
    id: "claude-opus-4-8",
    name: "Claude Opus 4.8",
    price: [5, 25, 0.5, 6.25],
    contextWindow: 1_000_000,
    maxTokens: 128_000,
    compat: adaptive(),
  },
  {
    id: "claude-sonnet-4-6",
    name: "Claude Sonnet 4.6",
    price: [3, 15, 0.3, 3.75],
    contextWindow: 1_000_000,
    maxTokens: 64_000,
    compat: {
      thinking: "adaptive",
      effortLevels: ["low", "medium", "high", "max"],
      samplingParameters: true,
    },
  },
  {
    id: "claude-haiku-4-5",
    name: "Claude Haiku 4.5",
    price: [1, 5, 0.1, 1.25],
    contextWindow: 200_000,
    maxTokens: 64_000,
    compat: { thinking: "budget", samplingParameters: true },
  },
];

/** The provider id every catalog model carries. */
export const ANTHROPIC_PROVIDER_ID = "anthropic";

/** Builds the catalog for a provider id (and an optional base URL). */
export function anthropicModels(providerId: string, baseUrl?: string): Model[] {
  return ENTRIES.map((entry) => {
    const [input, output, cacheRead, cacheWrite] = entry.price;
    const model: Model = {
      id: entry.id,
      name: entry.name,
      provider: providerId,
      api: "anthropic-messages",
      reasoning: true,
      input: ["text", "image"],
      cost: { input, output, cacheRead, cacheWrite },
      contextWindow: entry.contextWindow,
      maxTokens: entry.maxTokens,
      compat: structuredClone(entry.compat) as unknown as Record<string, unknown>,
    };
    if (baseUrl !== undefined) model.baseUrl = baseUrl;
    return model;
  });
}

/** Context window assumed for a model the catalog does not list (a newer model, a gateway's name). */
export const UNLISTED_CONTEXT_WINDOW = 200_000;

/** Output limit assumed for a model the catalog does not list. */
export const UNLISTED_MAX_TOKENS = 16_384;

/**
 * A model the catalog does not list: text and image input, no price, the given limits (default
 * {@link UNLISTED_CONTEXT_WINDOW} and {@link UNLISTED_MAX_TOKENS}); its thinking switches are guessed from
 * the id by {@link compatOf} when a request is built.
 */
export function unlistedModel(
  providerId: string,
  modelId: string,
  limits: { contextWindow?: number; maxTokens?: number; baseUrl?: string } = {},
): Model {
  const contextWindow = limits.contextWindow ?? UNLISTED_CONTEXT_WINDOW;
  const model: Model = {
    id: modelId,
    name: modelId,
    provider: providerId,
    api: "anthropic-messages",
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow,
    maxTokens: Math.min(limits.maxTokens ?? UNLISTED_MAX_TOKENS, contextWindow),
  };
  if (limits.baseUrl !== undefined) model.baseUrl = limits.baseUrl;
  return model;
}

/** A date-stamped snapshot id (`claude-haiku-4-5-20251001`) without its date, or undefined. */
export function withoutSnapshotDate(modelId: string): string | undefined {
  const match = /^(.*)-\d{8}$/.exec(modelId);
  return match?.[1];
}

/**
 * The compat switches of any model: the catalog's, or — for a model the catalog does not list — a guess
 * from its id (Claude 5 and later and Claude 4.6 to 4.9 think adaptively; older models take a budget).
 */
export function compatOf(model: Pick<Model, "id" | "compat">): AnthropicModelCompat {
  const given = model.compat as Partial<AnthropicModelCompat> | undefined;
  const guessAdaptive = /claude-(?:[a-z]+-(?:[5-9]|\d{2,})|(?:opus|sonnet)-4-[6-9])(?:\D|$)/.test(model.id);
  return {
    thinking: given?.thinking ?? (guessAdaptive ? "adaptive" : "budget"),
    effortLevels: given?.effortLevels ?? (guessAdaptive ? ALL_EFFORTS : undefined),
    samplingParameters: given?.samplingParameters ?? !guessAdaptive,
  };
}
