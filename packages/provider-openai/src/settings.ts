import type { Model, RetryPolicy, StreamOptions } from "@arbor/ai-providers";
import type { OpenAICompat } from "./compat.js";
import type { OpenAIApi, OpenAIPresetName } from "./presets.js";

/** Context window assumed for a model neither the catalog nor the server describes. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** Output limit assumed for a model neither the catalog nor the server describes. */
export const DEFAULT_MAX_TOKENS = 16_384;

/** Settings of {@link createOpenAIProvider}. Every field is optional. */
export interface OpenAIProviderSettings {
  /**
   * The server's base URL including its `/v1` prefix. Default: for the `openai` preset (or no preset), the
   * `OPENAI_BASE_URL` environment variable when it is set (the SDK's convention, read when the provider is
   * created); else the preset's (api.openai.com for `openai`, `http://127.0.0.1:11434/v1` for `ollama`, …).
   */
  baseURL?: string;
  /** The preset to start from; default detected from `baseURL` (`openai` when there is none). */
  preset?: OpenAIPresetName;
  /** The provider id (the `provider` of its models); default the preset's name. */
  id?: string;
  /** API key; default the preset's environment variable (`OPENAI_API_KEY`, …), read at each request. */
  apiKey?: string;
  /** The wire protocol of the models this provider lists and resolves; default the preset's. */
  api?: OpenAIApi;
  /** Overrides of the preset's compatibility switches (a model's own `compat` overrides these). */
  compat?: Partial<OpenAICompat>;
  /** Extra models, or replacements of catalog rows with the same id. */
  models?: Model[];
  /** Context window of discovered or unknown models; default {@link DEFAULT_CONTEXT_WINDOW}. */
  contextWindow?: number;
  /** Output limit of discovered or unknown models; default {@link DEFAULT_MAX_TOKENS}. */
  maxTokens?: number;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** `OpenAI-Organization` header (api.openai.com only; default `OPENAI_ORG_ID`). */
  organization?: string;
  /** `OpenAI-Project` header (api.openai.com only; default `OPENAI_PROJECT_ID`). */
  project?: string;
  /** Time limit of one HTTP request in milliseconds; default the SDK's (10 minutes). */
  timeoutMs?: number;
  /**
   * Abandon (and retry) an attempt when the server sends no byte for this long, in ms — from the request to
   * the end of the response; `0` turns it off. `StreamOptions.streamIdleTimeoutMs` overrides it per request.
   * Default `DEFAULT_STREAM_IDLE_TIMEOUT_MS` of @arbor/ai-providers (60 s).
   */
  streamIdleTimeoutMs?: number;
  /** Overrides of the retry policy of @arbor/ai-providers (the SDK's own retries are off). */
  retry?: Partial<RetryPolicy>;
  /** Reasoning summaries requested from the Responses API; default `auto`, `off` asks for none. */
  reasoningSummary?: "auto" | "concise" | "detailed" | "off";
  /**
   * Sees (and may replace) every request body, before the per-request `onPayload`.
   *
   * Contract: as `StreamOptions.onPayload` — may return a new body or `undefined`; may be async; a
   * throw ends the stream with an `error` message naming the hook. The body must keep `stream: true`.
   */
  onPayload?: StreamOptions["onPayload"];
  /**
   * Called once per HTTP response (each retry included) with its status and headers, before the
   * per-request `onResponse`.
   *
   * Contract: for observation only; a throw or rejection is ignored.
   */
  onResponse?: StreamOptions["onResponse"];
}
