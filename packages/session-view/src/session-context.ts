/**
 * The context breakdown of a live harness session: {@link contextBreakdown} fed with what the session's next
 * model call sends — its system prompt, its active tools, the messages of its current branch — and the
 * harness's own usage estimate, window and threshold. The CLI's `/context` and the web demo's meter show it.
 */
import type { ContextUsage, HarnessSession } from "@arbor/harness";
import {
  type ContextBreakdown,
  contextBreakdown,
  fixedContextTokens,
  shownContextTokens,
} from "./context-breakdown.js";

/** The fixed part of the last session asked about, kept while its system prompt and tools are the same. */
let fixedCache: { systemPrompt: string; tools: readonly unknown[]; tokens: number } | undefined;

function fixedTokensOf(session: HarnessSession): number {
  const systemPrompt = session.state.systemPrompt;
  const tools = session.activeTools;
  if (fixedCache?.systemPrompt !== systemPrompt || fixedCache.tools !== tools) {
    const fixed = fixedContextTokens(systemPrompt, tools);
    fixedCache = { systemPrompt, tools, tokens: fixed.systemPrompt + fixed.tools };
  }
  return fixedCache.tokens;
}

/**
 * The session's context usage as the front ends show it: the harness's `contextUsage()` with its tokens
 * (and percent) as {@link shownContextTokens} counts them — the same figure as
 * {@link sessionContextBreakdown}'s `total`.
 *
 * Contract: reads only; O(messages after the last reported usage), like `contextUsage()`.
 */
export function sessionContextUsage(session: HarnessSession): ContextUsage {
  const usage = session.contextUsage();
  if (usage.anchored) return usage;
  const tokens = shownContextTokens(usage, fixedTokensOf(session));
  return {
    ...usage,
    tokens,
    percent: usage.contextWindow > 0 ? (tokens / usage.contextWindow) * 100 : 0,
  };
}

/**
 * What fills the context of `session`'s next model call, by category.
 *
 * Contract: reads only (builds the current branch's context once); O(messages of the context).
 */
export function sessionContextBreakdown(session: HarnessSession): ContextBreakdown {
  const usage = session.contextUsage();
  const context = session.session.buildContext();
  return contextBreakdown({
    systemPrompt: session.state.systemPrompt,
    tools: session.activeTools,
    messages: context.messages,
    entryIds: context.entryIds,
    usage: { tokens: usage.tokens, anchored: usage.anchored },
    contextWindow: usage.contextWindow,
    compactionThreshold: usage.compactionThreshold,
  });
}
