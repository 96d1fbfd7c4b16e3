import type { AssistantMessage, StopReason } from "./types.js";

/**
 * Context-overflow detection: tells a "the prompt no longer fits the model's context window" failure apart
 * from every other failure, so the harness can compact the conversation and try again instead of giving up
 * or retrying the same oversized request.
 */

/** One provider's overflow wording. `provider` names who sends it; `pattern` matches its error text. */
export interface OverflowPattern {
  provider: string;
  pattern: RegExp;
}

/**
 * Error texts that mean the prompt does not fit the model's context window, one entry per wording, each
 * with the provider that sends it (example texts as the providers send them):
 *
 * - Anthropic: `prompt is too long: 213462 tokens > 200000 maximum`
 * - Anthropic: ``input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease input
 *   length or `max_tokens` and try again``
 * - Anthropic (HTTP 413, request bytes):
 *   `{"type":"request_too_large","message":"Request exceeds the maximum size"}`
 * - OpenAI Responses:
 *   `Your input exceeds the context window of this model. Please adjust your input and try again.`
 * - OpenAI (error code), Groq, generic: `context_length_exceeded`, `context length exceeded`
 * - OpenAI Chat Completions, OpenRouter, vLLM, DeepSeek: `This model's maximum context length is 8192 tokens.
 *   However, you requested 9000 tokens (8000 in the messages, 1000 in the completion).`, OpenRouter:
 *   `This endpoint's maximum context length is 32768 tokens. However, you requested about 42832 tokens`
 * - Google Gemini: `The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).`
 * - xAI: `This model's maximum prompt length is 131072 but the request contains 136973 tokens.`
 * - Groq (and the legacy OpenAI / vLLM tail): `Please reduce the length of the messages or completion.`
 * - llama.cpp server: `request (4476 tokens) exceeds the available context size (4096 tokens), try increasing
 *   it`, `the request exceeds the available context size, try increasing it`, error type
 *   `exceed_context_size_error`; older builds:
 *   `input (N tokens) is larger than the max context size (M tokens)`
 * - llama.cpp server, LM Studio (mid-generation, HTTP 500): `Context size has been exceeded.`
 * - LM Studio: `The number of tokens to keep from the initial prompt is greater than the context length`,
 *   `Trying to keep the first 111490 tokens when context the overflows. However, the model is loaded with
 *   context length of only 32768 tokens`
 * - vLLM: `The decoder prompt (length 9254) is longer than the maximum model length of 4096.`,
 *   `The prompt (total length 25938) is too long to fit into the model (context length 4096).`,
 *   LiteLLM / OpenAI-compatible: `Input length (265330) exceeds model's maximum context length (262144).`
 * - Ollama: `prompt too long; exceeded max context length by 17 tokens`,
 *   `the input length exceeds the context length`
 * - Amazon Bedrock: `input is too long for requested model`
 * - Mistral: `Prompt contains 9000 tokens ... too large for model with 8192 maximum context length`
 * - Together AI: `The input (5000 tokens) is longer than the model's context length (4096 tokens).`
 * - GitHub Copilot: `prompt token count of 200000 exceeds the limit of 128000`
 * - MiniMax: `invalid params, context window exceeds limit`
 * - Kimi (Moonshot): `Your request exceeded model token limit: 262144 (requested: 291351)`
 * - Generic fallbacks: `too many tokens`, `token limit exceeded`, `tokens limit exceeded`
 *
 * A text that also matches a rate-limit or quota wording (see {@link isContextOverflowText}) is not an
 * overflow, whatever pattern it matches.
 */
export const OVERFLOW_PATTERNS: readonly OverflowPattern[] = Object.freeze([
  { provider: "Anthropic", pattern: /prompt is too long/i },
  { provider: "Anthropic", pattern: /input length and `?max_tokens`? exceed context limit/i },
  { provider: "Anthropic (HTTP 413)", pattern: /request_too_large/i },
  { provider: "OpenAI Responses", pattern: /exceeds the context window/i },
  { provider: "OpenAI, Groq, generic", pattern: /context[_ ]length[_ ]exceeded/i },
  { provider: "OpenAI, OpenRouter, vLLM, DeepSeek", pattern: /maximum context length is \d[\d,]* tokens/i },
  { provider: "Google Gemini", pattern: /input token count.*exceeds the maximum number of tokens/i },
  { provider: "xAI", pattern: /maximum prompt length is \d+/i },
  { provider: "Groq", pattern: /reduce the length of the messages/i },
  { provider: "llama.cpp server", pattern: /exceeds (?:the )?(?:available )?context size/i },
  { provider: "llama.cpp server", pattern: /exceed_context_size_error/i },
  { provider: "llama.cpp server", pattern: /is larger than the max context size/i },
  { provider: "llama.cpp server, LM Studio", pattern: /context size has been exceeded/i },
  {
    provider: "LM Studio",
    pattern: /tokens to keep from the initial prompt is greater than the context length/i,
  },
  { provider: "LM Studio", pattern: /trying to keep the first \d+ tokens when context the overflows/i },
  { provider: "vLLM", pattern: /is longer than the maximum model length/i },
  { provider: "vLLM", pattern: /is too long to fit into the model/i },
  {
    provider: "LiteLLM, OpenAI-compatible servers",
    pattern: /exceeds (?:the )?(?:model'?s )?maximum context length/i,
  },
  { provider: "Ollama", pattern: /prompt too long; exceeded (?:max )?context length/i },
  { provider: "Ollama", pattern: /input length exceeds (?:the )?context length/i },
  { provider: "Amazon Bedrock", pattern: /input is too long for requested model/i },
  { provider: "Mistral", pattern: /too large for model with \d+ maximum context length/i },
  { provider: "Together AI", pattern: /is longer than the model'?s context length/i },
  { provider: "GitHub Copilot", pattern: /prompt token count of \d+ exceeds the limit of \d+/i },
  { provider: "MiniMax", pattern: /context window exceeds limit/i },
  { provider: "Kimi (Moonshot)", pattern: /exceeded model token limit/i },
  { provider: "generic", pattern: /too many tokens/i },
  { provider: "generic", pattern: /tokens? limit exceeded/i },
]);

/**
 * Wordings that mark a text as a rate limit, throttle or quota failure. They veto an overflow match:
 * OpenAI's `Rate limit reached for gpt-4o ... on tokens per min (TPM): Limit 30000, Used 25000,
 * Requested 8000` and Groq's `Request too large for model ... on tokens per minute (TPM): Limit 6000,
 * Requested 14810` speak of tokens and limits, and Amazon Bedrock's throttle says `Too many tokens, please
 * wait before trying again.`, but none of them is about the context window.
 */
const NOT_OVERFLOW_PATTERNS: readonly RegExp[] = [
  /rate[_ -]?limit/i,
  /too many requests/i,
  /tokens per min/i,
  /\b(?:TPM|RPM|TPD|RPD)\b/,
  /\bper (?:second|minute|min|hour|day)\b/i,
  /throttl/i,
  /please wait before trying again/i,
  /quota/i,
];

const COMPLETED_STOP_REASONS: ReadonlySet<StopReason> = new Set<StopReason>(["stop", "length", "toolUse"]);

/**
 * True when an error text says the prompt does not fit the model's context window: it matches one of
 * {@link OVERFLOW_PATTERNS} and no rate-limit, throttle or quota wording.
 */
export function isContextOverflowText(text: string): boolean {
  if (text.length === 0) return false;
  if (NOT_OVERFLOW_PATTERNS.some((pattern) => pattern.test(text))) return false;
  return OVERFLOW_PATTERNS.some((entry) => entry.pattern.test(text));
}

/**
 * True when an assistant message is a context overflow, in either of two forms:
 *
 * - Rejected: `stopReason` is `"error"` and `errorMessage` is a provider's "context too long" text
 *   ({@link isContextOverflowText}).
 * - Silent: `stopReason` is `"stop"`, `"length"` or `"toolUse"` and the prompt the model saw
 *   (`usage.input + usage.cacheRead + usage.cacheWrite`) is larger than `contextWindow`. Some servers
 *   (z.ai, Ollama) truncate an oversized prompt instead of rejecting it; the usage gives them away. Only
 *   checked when `contextWindow` is a positive number.
 *
 * Overflow text inside an ordinary message's content never counts: only `errorMessage` of an error is read.
 * An `"aborted"` message is never an overflow.
 */
export function isContextOverflow(message: AssistantMessage, contextWindow?: number): boolean {
  if (message.stopReason === "error") {
    return message.errorMessage !== undefined && isContextOverflowText(message.errorMessage);
  }
  if (!COMPLETED_STOP_REASONS.has(message.stopReason)) return false;
  if (contextWindow === undefined || !Number.isFinite(contextWindow) || contextWindow <= 0) return false;
  const usage = message.usage;
  const promptTokens = usage.input + usage.cacheRead + usage.cacheWrite;
  return promptTokens > contextWindow;
}
