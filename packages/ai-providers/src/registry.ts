import type { AssistantStream } from "./assistant-stream.js";
import {
  DuplicateProviderError,
  InvalidModelReferenceError,
  UnknownModelError,
  UnknownProviderError,
} from "./errors.js";
import type { Provider, StreamFn, StreamOptions } from "./provider.js";
import { createProviderStream } from "./stream-writer.js";
import type { Context, Model } from "./types.js";

/**
 * A set of providers, looked up by id, resolving `"provider/model"` references. An instance — there
 * is no module-level registry and nothing registers itself on import.
 */
export interface ProviderRegistry {
  /** The registered providers, in registration order. */
  readonly providers: readonly Provider[];
  /**
   * Adds a provider.
   *
   * Contract: throws `DuplicateProviderError` when the id is taken.
   */
  register(provider: Provider): void;
  /**
   * The provider with this id.
   *
   * Contract: throws `UnknownProviderError` (listing the known ids) when there is none.
   */
  getProvider(id: string): Provider;
  /**
   * Resolves `"provider/model"` (the model id may itself contain `/`, e.g.
   * `"openrouter/anthropic/claude-sonnet-4-5"`) or passes a {@link Model} through.
   *
   * Contract: throws `InvalidModelReferenceError` for a reference without `/`, `UnknownProviderError`
   * or `UnknownModelError` (listing what is known) when nothing matches.
   */
  resolveModel(reference: string | Model): Model;
  /** Every model of every provider. */
  listModels(): Model[];
  /**
   * Streams through the provider named by `model.provider` (or the reference's provider).
   *
   * Contract: never throws — an unknown provider or model ends the stream with an `error` message.
   */
  stream(model: string | Model, context: Context, options?: StreamOptions): AssistantStream;
  /** {@link stream} as a {@link StreamFn}, to hand to agent-core, compaction or the harness. */
  readonly streamFn: StreamFn;
}

/** Creates a registry holding the given providers. */
export function createProviderRegistry(providers: readonly Provider[] = []): ProviderRegistry {
  const byId = new Map<string, Provider>();

  const register = (provider: Provider) => {
    if (byId.has(provider.id)) throw new DuplicateProviderError(provider.id);
    byId.set(provider.id, provider);
  };

  const getProvider = (id: string): Provider => {
    const provider = byId.get(id);
    if (provider === undefined) throw new UnknownProviderError(id, [...byId.keys()]);
    return provider;
  };

  const resolveModel = (reference: string | Model): Model => {
    if (typeof reference !== "string") return reference;
    const slash = reference.indexOf("/");
    if (slash <= 0 || slash === reference.length - 1) throw new InvalidModelReferenceError(reference);
    const provider = getProvider(reference.slice(0, slash));
    const modelId = reference.slice(slash + 1);
    const model =
      provider.models.find((candidate) => candidate.id === modelId) ?? provider.resolveModel?.(modelId);
    if (model === undefined) {
      throw new UnknownModelError(
        provider.id,
        modelId,
        provider.models.map((candidate) => candidate.id),
      );
    }
    return model;
  };

  const stream = (reference: string | Model, context: Context, options?: StreamOptions): AssistantStream => {
    let model: Model;
    let provider: Provider;
    try {
      model = resolveModel(reference);
      provider = getProvider(model.provider);
    } catch (error) {
      const placeholder = typeof reference === "string" ? placeholderModel(reference) : reference;
      return createProviderStream(placeholder, options, () => {
        throw error;
      });
    }
    return provider.stream(model, context, options);
  };

  for (const provider of providers) register(provider);

  return {
    get providers() {
      return [...byId.values()];
    },
    register,
    getProvider,
    resolveModel,
    listModels: () => [...byId.values()].flatMap((provider) => [...provider.models]),
    stream,
    streamFn: (model, context, options) => stream(model, context, options),
  };
}

function placeholderModel(reference: string): Model {
  const slash = reference.indexOf("/");
  return {
    id: slash > 0 ? reference.slice(slash + 1) : reference,
    name: reference,
    provider: slash > 0 ? reference.slice(0, slash) : "unknown",
    api: "unknown",
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 0,
    maxTokens: 0,
  };
}
