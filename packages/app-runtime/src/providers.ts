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
import { acceptAnyModel, type ModelLimits, unlistedModelNotice } from "./model-limits.js";
import { customCompat, customModels } from "./models-file.js";
import { useEnvironmentProxy } from "./network-proxy.js";
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
  /** Limits of models by `provider/id` (settings' and `models.json`'s `modelLimits`). */
  modelLimits?: ModelLimits;
  /** The stream idle timeout for the provider (settings' `streamIdleTimeoutMs`); default the provider's. */
  streamIdleTimeoutMs?: number;
  /**
   * Receives notes for the user (a model that is not in the catalog).
   *
   * Contract: must not throw.
   */
  onNotice?: (message: string) => void;
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
  extra: { streamIdleTimeoutMs?: number } = {},
): Promise<Provider> {
  const idle =
    extra.streamIdleTimeoutMs === undefined ? {} : { streamIdleTimeoutMs: extra.streamIdleTimeoutMs };
  if (choice.kind !== "scripted") await useEnvironmentProxy(env);
  switch (choice.kind) {
    case "scripted": {
      const { createDemoProvider } = await factoryOf(providers, "scripted")();
      return createDemoProvider();
    }
    case "replay": {
      const { createReplayProvider } = await import("@arbor/ai-providers/recording");
      return createReplayProvider(choice.replayFile ?? "");
    }
    case "anthropic": {
      const { createAnthropicProvider } = await factoryOf(providers, "anthropic")();
      return createAnthropicProvider({
        ...(choice.apiKey === undefined ? {} : { apiKey: choice.apiKey }),
        ...(choice.baseUrl === undefined ? {} : { baseURL: choice.baseUrl }),
        ...idle,
      });
    }
    case "openai": {
      const { createOpenAIProvider } = await factoryOf(providers, "openai")();
      return createOpenAIProvider({
        ...(choice.preset === undefined ? {} : { preset: choice.preset }),
        ...(choice.baseUrl === undefined ? {} : { baseURL: choice.baseUrl }),
        ...(choice.apiKey === undefined ? {} : { apiKey: choice.apiKey }),
        ...idle,
      });
    }
    case "custom": {
      const entry = choice.custom;
      const id = choice.providerId;
      if (entry === undefined || id === undefined) throw new TypeError("a custom choice needs its entry");
      const apiKey = choice.apiKey ?? (entry.apiKeyEnv === undefined ? undefined : env[entry.apiKeyEnv]);
      if (entry.api === "anthropic") {
        const { createAnthropicProvider } = await factoryOf(providers, "anthropic")();
        return createAnthropicProvider({
          id,
          baseURL: choice.baseUrl ?? entry.baseUrl,
          models: customModels(id, entry),
          listCatalog: false,
          ...(apiKey === undefined || apiKey === "" ? {} : { apiKey }),
          ...(entry.headers === undefined ? {} : { headers: entry.headers }),
          ...idle,
        });
      }
      const { createOpenAIProvider } = await factoryOf(providers, "openai")();
      return createOpenAIProvider({
        id,
        preset: "openai-compatible",
        baseURL: choice.baseUrl ?? entry.baseUrl,
        api: entry.api ?? "chat",
        compat: customCompat(entry),
        models: customModels(id, entry),
        ...(apiKey === undefined || apiKey === "" ? {} : { apiKey }),
        ...(entry.headers === undefined ? {} : { headers: entry.headers }),
        ...idle,
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
  if (provider.discoverModels !== undefined) {
    const found = await provider.discoverModels();
    const first = found.models[0];
    if (first !== undefined) return modelOf(provider, first.id) ?? first;
    throw new ArborUserError(
      "unknown_model",
      `The server of provider "${provider.id}" (${choice.source}) lists no model${found.error ? `: ${found.error}` : ""}. ` +
        "Load one there, or name it with --model.",
    );
  }
  throw new ArborUserError("unknown_model", `Provider "${provider.id}" has no model; name one with --model.`);
}

/** A provider's name for messages: `Anthropic`, `OpenAI`, or its id. */
function providerLabel(provider: Provider): string {
  const labels: Record<string, string> = { anthropic: "Anthropic", openai: "OpenAI" };
  return labels[provider.id] ?? `provider "${provider.id}"`;
}

/**
 * Checks, before any request, that the provider has what it needs to send one (its API key).
 *
 * Contract: sends nothing; throws {@link ArborUserError} (`missing_api_key`) naming `--api-key` and the
 * environment variable to set — or, for a provider loaded during a session (`choice.inSession`), what to set
 * before starting again (no start-up flag, no "(flags)").
 */
export function checkCredentials(provider: Provider, choice: ProviderChoice, env: Environment): void {
  const needs = provider.credentials;
  if (needs === undefined || !needs.requiresApiKey || needs.apiKeyGiven === true) return;
  if (choice.apiKey !== undefined && choice.apiKey.trim() !== "") return;
  const variable = choice.kind === "custom" ? choice.custom?.apiKeyEnv : needs.apiKeyEnv;
  if (variable !== undefined && (env[variable] ?? "").trim() !== "") return;
  const label = providerLabel(provider);
  if (choice.inSession === true) {
    const how =
      variable !== undefined
        ? `set ${variable} in the environment`
        : choice.kind === "custom"
          ? `name the variable that holds it with "apiKeyEnv" for "${provider.id}" in models.json and set it`
          : `pass --api-key KEY with --provider ${provider.id}`;
    throw new ArborUserError(
      "missing_api_key",
      `No API key for ${label}: ${how}, then start arbor again (\`arbor -c\` continues this session). The model is unchanged.`,
    );
  }
  const where =
    variable !== undefined
      ? `set ${variable} in the environment, or pass --api-key KEY`
      : choice.kind === "custom"
        ? `pass --api-key KEY, or name the variable that holds it with "apiKeyEnv" for "${provider.id}" in models.json`
        : "pass --api-key KEY";
  throw new ArborUserError("missing_api_key", `No API key for ${label} (${choice.source}): ${where}.`);
}

/**
 * Creates the chosen provider (importing its package) and checks its key; the provider it resolves to
 * accepts any model id (see {@link loadProvider}). Picks no model, sends nothing, records nothing.
 *
 * Contract: throws as {@link createChosenProvider} and {@link checkCredentials} do.
 */
export async function prepareProvider(
  choice: ProviderChoice,
  options: LoadProviderOptions,
): Promise<Provider> {
  const created = await createChosenProvider(choice, options.env, options.providers, {
    ...(options.streamIdleTimeoutMs === undefined
      ? {}
      : { streamIdleTimeoutMs: options.streamIdleTimeoutMs }),
  });
  checkCredentials(created, choice, options.env);
  const notice = options.onNotice;
  return acceptAnyModel(created, {
    limits: options.modelLimits ?? {},
    ...(notice === undefined ? {} : { onUnlisted: (model: Model) => notice(unlistedModelNotice(model)) }),
  });
}

/**
 * Creates the chosen provider (importing its package), checks its key and picks the model. Any model id is
 * accepted: one the catalog does not list gets the provider's stated default limits (or `modelLimits`), with
 * a notice; `modelLimits` apply to every model, built-in ones included.
 *
 * Contract: sends a request only to list a local server's models when no model is named. Throws
 * {@link ArborUserError}: `missing_api_key` (see {@link checkCredentials}), `unknown_model` for a model a
 * provider without `unlistedModel` does not know (the offline ones); and the providers' own misuse errors (a
 * malformed base URL, an unreadable cassette), whose messages say what to fix.
 */
export async function loadProvider(
  choice: ProviderChoice,
  options: LoadProviderOptions,
): Promise<LoadedProvider> {
  let provider = await prepareProvider(choice, options);
  const model = await chooseModel(provider, choice);
  if (options.record !== undefined) {
    const { createRecordingProvider } = await import("@arbor/ai-providers/recording");
    provider = createRecordingProvider(provider, options.record);
  }
  return { provider, model };
}
