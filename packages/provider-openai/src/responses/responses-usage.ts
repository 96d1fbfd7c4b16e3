import type { UsageUpdate } from "@arbor/ai-providers";

/** Usage as the Responses API reports it. */
export interface ResponsesUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null;
}

/**
 * Maps Responses usage without double counting: `input_tokens` includes cached tokens (and cache
 * writes), so `input = input_tokens - cached - written`, `cacheRead = cached`; `output_tokens` already
 * includes the reasoning tokens.
 */
export function responsesUsage(usage: ResponsesUsage): UsageUpdate {
  const cacheRead = usage.input_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage.input_tokens_details?.cache_write_tokens ?? 0;
  const input = Math.max(0, (usage.input_tokens ?? 0) - cacheRead - cacheWrite);
  const output = usage.output_tokens ?? 0;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite };
}
