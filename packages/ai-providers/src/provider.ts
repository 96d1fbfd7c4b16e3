import type { AssistantStream } from "./assistant-stream.js";
import type { Context, Model, ThinkingLevel } from "./types.js";

/** How long a provider should ask the server to keep a prompt cache. */
export type CacheRetention = "none" | "short" | "long";

/** What a provider reports about an HTTP response, for logging and metrics. */
export interface ProviderResponseInfo {
  status: number;
  headers: Record<string, string>;
}

/** Options of one streaming request. Every field is optional; providers ignore what they cannot use. */
export interface StreamOptions {
  /** Aborts the request; the stream then ends with `stopReason: "aborted"`, partial content kept. */
  signal?: AbortSignal;
  /** Overrides the provider's configured API key for this request. */
  apiKey?: string;
  /** Reasoning effort; `off` or absent disables thinking. Clamped to what the model allows. */
  reasoning?: ThinkingLevel;
  /** Output token limit; defaults to the model's `maxTokens` (clamped by the provider). */
  maxTokens?: number;
  temperature?: number;
  /** Prompt-cache lifetime; default `short`. */
  cacheRetention?: CacheRetention;
  /** A stable id for the conversation (providers may use it for cache routing). */
  sessionId?: string;
  /** Extra HTTP headers. */
  headers?: Record<string, string>;
  /** Longest server-requested retry delay (`retry-after`) to wait for; longer fails at once. Default 60 s. */
  maxRetryDelayMs?: number;
  /** Maximum automatic retries of transient failures inside the provider. Default from the retry policy. */
  maxRetries?: number;
  /**
   * Abandon an attempt (a transient failure, so it is retried) when the server sends no byte for this long,
   * in ms, from the request until the end of the response; `0` turns it off. Default: the provider's setting,
   * else `DEFAULT_STREAM_IDLE_TIMEOUT_MS` (60 s).
   */
  streamIdleTimeoutMs?: number;
  /**
   * Sees (and may replace) the request body just before it is sent.
   *
   * Contract: may return a new body or `undefined` to keep it; may be async; a throw ends the stream
   * with an `error` message naming the hook.
   */
  onPayload?: (body: unknown, model: Model) => unknown | undefined | Promise<unknown | undefined>;
  /**
   * Called once per HTTP response with its status and headers, before the body is read.
   *
   * Contract: for observation only; a throw is ignored.
   */
  onResponse?: (info: ProviderResponseInfo, model: Model) => void | Promise<void>;
}

/**
 * Streams one assistant response. This is the only thing agent-core and compaction receive; they
 * never import a provider.
 *
 * Contract: never throws once called — every failure (network, HTTP status, missing key, abort,
 * invalid input) ends the returned stream with an `error` event whose message has `stopReason`
 * `"error"` or `"aborted"` and an `errorMessage`.
 */
export type StreamFn = (model: Model, context: Context, options?: StreamOptions) => AssistantStream;

/**
 * A source of models: one vendor, one endpoint, one fake. Implementations are created by a factory
 * (`createAnthropicProvider(settings)`), hold no global state, and pass `describeProvider()`.
 */
export interface Provider {
  /** Unique id within a registry, e.g. `anthropic`; the `provider` field of its models. */
  readonly id: string;
  /** The models this provider knows (its catalog), as plain data. */
  readonly models: readonly Model[];
  /**
   * Streams one response.
   *
   * Contract: as {@link StreamFn} — never throws; failures end the stream as data. `model.provider`
   * should equal `id`, but a provider must accept any model whose `api` it speaks.
   */
  stream(model: Model, context: Context, options?: StreamOptions): AssistantStream;
  /**
   * Optional lookup of a model the catalog does not list (e.g. one a local server reports).
   *
   * Contract: returns `undefined` when the id is unknown; never throws.
   */
  resolveModel?(modelId: string): Model | undefined;
  /**
   * Optional: a model for an id that neither the catalog nor {@link resolveModel} knows — a model released
   * after the catalog, a gateway's or proxy's deployment name — with the provider's stated default limits
   * and no price. Apps that accept any id use it and tell the user the id is not in the catalog.
   *
   * Contract: returns a model with this `id` and `provider` equal to {@link id}; never throws; sends nothing.
   */
  unlistedModel?(modelId: string): Model;
  /**
   * Optional, plain data: what the provider needs to send a request, so that an app can check it before the
   * first one (and say which flag or variable to set) instead of failing at the first prompt.
   */
  readonly credentials?: ProviderCredentials;
  /**
   * Optional: asks the provider's server which models it serves (e.g. `GET /models` of an OpenAI-compatible
   * server) and adds those the catalog does not know to {@link models}.
   *
   * Contract: never rejects; a failure (unreachable server, HTTP error, missing key) is returned as `error`
   * with no models.
   */
  discoverModels?(options?: { signal?: AbortSignal }): Promise<ModelDiscoveryResult>;
}

/** The outcome of {@link Provider.discoverModels}: the models found, or why none could be listed. */
export interface ModelDiscoveryResult {
  /** Every model the server lists (catalog rows for the ids the catalog knows). Empty on failure. */
  models: Model[];
  /** Set when the list could not be read: what happened, in words a user can act on. */
  error?: string;
}

/** What a provider needs to send a request (see {@link Provider.credentials}). */
export interface ProviderCredentials {
  /** Whether a request needs an API key (a local server usually does not). */
  requiresApiKey: boolean;
  /** The environment variable the key is read from when none is given, e.g. `ANTHROPIC_API_KEY`. */
  apiKeyEnv?: string;
  /** Whether a key was given in the provider's settings (then the variable is not needed). */
  apiKeyGiven?: boolean;
}
