/**
 * Loading the provider a {@link ProviderChoice} names, through the app's {@link ProviderFactories}: only the
 * package a run uses is loaded (the Anthropic SDK alone takes longer to load than the rest of `arbor`).
 * `--record FILE` wraps the provider so that every interaction is appended to a cassette;
 * `--replay FILE` answers from one.
 */
import type { Model, Provider } from "@arbor/ai-providers";
import { ArborUserError } from "./errors.js";
import type { ProviderFactories } from "./factories.js";
import type { Environment } from "./home.js";
import { customModels } from "./models-file.js";
import { DEFAULT_MODELS, type ProviderChoice } from "./provider-choice.js";

/** A loaded provider and the model a run starts with. */
export interface LoadedProvider {
  provider: Provider;
  model: Model;
}

/** Options of {@link loadProvider}. */
export interface LoadProviderOptions {
  env: Environment;
  /** The provider packages the app offers. */
  providers: ProviderFactories;
  /** `--record FILE`: append every interaction to this cassette. */
  record?: string;
}

function modelOf(provider: Provider, modelId: string): Model | undefined {
  return provider.models.find((model) => model.id === modelId) ?? provider.resolveModel?.(modelId);
}

function unknownModel(provider: Provider, modelId: string, choice: ProviderChoice): ArborUserError {
  const known = provider.models.map((model) => model.id);
  return new ArborUserError(
    "unknown_model",
    `Unknown model "${modelId}" of provider "${provider.id}" (${choice.source}). ` +
      `Known models: ${known.length > 0 ? known.join(", ") : "(none)"}. \`arbor models\` lists them all.`,
  );
}

/** The loader of a provider kind, or an error saying that this app does not offer it. */
function factoryOf<K extends keyof ProviderFactories>(
  providers: ProviderFactories,
  kind: K,
): NonNullable<ProviderFactories[K]> {
  const factory = providers[kind];
  if (factory === undefined) {
    const offered = Object.keys(providers).filter((name) => providers[name as keyof ProviderFactories]);
    throw new ArborUserError(
      "unknown_provider",
      `This app offers no "${kind}" provider${offered.length > 0 ? ` (it offers: ${offered.join(", ")})` : ""}.`,
    );
  }
  return factory as NonNullable<ProviderFactories[K]>;
}

/**
 * Creates the provider a choice names, loading its package through `providers`; picks no model and sends
 * nothing.
 *
 * Contract: throws {@link ArborUserError} (`unknown_provider`) when `providers` has no loader for the
 * choice's kind, and the provider packages' misuse errors (a malformed base URL, an unreadable cassette).
 */
export async function createChosenProvider(
  choice: ProviderChoice,
  env: Environment,
  providers: ProviderFactories,
): Promise<Provider> {
  switch (choice.kind) {
    case "scripted": {
      const { createDemoProvider } = await factoryOf(providers, "scripted")();
      return createDemoProvider();
    }
    case "replay": {
      const { createReplayProvider } = await import("@arbor/ai-providers");
      return createReplayProvider(choice.replayFile ?? "");
    }
    case "anthropic": {
      const { createAnthropicProvider } = await factoryOf(providers, "anthropic")();
      return createAnthropicProvider({
        ...(choice.apiKey === undefined ? {} : { apiKey: choice.apiKey }),
        ...(choice.baseUrl === undefined ? {} : { baseURL: choice.baseUrl }),
      });
    }
    case "openai": {
      const { createOpenAIProvider } = await factoryOf(providers, "openai")();
      return createOpenAIProvider({
        ...(choice.preset === undefined ? {} : { preset: choice.preset }),
        ...(choice.baseUrl === undefined ? {} : { baseURL: choice.baseUrl }),
        ...(choice.apiKey === undefined ? {} : { apiKey: choice.apiKey }),
      });
    }
    case "custom": {
      const entry = choice.custom;
      const id = choice.providerId;
      if (entry === undefined || id === undefined) throw new TypeError("a custom choice needs its entry");
      const { createOpenAIProvider } = await factoryOf(providers, "openai")();
      const apiKey = choice.apiKey ?? (entry.apiKeyEnv === undefined ? undefined : env[entry.apiKeyEnv]);
      return createOpenAIProvider({
        id,
        preset: "openai-compatible",
        baseURL: choice.baseUrl ?? entry.baseUrl,
        api: entry.api ?? "chat",
        models: customModels(id, entry),
        ...(apiKey === undefined || apiKey === "" ? {} : { apiKey }),
        ...(entry.headers === undefined ? {} : { headers: entry.headers }),
      });
    }
  }
}

/** The model a run starts with: the one asked for, the provider's default, or the server's first. */
async function chooseModel(provider: Provider, choice: ProviderChoice): Promise<Model> {
  let wanted = choice.modelId;
  if (wanted?.startsWith(`${provider.id}/`)) wanted = wanted.slice(provider.id.length + 1);
  if (choice.kind === "replay") wanted ??= provider.models[0]?.id;
  wanted ??= DEFAULT_MODELS[provider.id] ?? provider.models[0]?.id;
  if (wanted !== undefined) {
    const model = modelOf(provider, wanted);
    if (model === undefined) throw unknownModel(provider, wanted, choice);
    return model;
  }
  const discover = (provider as { discoverModels?: () => Promise<{ models: Model[]; error?: string }> })
    .discoverModels;
  if (discover !== undefined) {
    const found = await discover();
    const first = found.models[0];
    if (first !== undefined) return first;
    throw new ArborUserError(
      "unknown_model",
      `The server of provider "${provider.id}" (${choice.source}) lists no model${found.error ? `: ${found.error}` : ""}. ` +
        "Load one there, or name it with --model.",
    );
  }
  throw new ArborUserError("unknown_model", `Provider "${provider.id}" has no model; name one with --model.`);
}

/**
 * Creates the chosen provider (importing its package) and picks the model.
 *
 * Contract: sends a request only to list a local server's models when no model is named. Throws
 * {@link ArborUserError} (`unknown_model`) for a model the provider does not know, and the providers' own
 * misuse errors (a malformed base URL, an unreadable cassette), whose messages say what to fix.
 */
export async function loadProvider(
  choice: ProviderChoice,
  options: LoadProviderOptions,
): Promise<LoadedProvider> {
  let provider = await createChosenProvider(choice, options.env, options.providers);
  const model = await chooseModel(provider, choice);
  if (options.record !== undefined) {
    const { createRecordingProvider } = await import("@arbor/ai-providers");
    provider = createRecordingProvider(provider, options.record);
  }
  return { provider, model };
}
