/**
 * Loading the provider a {@link ProviderChoice} names: the vendor packages are imported here, dynamically,
 * and only the one a run uses (the Anthropic SDK alone takes longer to load than the rest of `arbor`).
 * `--record FILE` wraps the provider so that every interaction is appended to a cassette;
 * `--replay FILE` answers from one.
 */
import type { Model, Provider } from "@arbor/ai-providers";
import { ArborCliError } from "./errors.js";
import type { CliIo } from "./io.js";
import { customModels } from "./models-file.js";
import { DEFAULT_MODELS, type ProviderChoice } from "./provider-choice.js";

/** A loaded provider and the model a run starts with. */
export interface LoadedProvider {
  provider: Provider;
  model: Model;
}

/** Options of {@link loadProvider}. */
export interface LoadProviderOptions {
  env: CliIo["env"];
  /** `--record FILE`: append every interaction to this cassette. */
  record?: string;
}

function modelOf(provider: Provider, modelId: string): Model | undefined {
  return provider.models.find((model) => model.id === modelId) ?? provider.resolveModel?.(modelId);
}

function unknownModel(provider: Provider, modelId: string, choice: ProviderChoice): ArborCliError {
  const known = provider.models.map((model) => model.id);
  return new ArborCliError(
    "unknown_model",
    `Unknown model "${modelId}" of provider "${provider.id}" (${choice.source}). ` +
      `Known models: ${known.length > 0 ? known.join(", ") : "(none)"}. \`arbor models\` lists them all.`,
  );
}

/**
 * Creates the provider a choice names, importing its package; picks no model and sends nothing.
 *
 * Contract: throws the provider packages' misuse errors (a malformed base URL, an unreadable cassette).
 */
export async function createChosenProvider(choice: ProviderChoice, env: CliIo["env"]): Promise<Provider> {
  switch (choice.kind) {
    case "scripted": {
      const { createDemoProvider } = await import("./scripted/demo-model.js");
      return createDemoProvider();
    }
    case "replay": {
      const { createReplayProvider } = await import("@arbor/ai-providers");
      return createReplayProvider(choice.replayFile ?? "");
    }
    case "anthropic": {
      const { createAnthropicProvider } = await import("@arbor/provider-anthropic");
      return createAnthropicProvider({
        ...(choice.apiKey === undefined ? {} : { apiKey: choice.apiKey }),
        ...(choice.baseUrl === undefined ? {} : { baseURL: choice.baseUrl }),
      });
    }
    case "openai": {
      const { createOpenAIProvider } = await import("@arbor/provider-openai");
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
      const { createOpenAIProvider } = await import("@arbor/provider-openai");
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
    throw new ArborCliError(
      "unknown_model",
      `The server of provider "${provider.id}" (${choice.source}) lists no model${found.error ? `: ${found.error}` : ""}. ` +
        "Load one there, or name it with --model.",
    );
  }
  throw new ArborCliError("unknown_model", `Provider "${provider.id}" has no model; name one with --model.`);
}

/**
 * Creates the chosen provider (importing its package) and picks the model.
 *
 * Contract: sends a request only to list a local server's models when no model is named. Throws
 * {@link ArborCliError} (`unknown_model`) for a model the provider does not know, and the providers' own
 * misuse errors (a malformed base URL, an unreadable cassette), whose messages say what to fix.
 */
export async function loadProvider(
  choice: ProviderChoice,
  options: LoadProviderOptions,
): Promise<LoadedProvider> {
  let provider = await createChosenProvider(choice, options.env);
  const model = await chooseModel(provider, choice);
  if (options.record !== undefined) {
    const { createRecordingProvider } = await import("@arbor/ai-providers");
    provider = createRecordingProvider(provider, options.record);
  }
  return { provider, model };
}
