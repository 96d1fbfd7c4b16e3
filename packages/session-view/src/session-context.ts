/**
 * The context breakdown of a live harness session: {@link contextBreakdown} fed with what the session's next
 * model call sends — its system prompt, its active tools, the messages of its current branch — and the
 * harness's own usage estimate, window and threshold. The CLI's `/context` and the web demo's meter show it.
 */
import type { HarnessSession } from "@arbor/harness";
import { type ContextBreakdown, contextBreakdown } from "./context-breakdown.js";

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
