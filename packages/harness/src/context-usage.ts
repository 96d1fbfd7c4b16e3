import type { AgentMessage } from "@arbor/agent-core";
import {
  type CompactionSettings,
  type ContextTokenEstimate,
  compactionThreshold,
  estimateContextTokensFromTail,
  estimateTokens,
} from "@arbor/compaction";
import type { SessionMessage } from "@arbor/session-store";
import { asSessionMessage } from "./messages.js";

/** How full the model's context window is, as the harness estimates it before each model call. */
export interface ContextUsage {
  /** Estimated context tokens (docs/reference/harness.md: last reported usage + chars/4 of the messages after it). */
  tokens: number;
  /** The model's context window. */
  contextWindow: number;
  /** `tokens / contextWindow` as a percentage (0 to 100 and beyond). */
  percent: number;
  /** Automatic compaction runs above this many tokens: `contextWindow - reserveTokens`. */
  compactionThreshold: number;
  /** The reserve in effect: `compaction.reserveTokens`, clamped when it cannot work for the window. */
  reserveTokens: number;
  /** True when `tokens` rests on provider-reported usage, false when it is chars/4 throughout. */
  anchored: boolean;
}

/**
 * The context estimate of an agent transcript, reading only its tail: `estimateContextTokensFromTail` of
 * `@arbor/compaction` (a harness transcript comes from `Session.buildContext()`, so a compaction summary can
 * only be its first message). Equals `estimateContextTokens(messages)`; O(messages after the anchor), so the
 * check before every model call does not grow with the session.
 *
 * Contract: pure; never throws for well-formed messages.
 */
export function estimateTranscriptTokens(transcript: readonly AgentMessage[]): ContextTokenEstimate {
  return estimateContextTokensFromTail(transcript as readonly SessionMessage[]);
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

/** The {@link ContextUsage} of an estimate against a window and the compaction settings in effect. */
export function contextUsageOf(
  estimate: ContextTokenEstimate,
  contextWindow: number,
  settings: Pick<CompactionSettings, "reserveTokens" | "thresholdPercent">,
): ContextUsage {
  const { reserveTokens } = settings;
  return {
    tokens: estimate.tokens,
    contextWindow,
    percent: contextWindow > 0 ? (estimate.tokens / contextWindow) * 100 : 0,
    compactionThreshold: compactionThreshold(contextWindow, settings),
    reserveTokens,
    anchored: estimate.lastUsageIndex !== undefined,
  };
}
