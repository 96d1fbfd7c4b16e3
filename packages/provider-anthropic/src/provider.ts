import { APIError } from "@anthropic-ai/sdk";
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import type { Stream } from "@anthropic-ai/sdk/core/streaming";
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import {
  type AssistantStream,
  abortMessage,
  type Context,
  checkIdleTimeout,
  createProviderStream,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  idleTimeoutFetch,
  type Model,
  type Provider,
  type ProviderResponseInfo,
  type RetryPolicy,
  resolveRetryPolicy,
  retryWithPolicy,
  type StreamOptions,
} from "@arbor/ai-providers";
import {
  BrokenStreamProtocolError,
  classifyFailure,
  describeFailure,
  HookError,
  headersRecord,
  InterruptedStreamError,
  MISSING_API_KEY_MESSAGE,
} from "./errors.js";
import { ANTHROPIC_PROVIDER_ID, anthropicModels, unlistedModel, withoutSnapshotDate } from "./models.js";
import { type AnthropicRequestBody, buildRequestBody } from "./request.js";
import type { AnthropicProviderSettings } from "./settings.js";
import { AnthropicStreamState } from "./stream-events.js";

type ResponseHook = (info: ProviderResponseInfo, model: Model) => void | Promise<void>;
type PayloadHook = (body: unknown, model: Model) => unknown | undefined | Promise<unknown | undefined>;

/** Calls observation hooks; their failures are ignored (contract of `onResponse`). */
async function notify(hooks: (ResponseHook | undefined)[], info: ProviderResponseInfo, model: Model) {
  for (const hook of hooks) {
    if (hook === undefined) continue;
    try {
      await hook(info, model);
    } catch {
      // Observation only.
    }
  }
}

/** Runs the payload hooks in order; each may replace the body. */
async function applyPayloadHooks(
  body: AnthropicRequestBody,
  hooks: [name: string, hook: PayloadHook | undefined][],
  model: Model,
): Promise<AnthropicRequestBody> {
  let current: unknown = body;
  for (const [name, hook] of hooks) {
    if (hook === undefined) continue;
    try {
      const replaced = await hook(current, model);
      if (replaced !== undefined) current = replaced;
    } catch (error) {
      throw new HookError(name, error);
    }
  }
  return current as AnthropicRequestBody;
}

/**
 * Sends one streaming Messages API request through the SDK's client: `POST /v1/messages` with
 * `stream: true`, parsed into raw events by the SDK. The SDK's `messages.create()` is not used: it prints
 * its own notices with `console.warn` (a model in its deprecation table, `thinking.type: "enabled"` on some
 * models), which would reach the terminal beside Arbor's output. Using the base client also leaves out the
 * SDK's `Anthropic` class and its other resources (beta, organization, files, …): some 0.8 MB of code that a
 * bundle (the `arbor` CLI) would parse on every start for nothing.
 */
function postMessages(
  client: BaseAnthropic,
  body: AnthropicRequestBody,
  options: { signal: AbortSignal | undefined; headers: Record<string, string> },
) {
  return client.post<Stream<RawMessageStreamEvent>>("/v1/messages", {
    body,
    stream: true,
    headers: options.headers,
    signal: options.signal,
  });
}

/**
 * Creates the Anthropic provider: the Messages API through `@anthropic-ai/sdk`, streamed
 * (`POST /v1/messages` with `stream: true` through the SDK's client, raw events, no SDK-side
 * accumulation), with the Claude catalog as its models.
 *
 * Each `stream()` call:
 * 1. ends at once with an `error` message, sending nothing, when no API key is configured;
 * 2. builds the body (thinking level, prompt caching, converted messages, tools) and passes it through
 *    `settings.onPayload` then `options.onPayload`;
 * 3. sends it, retrying transient failures (429 honouring `retry-after`, 5xx, 529 overloaded, dropped
 *    connections, an `overloaded_error` before any content) with the retry policy of
 *    `@arbor/ai-providers` (the SDK's own retries are off); a `retry-after` longer than
 *    `maxRetryDelayMs` fails at once saying how long the server asked to wait;
 * 4. reports each HTTP response to `onResponse`, then streams the events; an attempt during which the
 *    server sends nothing for `streamIdleTimeoutMs` (default 60 s) is abandoned and retried.
 *
 * Failures end the stream as data (see `describeFailure`): HTTP errors with their status and the
 * server's message (a "prompt is too long" rejection is recognized by `isContextOverflow`), a stream
 * that breaks after content keeps that content with `stopReason: "error"`, a stream that breaks the event
 * protocol ends as an `error` at once and is not retried (see `AnthropicStreamState`), an abort gives
 * `"aborted"`. What each response holds is read by `AnthropicStreamState`.
 */
export function createAnthropicProvider(settings: AnthropicProviderSettings = {}): Provider {
  const id = settings.id ?? ANTHROPIC_PROVIDER_ID;
  if (settings.retry !== undefined) resolveRetryPolicy(settings.retry); // invalid settings throw here
  checkIdleTimeout("settings.streamIdleTimeoutMs", settings.streamIdleTimeoutMs);
  const catalog = anthropicModels(id, settings.baseURL);
  const extra = (settings.models ?? []).map((model) => ({ ...model, provider: model.provider || id }));
  const models: Model[] = [
    ...(settings.listCatalog === false ? [] : catalog).filter(
      (model) => !extra.some((candidate) => candidate.id === model.id),
    ),
    ...extra,
  ];
  const clients = new Map<string, BaseAnthropic>();

  const clientFor = (apiKey: string, baseURL: string | undefined, idleMs: number): BaseAnthropic => {
    const key = `${baseURL ?? ""}\n${idleMs}\n${apiKey}`;
    let client = clients.get(key);
    if (client === undefined) {
      const base: typeof fetch = settings.fetch ?? ((input, init) => globalThis.fetch(input, init));
      client = new BaseAnthropic({
        apiKey,
        maxRetries: 0,
        ...(baseURL !== undefined ? { baseURL } : {}),
        ...(settings.timeoutMs !== undefined ? { timeout: settings.timeoutMs } : {}),
        ...(idleMs > 0 || settings.fetch !== undefined ? { fetch: idleTimeoutFetch(base, idleMs) } : {}),
      });
      if (clients.size >= 8) clients.clear();
      clients.set(key, client);
    }
    return client;
  };

  const known = [...models, ...catalog];
  const resolveModel = (modelId: string): Model | undefined => {
    const found = known.find((model) => model.id === modelId);
    if (found !== undefined) return found;
    const base = withoutSnapshotDate(modelId);
    const snapshotOf = base === undefined ? undefined : known.find((model) => model.id === base);
    return snapshotOf === undefined
      ? undefined
      : { ...snapshotOf, id: modelId, name: `${snapshotOf.name} (${modelId})` };
  };

  const stream = (model: Model, context: Context, options?: StreamOptions): AssistantStream =>
    createProviderStream(model, options, async ({ writer, signal }) => {
      const apiKey = options?.apiKey ?? settings.apiKey ?? process.env.ANTHROPIC_API_KEY;
      if (apiKey === undefined || apiKey.trim() === "") {
        writer.fail("error", MISSING_API_KEY_MESSAGE);
        return;
      }
      const responseHooks = [settings.onResponse, options?.onResponse];
      const policy: Partial<RetryPolicy> = { ...settings.retry };
      if (options?.maxRetries !== undefined) policy.maxRetries = options.maxRetries;
      if (options?.maxRetryDelayMs !== undefined) policy.maxRetryDelayMs = options.maxRetryDelayMs;
      const headers = { ...settings.headers, ...model.headers, ...options?.headers };
      const longRetention = (options?.cacheRetention ?? settings.cacheRetention) === "long";
      try {
        const body = await applyPayloadHooks(
          buildRequestBody(model, context, options, settings),
          [
            ["settings.onPayload", settings.onPayload],
            ["onPayload", options?.onPayload],
          ],
          model,
        );
        const idleMs =
          options?.streamIdleTimeoutMs ?? settings.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
        const client = clientFor(apiKey, settings.baseURL ?? model.baseUrl, idleMs);
        await retryWithPolicy(
          async () => {
            const state = new AnthropicStreamState(writer, model, longRetention, resolveModel);
            let events: AsyncIterable<RawMessageStreamEvent>;
            try {
              const { data, response } = await postMessages(client, body, { signal, headers }).withResponse();
              events = data;
              await notify(
                responseHooks,
                { status: response.status, headers: headersRecord(response.headers) },
                model,
              );
            } catch (error) {
              if (error instanceof APIError && error.status !== undefined) {
                await notify(
                  responseHooks,
                  { status: error.status, headers: headersRecord(error.headers) },
                  model,
                );
              }
              throw error;
            }
            try {
              for await (const event of events) state.handle(event);
              if (signal?.aborted) return;
              state.finish();
            } catch (error) {
              if (signal?.aborted || !state.streamedContent) throw error;
              if (error instanceof BrokenStreamProtocolError) throw error;
              throw new InterruptedStreamError(error);
            }
          },
          { policy, signal, classify: classifyFailure },
        );
      } catch (error) {
        if (signal?.aborted) writer.fail("aborted", abortMessage(signal));
        else writer.fail("error", describeFailure(error));
      }
    });

  return {
    id,
    models,
    stream,
    resolveModel,
    unlistedModel: (modelId) =>
      unlistedModel(id, modelId, {
        ...(settings.contextWindow === undefined ? {} : { contextWindow: settings.contextWindow }),
        ...(settings.maxTokens === undefined ? {} : { maxTokens: settings.maxTokens }),
        ...(settings.baseURL === undefined ? {} : { baseUrl: settings.baseURL }),
      }),
    credentials: {
      requiresApiKey: true,
      apiKeyEnv: "ANTHROPIC_API_KEY",
      apiKeyGiven: settings.apiKey !== undefined && settings.apiKey.trim() !== "",
    },
  };
}
