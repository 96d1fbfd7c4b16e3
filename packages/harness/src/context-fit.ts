import type { AgentMessage } from "@arbor/agent-core";
import { type ElidedMessage, elideOversizedMessages } from "@arbor/compaction";
import type { SessionMessage } from "@arbor/session-store";
import { estimateTranscriptTokens } from "./context-usage.js";

/**
 * The last step before a model call: when the context still does not fit after compaction (one message
 * larger than the window), the largest messages are cut in the middle for this call only
 * (`elideOversizedMessages` of `@arbor/compaction`); the entries in the session stay whole.
 */

/** What {@link fitContextToWindow} needs. */
export interface ContextFitOptions {
  /** Tokens the messages may take: the window minus the reserve. */
  budgetTokens: number;
  /** The entry a message is stored as (named in the marker, for `recall`). */
  entryIdOf: (message: AgentMessage, index: number) => string | undefined;
  /**
   * Estimate every message instead of reading the tail only. Needed once a call was elided: the usage the
   * provider reported then counts the cut messages, not the whole ones still in the transcript.
   */
  fullEstimate?: boolean;
}

/** What {@link fitContextToWindow} returns. */
export interface ContextFit {
  /** The messages to send: the input itself when it fits. */
  messages: AgentMessage[];
  /** What was cut (empty when it fits). */
  elided: ElidedMessage[];
}

/**
 * Fits the model-facing messages into `budgetTokens`: the estimate of `estimateTranscriptTokens` (reading
 * only the tail, unless `fullEstimate`) decides; when over, the largest messages except the newest user prompt are elided.
 *
 * Contract: never throws; returns the same array when it fits, a new one otherwise (never changes the
 * input). O(messages after the last reply) when it fits.
 */
export function fitContextToWindow(messages: AgentMessage[], options: ContextFitOptions): ContextFit {
  if (options.fullEstimate !== true && estimateTranscriptTokens(messages).tokens <= options.budgetTokens) {
    return { messages, elided: [] };
  }
  const entryIds = messages.map((message, index) => options.entryIdOf(message, index));
  const result = elideOversizedMessages(
    { messages: messages as unknown as readonly SessionMessage[], entryIds },
    options.budgetTokens,
  );
  if (result.elided.length === 0) return { messages, elided: [] };
  return { messages: result.messages as unknown as AgentMessage[], elided: result.elided };
}
