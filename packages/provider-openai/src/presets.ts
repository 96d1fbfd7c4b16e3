import { GENERIC_COMPAT, type OpenAICompat } from "./compat.js";

/** The two wire protocols: the Responses API and Chat Completions. */
export type OpenAIApi = "responses" | "chat";

/** Names of the built-in presets. `openai-compatible` is any other server. */
export type OpenAIPresetName =
  | "openai"
  | "ollama"
  | "vllm"
  | "llama-cpp"
  | "lm-studio"
  | "openrouter"
  | "groq"
  | "deepseek"
  | "openai-compatible";

/** A server's defaults, as plain data. */
export interface OpenAIPreset {
  name: OpenAIPresetName;
  /** Shown in error messages, e.g. `Ollama`. */
  label: string;
  /** The base URL a default install listens on, with the `/v1` prefix. */
  baseURL: string;
  /** The api models of this server use unless the settings say otherwise. */
  api: OpenAIApi;
  /** The environment variable read for the API key when none is given. */
  apiKeyEnv?: string;
  compat: Readonly<OpenAICompat>;
}

const OPENAI_COMPAT: Readonly<OpenAICompat> = Object.freeze({
  supportsDeveloperRole: true,
  supportsUsageInStreaming: true,
  maxTokensField: "max_completion_tokens",
  supportsReasoningEffort: true,
  reasoningFormat: "openai",
  reasoningEfforts: [],
  requiresApiKey: true,
  supportsEncryptedReasoning: true,
  supportsPromptCacheKey: true,
});

/**
 * The built-in presets (checked 2026-11-30 against each server's documentation):
 *
 * - `openai`: api.openai.com, Responses API, key from `OPENAI_API_KEY`.
 * - `ollama`: `ollama serve` on port 11434; streams thinking as `delta.reasoning`.
 * - `vllm`: `vllm serve` on port 8000; reasoning parsers stream `reasoning_content` (newer: `reasoning`).
 * - `llama-cpp`: `llama-server` on port 8080; `--reasoning-format` streams `reasoning_content`.
 * - `lm-studio`: LM Studio's local server on port 1234.
 * - `openrouter`: openrouter.ai, key from `OPENROUTER_API_KEY`; `reasoning: { effort }`.
 * - `groq`: api.groq.com, key from `GROQ_API_KEY`; `max_completion_tokens`, `reasoning_effort`.
 * - `deepseek`: api.deepseek.com, key from `DEEPSEEK_API_KEY`; `deepseek-reasoner` streams
 *   `reasoning_content`.
 * - `openai-compatible`: anything else ({@link GENERIC_COMPAT}).
 */
export const OPENAI_PRESETS: Readonly<Record<OpenAIPresetName, OpenAIPreset>> = Object.freeze({
  openai: {
    name: "openai",
    label: "OpenAI",
    baseURL: "https://api.openai.com/v1",
    api: "responses",
    apiKeyEnv: "OPENAI_API_KEY",
    compat: OPENAI_COMPAT,
  },
  ollama: {
    name: "ollama",
    label: "Ollama",
    baseURL: "http://127.0.0.1:11434/v1",
    api: "chat",
    compat: GENERIC_COMPAT,
  },
  vllm: {
    name: "vllm",
    label: "vLLM",
    baseURL: "http://127.0.0.1:8000/v1",
    api: "chat",
    apiKeyEnv: "VLLM_API_KEY",
    compat: Object.freeze({ ...GENERIC_COMPAT, supportsReasoningEffort: true }),
  },
  "llama-cpp": {
    name: "llama-cpp",
    label: "llama.cpp server",
    baseURL: "http://127.0.0.1:8080/v1",
    api: "chat",
    compat: GENERIC_COMPAT,
  },
  "lm-studio": {
    name: "lm-studio",
    label: "LM Studio",
    baseURL: "http://127.0.0.1:1234/v1",
    api: "chat",
    compat: GENERIC_COMPAT,
  },
  openrouter: {
    name: "openrouter",
    label: "OpenRouter",
    baseURL: "https://openrouter.ai/api/v1",
    api: "chat",
    apiKeyEnv: "OPENROUTER_API_KEY",
    compat: Object.freeze({
      ...GENERIC_COMPAT,
      supportsReasoningEffort: true,
      reasoningFormat: "openrouter",
      requiresApiKey: true,
    }),
  },
  groq: {
    name: "groq",
    label: "Groq",
    baseURL: "https://api.groq.com/openai/v1",
    api: "chat",
    apiKeyEnv: "GROQ_API_KEY",
    compat: Object.freeze({
      ...GENERIC_COMPAT,
      maxTokensField: "max_completion_tokens",
      supportsReasoningEffort: true,
      requiresApiKey: true,
    }),
  },
  deepseek: {
    name: "deepseek",
    label: "DeepSeek",
    baseURL: "https://api.deepseek.com/v1",
    api: "chat",
    apiKeyEnv: "DEEPSEEK_API_KEY",
    compat: Object.freeze({ ...GENERIC_COMPAT, requiresApiKey: true }),
  },
  "openai-compatible": {
    name: "openai-compatible",
    label: "OpenAI-compatible server",
    baseURL: "http://127.0.0.1:8000/v1",
    api: "chat",
    compat: GENERIC_COMPAT,
  },
});

/** Host names that identify a hosted service. */
const HOSTS: readonly [RegExp, OpenAIPresetName][] = [
  [/(^|\.)api\.openai\.com$/i, "openai"],
  [/(^|\.)openrouter\.ai$/i, "openrouter"],
  [/(^|\.)groq\.com$/i, "groq"],
  [/(^|\.)deepseek\.com$/i, "deepseek"],
  [/ollama/i, "ollama"],
  [/lmstudio|lm-studio/i, "lm-studio"],
  [/vllm/i, "vllm"],
  [/llama[-.]?cpp|llama-server/i, "llama-cpp"],
];

/** Default ports of the local servers (only a hint: any server may listen anywhere). */
const PORTS: ReadonlyMap<string, OpenAIPresetName> = new Map([
  ["11434", "ollama"],
  ["1234", "lm-studio"],
  ["8000", "vllm"],
  ["8080", "llama-cpp"],
]);

/**
 * Guesses the preset of a base URL: known host names first (`api.openai.com`, `openrouter.ai`,
 * `api.groq.com`, `api.deepseek.com`, a host naming ollama / lmstudio / vllm / llama-cpp), then the
 * default ports of the local servers (11434 Ollama, 1234 LM Studio, 8000 vLLM, 8080 llama.cpp), else
 * `openai-compatible`. A URL that does not parse is `openai-compatible`.
 */
export function detectPreset(baseURL: string): OpenAIPresetName {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return "openai-compatible";
  }
  for (const [pattern, name] of HOSTS) {
    if (pattern.test(url.hostname)) return name;
  }
  return PORTS.get(url.port) ?? "openai-compatible";
}
