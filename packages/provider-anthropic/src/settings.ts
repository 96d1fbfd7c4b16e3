import type {
  CacheRetention,
  Model,
  ProviderResponseInfo,
  RetryPolicy,
  ThinkingLevel,
} from "@arbor/ai-providers";

/** Thinking budgets in tokens per level, for models that take a budget (`thinking.type: "enabled"`). */
export type AnthropicThinkingBudgets = Partial<Record<Exclude<ThinkingLevel, "off">, number>>;

/** Settings of {@link createAnthropicProvider}. Every field is optional. */
export interface AnthropicProviderSettings {
  /** Provider id (the `provider` of its models). Default `anthropic`. */
  id?: string;
  /** API key. Default: the `ANTHROPIC_API_KEY` environment variable, read at each request. */
  apiKey?: string;
  /**
   * Base URL of the API (e.g. a proxy or a local test server), without `/v1`. Default: the
   * `ANTHROPIC_BASE_URL` environment variable (the SDK's convention), else `https://api.anthropic.com`.
   */
  baseURL?: string;
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
  /** Timeout of one HTTP attempt in milliseconds. Default: the SDK's (10 minutes). */
  timeoutMs?: number;
  /**
   * Abandon (and retry) an attempt when the server sends no byte for this long, in ms — from the request to
   * the end of the response; `0` turns it off. `StreamOptions.streamIdleTimeoutMs` overrides it per request.
   * Default `DEFAULT_STREAM_IDLE_TIMEOUT_MS` of `@arbor/ai-providers` (60 s).
   */
  streamIdleTimeoutMs?: number;
  /**
   * Retry policy for transient failures (429, 5xx, 529 overloaded, dropped connections), merged over
   * `DEFAULT_RETRY_POLICY` of `@arbor/ai-providers`. The SDK's own retries are off, so this policy is
   * the only one. `StreamOptions.maxRetries` and `maxRetryDelayMs` override it per request.
   */
  retry?: Partial<RetryPolicy>;
  /** Prompt-cache lifetime when the request does not say. Default `short` (5 minutes). */
  cacheRetention?: CacheRetention;
  /** Thinking budgets per level for budget-thinking models (defaults: 1024, 4096, 16384, 32768, 65536). */
  thinkingBudgets?: AnthropicThinkingBudgets;
  /**
   * How thinking appears in responses: `summarized` (default: readable thinking text) or `omitted`
   * (empty thinking text, signature only — faster to first text token).
   */
  thinkingDisplay?: "summarized" | "omitted";
  /** Models to list in addition to (or, with the same id, instead of) the built-in catalog. */
  models?: Model[];
  /**
   * Whether `models` lists the built-in Claude catalog. Default `true`; `false` for an Anthropic-compatible
   * endpoint that serves other models (the catalog's ids still resolve through `resolveModel`).
   */
  listCatalog?: boolean;
  /** Context window of a model the catalog does not list (`unlistedModel`). Default 200,000. */
  contextWindow?: number;
  /** Output limit of a model the catalog does not list. Default 16,384. */
  maxTokens?: number;
  /**
   * Sees (and may replace) every request body before it is sent; runs before `StreamOptions.onPayload`.
   *
   * Contract: may return a new body or `undefined` to keep it; may be async; a throw ends the stream
   * with an `error` message naming the hook.
   */
  onPayload?: (body: unknown, model: Model) => unknown | undefined | Promise<unknown | undefined>;
  /**
   * Called once per HTTP response (errors and retried attempts included) with its status and headers,
   * before the body is read; runs before `StreamOptions.onResponse`.
   *
   * Contract: for observation only; a throw is ignored.
   */
  onResponse?: (info: ProviderResponseInfo, model: Model) => void | Promise<void>;
  /** A `fetch` implementation for the SDK (tests, proxies). Default: the global `fetch`. */
  fetch?: typeof fetch;
}
