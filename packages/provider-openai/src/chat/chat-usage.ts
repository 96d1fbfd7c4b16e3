import type { UsageUpdate } from "@arbor/ai-providers";

/** Usage counters as Chat Completions servers report them (OpenAI, DeepSeek, Groq, xAI, vLLM, …). */
export interface ChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** DeepSeek's name for cached prompt tokens. */
  prompt_cache_hit_tokens?: number | null;
}

/**
 * Maps Chat Completions usage without double counting: `prompt_tokens` includes the cached tokens (and
 * cache writes), so `input` is what is left after taking them out; `output` is every token the model
 * produced, reasoning included. `completion_tokens` already includes the reasoning tokens on most
 * servers; xAI leaves them out (its `total_tokens` is prompt + completion + reasoning), and there they
 * are added.
 */
export function chatUsage(usage: ChatUsage): UsageUpdate {
  const prompt = usage.prompt_tokens ?? 0;
  const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0;
  const cacheWrite = usage.prompt_tokens_details?.cache_write_tokens ?? 0;
  const input = Math.max(0, prompt - cacheRead - cacheWrite);
  const completion = usage.completion_tokens ?? 0;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  const total = usage.total_tokens;
  const reasoningApart =
    reasoning > 0 && typeof total === "number" && total === prompt + completion + reasoning;
  const output = reasoningApart ? completion + reasoning : completion;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite };
}
