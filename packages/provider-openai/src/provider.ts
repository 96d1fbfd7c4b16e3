import {
  type AssistantStream,
  type AssistantStreamWriter,
  type Context,
  createProviderStream,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  type Model,
  type ModelDiscoveryResult,
  type Provider,
  type ProviderCredentials,
  type StreamOptions,
} from "@arbor/ai-providers";
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
import type {
  ResponseCreateParamsStreaming,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import { OPENAI_MODELS } from "./catalog.js";
import { buildChatRequest } from "./chat/build-chat-request.js";
import { ChatStreamReader } from "./chat/chat-stream-reader.js";
import { ClientCache, resolveApiKey } from "./client.js";
import { mergeCompat, type OpenAICompat } from "./compat.js";
import { InvalidOpenAISettingsError } from "./errors.js";
import { classifyFailure } from "./failure.js";
import { type ModelDefaults, modelFromEntry, modelFromListing, unknownModel } from "./model-factory.js";
import { detectPreset, OPENAI_PRESETS, type OpenAIApi, type OpenAIPresetName } from "./presets.js";
import { buildResponsesRequest } from "./responses/build-responses-request.js";
import { ResponsesStreamReader } from "./responses/responses-stream-reader.js";
import { sendWithRetries } from "./send-request.js";
import { DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_TOKENS, type OpenAIProviderSettings } from "./settings.js";

/** The provider {@link createOpenAIProvider} returns. */
export interface OpenAIProvider extends Provider {
  /** The base URL requests go to (no trailing slash). */
  readonly baseURL: string;
  /** The preset in use (given or detected from the URL). */
  readonly preset: OpenAIPresetName;
  /** The wire protocol of the models it lists and resolves. */
  readonly api: OpenAIApi;
  /** The compatibility switches in force (a model's own `compat` may still override them). */
  readonly compat: Readonly<OpenAICompat>;
  /**
   * Lists the server's models with `GET /models` and adds those the catalog does not know to
   * `models` (context window as the server reports it, else `settings.contextWindow`, else
   * {@link DEFAULT_CONTEXT_WINDOW}).
   *
   * Contract: never rejects; a failure (unreachable server, HTTP error, missing key) is returned as
   * `error` with no models.
   */
  discoverModels(options?: { signal?: AbortSignal }): Promise<ModelDiscoveryResult>;
  /**
   * The catalog's or a discovered model with this id; on a server other than api.openai.com, an
   * unknown id gives a model with the stated defaults (no price, `settings.contextWindow` or
   * {@link DEFAULT_CONTEXT_WINDOW}), since a local server serves whatever it has loaded.
   *
   * Contract: returns `undefined` for an unknown id on api.openai.com; never throws.
   */
  resolveModel(modelId: string): Model | undefined;
  /** A model for any id with the stated defaults (see `resolveModel`), on api.openai.com too. */
  unlistedModel(modelId: string): Model;
  readonly credentials: ProviderCredentials;
}

function checkPositive(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
    throw new InvalidOpenAISettingsError(`settings.${name} must be a positive number, got ${String(value)}.`);
  }
}

/**
 * Creates a provider for the OpenAI API or any OpenAI-compatible server (Ollama, vLLM, llama.cpp
 * server, LM Studio, OpenRouter, Groq, DeepSeek, …), streaming through the official `openai` SDK with
 * either the Responses API (`api: "responses"`, OpenAI's default) or Chat Completions (`api: "chat"`).
 *
 * @throws {InvalidOpenAISettingsError} for a `baseURL` that is not an http(s) URL, an unknown preset,
 *   or a non-positive `contextWindow` / `maxTokens`.
 */
export function createOpenAIProvider(given: OpenAIProviderSettings = {}): OpenAIProvider {
  // The SDK's convention: OPENAI_BASE_URL stands in for a base URL of the OpenAI preset that is not given.
  const fromEnv = process.env.OPENAI_BASE_URL?.trim();
  const envApplies =
    given.baseURL === undefined &&
    (given.preset === undefined || given.preset === "openai") &&
    fromEnv !== undefined &&
    fromEnv !== "";
  const settings: OpenAIProviderSettings = envApplies
    ? { ...given, baseURL: fromEnv, preset: given.preset ?? "openai" }
    : given;
  if (settings.baseURL !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(settings.baseURL);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
      const what = envApplies ? "The OPENAI_BASE_URL environment variable" : "settings.baseURL";
      throw new InvalidOpenAISettingsError(
        `${what} must be an http(s) URL such as "http://127.0.0.1:11434/v1", got "${settings.baseURL}".`,
      );
    }
  }
  if (settings.preset !== undefined && !(settings.preset in OPENAI_PRESETS)) {
    throw new InvalidOpenAISettingsError(
      `Unknown preset "${settings.preset}". Known presets: ${Object.keys(OPENAI_PRESETS).join(", ")}.`,
    );
  }
  checkPositive("contextWindow", settings.contextWindow);
  const idle = settings.streamIdleTimeoutMs;
  if (idle !== undefined && !(Number.isFinite(idle) && idle >= 0)) {
    throw new InvalidOpenAISettingsError(
      `settings.streamIdleTimeoutMs must be a number of milliseconds ≥ 0 (0 turns it off), got ${String(idle)}.`,
    );
  }
  checkPositive("maxTokens", settings.maxTokens);

  const presetName = settings.preset ?? (settings.baseURL ? detectPreset(settings.baseURL) : "openai");
  const preset = OPENAI_PRESETS[presetName];
  const baseURL = (settings.baseURL ?? preset.baseURL).replace(/\/+$/, "");
  const api = settings.api ?? preset.api;
  const id = settings.id ?? preset.name;
  const compat = mergeCompat(preset.compat, settings.compat);
  const label = presetName === "openai-compatible" ? `Server at ${baseURL}` : preset.label;
  const defaults: ModelDefaults = {
    provider: id,
    api,
    baseUrl: baseURL,
    contextWindow: settings.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    maxTokens: Math.min(
      settings.maxTokens ?? DEFAULT_MAX_TOKENS,
      settings.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    ),
  };

  const catalog = new Map<string, Model>();
  if (presetName === "openai") {
    for (const entry of OPENAI_MODELS) catalog.set(entry.id, modelFromEntry(entry, defaults));
  }
  for (const model of settings.models ?? []) catalog.set(model.id, model);
  const discovered = new Map<string, Model>();
  const clients = new ClientCache(baseURL, preset, settings);
  const missingKey = `No API key for ${label}: set ${preset.apiKeyEnv ?? "an API key"} or pass \`apiKey\` to createOpenAIProvider() (or in the stream options).`;

  const stream = (model: Model, context: Context, options?: StreamOptions): AssistantStream =>
    createProviderStream(model, options, async ({ writer, signal }) => {
      const modelCompat = mergeCompat(compat, model.compat);
      const apiKey = resolveApiKey(settings, preset, options?.apiKey);
      if (apiKey === undefined && modelCompat.requiresApiKey) {
        writer.fail("error", missingKey);
        return;
      }
      const idleMs =
        options?.streamIdleTimeoutMs ?? settings.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
      const client = clients.get(apiKey, idleMs);
      const requestOptions = {
        signal,
        headers: { ...model.headers, ...options?.headers },
        maxRetries: 0,
      };
      const retry = {
        ...settings.retry,
        ...(options?.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
        ...(options?.maxRetryDelayMs !== undefined ? { maxRetryDelayMs: options.maxRetryDelayMs } : {}),
      };
      const common = {
        model,
        writer,
        signal,
        label,
        retry,
        payloadHooks: [settings.onPayload, options?.onPayload],
        responseHooks: [settings.onResponse, options?.onResponse],
      };
      if (model.api === "openai-responses") {
        await sendWithRetries<ResponseStreamEvent>({
          ...common,
          body: buildResponsesRequest(
            model,
            context,
            options,
            modelCompat,
            settings.reasoningSummary ?? "auto",
          ),
          open: (body) =>
            client.responses.create(body as ResponseCreateParamsStreaming, requestOptions).withResponse(),
          consume: (events) => consumeAll(events, new ResponsesStreamReader(writer, label)),
        });
      } else if (model.api === "openai-completions") {
        await sendWithRetries<ChatCompletionChunk>({
          ...common,
          body: buildChatRequest(model, context, options, modelCompat),
          open: (body) =>
            client.chat.completions
              .create(body as ChatCompletionCreateParamsStreaming, requestOptions)
              .withResponse(),
          consume: (events) => consumeAll(events, new ChatStreamReader(writer, label)),
        });
      } else {
        unsupportedApi(writer, model);
      }
    });

  const discoverModels = async (options: { signal?: AbortSignal } = {}): Promise<ModelDiscoveryResult> => {
    const apiKey = resolveApiKey(settings, preset, undefined);
    if (apiKey === undefined && compat.requiresApiKey) return { models: [], error: missingKey };
    try {
      const found: Model[] = [];
      for await (const entry of clients.get(apiKey).models.list({ signal: options.signal, maxRetries: 0 })) {
        const known = catalog.get(entry.id);
        if (known !== undefined) {
          found.push(known);
          continue;
        }
        const model = modelFromListing(entry as unknown as Record<string, unknown>, defaults);
        if (settings.contextWindow !== undefined) model.contextWindow = settings.contextWindow;
        if (settings.maxTokens !== undefined) model.maxTokens = settings.maxTokens;
        model.maxTokens = Math.min(model.maxTokens, model.contextWindow);
        discovered.set(model.id, model);
        found.push(model);
      }
      return { models: found };
    } catch (error) {
      const reason = classifyFailure(error, label).message ?? String(error);
      return { models: [], error: `Could not list the models at ${baseURL}/models: ${reason}` };
    }
  };

  return {
    id,
    baseURL,
    preset: presetName,
    api,
    compat,
    get models() {
      return [...catalog.values(), ...discovered.values()];
    },
    stream,
    discoverModels,
    resolveModel: (modelId) =>
      catalog.get(modelId) ??
      discovered.get(modelId) ??
      (presetName === "openai" ? undefined : unknownModel(modelId, defaults)),
    unlistedModel: (modelId) => unknownModel(modelId, defaults),
    credentials: {
      requiresApiKey: compat.requiresApiKey,
      ...(preset.apiKeyEnv === undefined ? {} : { apiKeyEnv: preset.apiKeyEnv }),
      apiKeyGiven: settings.apiKey !== undefined && settings.apiKey.trim() !== "",
    },
  };
}

/** Drains an event stream into a reader, then lets the reader end the message. */
async function consumeAll<TEvent>(
  events: AsyncIterable<TEvent>,
  reader: { push(event: TEvent): void; end(): void },
): Promise<void> {
  for await (const event of events) reader.push(event);
  reader.end();
}

function unsupportedApi(writer: AssistantStreamWriter, model: Model): void {
  writer.fail(
    "error",
    `The OpenAI provider cannot stream model "${model.id}": its api is "${model.api}", expected "openai-responses" or "openai-completions".`,
  );
}
