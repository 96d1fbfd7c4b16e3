/**
 * Context windows and output limits for any model, built-in ones included: `"modelLimits"` in
 * `settings.json` or `models.json`, keyed by `provider/id` (or `provider/*` for every model of a provider),
 * so that a proxy in front of a smaller model, or a model newer than the catalog, is described truthfully:
 *
 * ```json
 * { "modelLimits": { "anthropic/claude-sonnet-5-5": { "contextWindow": 200000, "maxTokens": 8192 },
 *                    "my-gateway/*": { "contextWindow": 131072 } } }
 * ```
 *
 * {@link acceptAnyModel} wraps a provider so that every id resolves — the catalog's, else the provider's
 * `unlistedModel` with its stated defaults — with these limits applied, and says once per id when a model is
 * not in the catalog.
 */
import { type Model, type Provider, type Static, Type } from "@arbor/ai-providers";

/** The limits of one model (either may be left out). */
export const ModelLimitSchema = Type.Object(
  {
    contextWindow: Type.Optional(Type.Integer({ minimum: 1, description: "tokens, input and output" })),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1, description: "the largest output, in tokens" })),
  },
  { additionalProperties: false },
);

/** `"provider/id"` or `"provider/*"` → limits. */
export const ModelLimitsSchema = Type.Record(
  Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*/.+$" }),
  ModelLimitSchema,
  { description: 'limits by "provider/id" or "provider/*"' },
);

/** The limits of one model. */
export type ModelLimit = Static<typeof ModelLimitSchema>;

/** Limits by `provider/id` or `provider/*`. */
export type ModelLimits = Readonly<Record<string, ModelLimit>>;

/** The limits that apply to a model: `provider/*`, then `provider/id` over it (field by field). */
export function limitsFor(limits: ModelLimits, providerId: string, modelId: string): ModelLimit {
  const all = Object.hasOwn(limits, `${providerId}/*`) ? limits[`${providerId}/*`] : undefined;
  const exact = Object.hasOwn(limits, `${providerId}/${modelId}`)
    ? limits[`${providerId}/${modelId}`]
    : undefined;
  return { ...all, ...exact };
}

/** A model with the limits that apply to it (output never above the window); the same object when none do. */
export function applyLimits(model: Model, limits: ModelLimits): Model {
  const limit = limitsFor(limits, model.provider, model.id);
  if (limit.contextWindow === undefined && limit.maxTokens === undefined) return model;
  const contextWindow = limit.contextWindow ?? model.contextWindow;
  const maxTokens = Math.min(limit.maxTokens ?? model.maxTokens, contextWindow);
  return { ...model, contextWindow, maxTokens };
}

/** `200000` → `200,000`. */
function count(value: number): string {
  return value.toLocaleString("en-US");
}

/** The one-line notice for a model the catalog does not list. */
export function unlistedModelNotice(model: Model): string {
  return (
    `model "${model.id}" is not in the ${model.provider} catalog; using it with a ${count(model.contextWindow)}-token ` +
    `context window and ${count(model.maxTokens)} output tokens (set "modelLimits" in settings.json or ` +
    "models.json to change them)"
  );
}

/** Options of {@link acceptAnyModel}. */
export interface AcceptAnyModelOptions {
  /** Limits from the settings and `models.json`. */
  limits: ModelLimits;
  /**
   * Told once per id when a model the catalog does not list is resolved.
   *
   * Contract: must not throw.
   */
  onUnlisted?: (model: Model) => void;
}

/**
 * The provider, seen through the limits: `models` and `resolveModel` give models with the limits applied,
 * and `resolveModel` resolves an id the provider does not know through its `unlistedModel` (when it has
 * one). Everything else (streaming, model discovery) is the provider's own.
 *
 * Contract: never throws; the provider is not changed.
 */
export function acceptAnyModel(provider: Provider, options: AcceptAnyModelOptions): Provider {
  const told = new Set<string>();
  const resolveModel = (modelId: string): Model | undefined => {
    const known = provider.models.find((model) => model.id === modelId) ?? provider.resolveModel?.(modelId);
    if (known !== undefined) return applyLimits(known, options.limits);
    if (provider.unlistedModel === undefined) return undefined;
    const model = applyLimits(provider.unlistedModel(modelId), options.limits);
    if (!told.has(modelId)) {
      told.add(modelId);
      options.onUnlisted?.(model);
    }
    return model;
  };
  return Object.create(provider, {
    models: { get: () => provider.models.map((model) => applyLimits(model, options.limits)) },
    resolveModel: { value: resolveModel },
  }) as Provider;
}
