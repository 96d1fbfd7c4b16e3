import type { AgentMessage } from "@arbor/agent-core";
import {
  type ContextTokenEstimate,
  estimateContextTokens,
  estimateTokens,
  usageTokensOf,
} from "@arbor/compaction";
import type { SessionMessage } from "@arbor/session-store";
import { asSessionMessage } from "./messages.js";

/** How full the model's context window is, as the harness estimates it before each model call. */
export interface ContextUsage {
  /** Estimated context tokens (seed 000 section 4: last reported usage + chars/4 of the messages after it). */
  tokens: number;
  /** The model's context window. */
  contextWindow: number;
  /** `tokens / contextWindow` as a percentage (0 to 100 and beyond). */
  percent: number;
  /** Automatic compaction runs above this many tokens: `contextWindow - reserveTokens`. */
  compactionThreshold: number;
  /** True when `tokens` rests on provider-reported usage, false when it is chars/4 throughout. */
  anchored: boolean;
}

/**
 * {@link estimateContextTokens} over an agent transcript, reading only its tail: the messages after the last
 * assistant message whose usage counts, plus the compaction summary the transcript starts with (a harness
 * transcript holds one there at most, since it comes from `Session.buildContext()`). The result equals
 * `estimateContextTokens(messages)` for such transcripts; the cost is O(messages after the anchor), not
 * O(transcript), so the check before every model call does not grow with the session.
 *
 * Contract: pure; never throws for well-formed messages.
 */
export function estimateTranscriptTokens(transcript: readonly AgentMessage[]): ContextTokenEstimate {
  const messages = transcript as readonly SessionMessage[];
  const first = messages[0];
  const summary = first !== undefined && first.role === "compactionSummary" ? first : undefined;
  const compactionTime = summary?.timestamp ?? 0;
  const floor = summary === undefined ? 0 : 1;
  let start = floor;
  for (let index = messages.length - 1; index >= floor; index--) {
    const message = messages[index]!;
    if (usageTokensOf(message) !== undefined && !isStale(message.timestamp, compactionTime)) {
      start = index;
      break;
    }
  }
  if (start === floor) return estimateContextTokens(messages);
  // The window starts at the anchor (after the summary, kept for the staleness rule of what follows).
  const window = summary === undefined ? messages.slice(start) : [summary, ...messages.slice(start)];
  return shift(estimateContextTokens(window), start - floor);
}

/** Adds the tokens of messages about to be sent (a prompt not yet in the transcript) to an estimate. */
export function withPendingMessages(
  estimate: ContextTokenEstimate,
  pending: readonly AgentMessage[],
): ContextTokenEstimate {
  let extra = 0;
  for (const message of pending) extra += estimateTokens(asSessionMessage(message));
  if (extra === 0) return estimate;
  return { ...estimate, tokens: estimate.tokens + extra, trailingTokens: estimate.trailingTokens + extra };
}

/** The {@link ContextUsage} of an estimate against a window and a reserve. */
export function contextUsageOf(
  estimate: ContextTokenEstimate,
  contextWindow: number,
  reserveTokens: number,
): ContextUsage {
  return {
    tokens: estimate.tokens,
    contextWindow,
    percent: contextWindow > 0 ? (estimate.tokens / contextWindow) * 100 : 0,
    compactionThreshold: contextWindow - reserveTokens,
    anchored: estimate.lastUsageIndex !== undefined,
  };
}

function shift(estimate: ContextTokenEstimate, offset: number): ContextTokenEstimate {
  if (estimate.lastUsageIndex === undefined) return estimate;
  return { ...estimate, lastUsageIndex: estimate.lastUsageIndex + offset };
}

/** The same staleness rule as `estimateContextTokens`: usage measured before the latest compaction. */
function isStale(timestamp: number, compactionTime: number): boolean {
  return compactionTime > 0 && Number.isFinite(timestamp) && timestamp > 0 && timestamp <= compactionTime;
}
