import type { ImageContent, TextContent, Usage } from "@arbor/ai-providers";
import type { SessionMessage } from "@arbor/session-store";

/**
 * Token estimation (docs/reference/compaction.md): a character heuristic, `ceil(chars / 4)` per message, anchored
 * on the provider-reported usage of the latest assistant message when there is one, so that estimation
 * errors do not compound over a long session.
 */

/** Characters an image counts for (≈ 1,200 tokens). */
export const IMAGE_CHARS = 4800;

/** Characters per token of the heuristic. */
export const CHARS_PER_TOKEN = 4;

/** Tokens of a text of `chars` characters: `ceil(chars / 4)`. */
export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Characters of user-like content: text blocks count their length, images {@link IMAGE_CHARS}. */
export function contentChars(content: string | readonly (TextContent | ImageContent)[]): number {
  if (typeof content === "string") return content.length;
  let chars = 0;
  for (const block of content) {
    if (block.type === "text") chars += block.text.length;
    else if (block.type === "image") chars += IMAGE_CHARS;
  }
  return chars;
}

/** Characters of a message as the heuristic counts them (see {@link estimateTokens}). */
export function messageChars(message: SessionMessage): number {
  switch (message.role) {
    case "user":
    case "toolResult":
    case "custom":
      return contentChars(message.content);
    case "assistant": {
      let chars = 0;
      for (const block of message.content) {
        if (block.type === "text") chars += block.text.length;
        else if (block.type === "thinking") chars += block.thinking.length;
        else if (block.type === "toolCall") chars += block.name.length + jsonLength(block.arguments);
      }
      return chars;
    }
    case "bashExecution":
      return message.excludeFromContext === true ? 0 : message.command.length + message.output.length;
    case "compactionSummary":
    case "branchSummary":
      return message.summary.length;
    default:
      return 0;
  }
}

/**
 * Estimated tokens of one message, `ceil(chars / 4)` where chars are, by role (docs/reference/compaction.md):
 *
 * - `user`, `toolResult`, `custom`: the text of the content; each image counts 4,800 characters;
 * - `assistant`: text + thinking + for each tool call its name and `JSON.stringify(arguments)`;
 * - `bashExecution`: command + output (0 when `excludeFromContext`: the model never sees it);
 * - `compactionSummary`, `branchSummary`: the summary;
 * - any other role: 0 (the model does not see it).
 *
 * Contract: pure, never throws for a message of a known role with its required fields.
 */
export function estimateTokens(message: SessionMessage): number {
  return tokensOfChars(messageChars(message));
}

/**
 * The context size a provider reported with an assistant message: `input + output + cacheRead +
 * cacheWrite` (the prompt the model saw plus its reply, which the next prompt repeats); `totalTokens` when
 * the four counters are all zero. Undefined when the message carries no usable usage: not an assistant
 * message, a failed or aborted response (its usage is partial or absent), or all counters zero.
 *
 * The pi agent prefers `totalTokens` and sums the counters only when it is zero; Arbor sums the counters
 * first because `totalTokens` is "the sum of all four counters" by definition here, and a provider that
 * fills it differently (e.g. counting reasoning twice) should not skew the estimate.
 */
export function usageTokensOf(message: SessionMessage): number | undefined {
  if (message.role !== "assistant") return undefined;
  if (message.stopReason === "error" || message.stopReason === "aborted") return undefined;
  const usage: Usage | undefined = message.usage;
  if (usage === undefined || usage === null) return undefined;
  const sum = finite(usage.input) + finite(usage.output) + finite(usage.cacheRead) + finite(usage.cacheWrite);
  const tokens = sum > 0 ? sum : finite(usage.totalTokens);
  return tokens > 0 ? tokens : undefined;
}

/** The breakdown {@link estimateContextTokens} returns. */
export interface ContextTokenEstimate {
  /** The estimated context size: `usageTokens + trailingTokens`. */
  tokens: number;
  /** The usage reported with the message at `lastUsageIndex`; 0 without one. */
  usageTokens: number;
  /** The heuristic estimate of the messages after `lastUsageIndex` (of all messages without one). */
  trailingTokens: number;
  /** Index of the assistant message whose usage anchors the estimate; undefined when none could. */
  lastUsageIndex: number | undefined;
}

/**
 * Estimates the tokens of a context (docs/reference/compaction.md): the usage the provider reported with the latest
 * assistant message that has a usable one ({@link usageTokensOf}), plus {@link estimateTokens} of every
 * message after it; without such a message, the sum of {@link estimateTokens} over all messages.
 *
 * Usage from before the latest compaction is ignored: it measured the context before the history was
 * replaced by a summary. A message counts as "before" when it precedes the latest `compactionSummary`
 * message in the array, or when it is an assistant message of the kept span — it follows the summary in
 * the array but its `timestamp` is not later than the summary's (the compaction entry's time; both must be
 * positive for this comparison to apply).
 *
 * Contract: pure; O(messages); never throws for well-formed messages.
 */
export function estimateContextTokens(messages: readonly SessionMessage[]): ContextTokenEstimate {
  return contextTokensWith(messages, estimateTokens);
}

/**
 * {@link estimateContextTokens} with the per-message estimate supplied (e.g. from a cache).
 *
 * @internal
 */
export function contextTokensWith(
  messages: readonly SessionMessage[],
  tokensOf: (message: SessionMessage, index: number) => number,
): ContextTokenEstimate {
  let compactionIndex = -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]!.role === "compactionSummary") {
      compactionIndex = index;
      break;
    }
  }
  return estimateAfter(messages, compactionIndex, tokensOf);
}

/**
 * {@link estimateContextTokens} of a context whose only `compactionSummary`, if any, is its first message (a
 * session's `buildContext()`, an agent transcript built from it), in O(messages after the anchor) instead
 * of O(messages): the check before every model call does not grow with the session.
 *
 * Contract: pure; equals `estimateContextTokens(messages)` for such contexts; never throws for well-formed
 * messages.
 */
export function estimateContextTokensFromTail(messages: readonly SessionMessage[]): ContextTokenEstimate {
  return estimateAfter(messages, messages[0]?.role === "compactionSummary" ? 0 : -1, estimateTokens);
}

/** The estimate of `messages` whose latest compaction summary is at `compactionIndex` (-1: none). */
function estimateAfter(
  messages: readonly SessionMessage[],
  compactionIndex: number,
  tokensOf: (message: SessionMessage, index: number) => number,
): ContextTokenEstimate {
  const compactionTime = compactionIndex >= 0 ? messages[compactionIndex]!.timestamp : 0;

  let trailingTokens = 0;
  for (let index = messages.length - 1; index > compactionIndex; index--) {
    const message = messages[index]!;
    const usage = usageTokensOf(message);
    if (usage !== undefined && !isStale(message.timestamp, compactionTime)) {
      return { tokens: usage + trailingTokens, usageTokens: usage, trailingTokens, lastUsageIndex: index };
    }
    trailingTokens += tokensOf(message, index);
  }
  for (let index = compactionIndex; index >= 0; index--) trailingTokens += tokensOf(messages[index]!, index);
  return { tokens: trailingTokens, usageTokens: 0, trailingTokens, lastUsageIndex: undefined };
}

/** Whether a message written at `timestamp` predates a compaction made at `compactionTime`. */
function isStale(timestamp: number, compactionTime: number): boolean {
  return compactionTime > 0 && Number.isFinite(timestamp) && timestamp > 0 && timestamp <= compactionTime;
}

function finite(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/** `JSON.stringify(value).length`, 0 for values JSON cannot represent (never throws). */
function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}
