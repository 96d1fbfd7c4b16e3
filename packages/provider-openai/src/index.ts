/**
 * @arbor/provider-openai — the OpenAI Responses API and Chat Completions through the official `openai`
 * SDK, and any OpenAI-compatible server by `baseURL` (Ollama, vLLM, llama.cpp server, LM Studio,
 * OpenRouter, Groq, DeepSeek). The entry point is {@link createOpenAIProvider}; the rest is plain data
 * and types for settings.
 */

/** Re-exported from `@arbor/ai-providers`, where it now lives (with `Provider.discoverModels`). */
export type { ModelDiscoveryResult } from "@arbor/ai-providers";
export { OPENAI_MODELS, type OpenAIModelEntry } from "./catalog.js";
export type { MaxTokensField, OpenAICompat, ReasoningFormat } from "./compat.js";
export { InvalidOpenAISettingsError, type OpenAIProviderErrorCode } from "./errors.js";
export { OPENAI_PRESETS, type OpenAIApi, type OpenAIPreset, type OpenAIPresetName } from "./presets.js";
export { createOpenAIProvider, type OpenAIProvider } from "./provider.js";
export { DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_TOKENS, type OpenAIProviderSettings } from "./settings.js";
export { VERSION } from "./version.js";
