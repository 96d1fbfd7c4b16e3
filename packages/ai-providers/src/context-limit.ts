import { isContextOverflowText } from "./overflow.js";

/**
 * Reading the context window out of an overflow error: most providers state the limit the prompt passed
 * ("prompt is too long: 213462 tokens > 200000 maximum", "maximum context length is 8192 tokens"), which
 * tells a caller the window in effect when its model metadata is wrong (a proxy, a local server, a smaller
 * deployment).
 */

/** Wordings that state the limit, the limit captured as group 1 (digits, commas allowed). */
const LIMIT_PATTERNS: readonly RegExp[] = [
  /prompt is too long: [\d,]+ tokens > ([\d,]+) maximum/i,
  /exceed context limit: [\d,]+ \+ [\d,]+ > ([\d,]+)/i,
  /maximum context length is ([\d,]+) tokens/i,
  /maximum number of tokens allowed \(([\d,]+)\)/i,
  /maximum prompt length is ([\d,]+)/i,
  /context size \(([\d,]+) tokens\)/i,
  /context length of only ([\d,]+) tokens/i,
  /maximum model length of ([\d,]+)/i,
  /\(context length ([\d,]+)\)/i,
  /maximum context length \(([\d,]+)\)/i,
  /with ([\d,]+) maximum context length/i,
  /model'?s context length \(([\d,]+) tokens\)/i,
  /exceeds the limit of ([\d,]+)/i,
  /exceeded model token limit: ([\d,]+)/i,
];

/**
 * The context window an overflow error text states, in tokens, or `undefined` when the text is no overflow
 * (`isContextOverflowText`) or names no limit. Examples: `prompt is too long: 213462 tokens > 200000
 * maximum` → 200000; `This model's maximum context length is 8192 tokens. However, you requested 9000
 * tokens` → 8192; `context_length_exceeded` → undefined.
 *
 * Contract: pure; never throws; returns a positive integer or `undefined`.
 */
export function parseContextLimit(text: string): number | undefined {
  return firstCount(LIMIT_PATTERNS, text);
}

/** The first positive count one of `patterns` captures in an overflow error text (commas allowed). */
function firstCount(patterns: readonly RegExp[], text: string): number | undefined {
  if (!isContextOverflowText(text)) return undefined;
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match === null) continue;
    const value = Number.parseInt(match[1]!.replaceAll(",", ""), 10);
    if (Number.isSafeInteger(value) && value > 0) return value;
  }
  return undefined;
}

/** Wordings that state the size of the refused request, the size captured as group 1. */
const REQUESTED_PATTERNS: readonly RegExp[] = [
  /prompt is too long: ([\d,]+) tokens >/i,
  /you requested ([\d,]+) tokens/i,
  /resulted in ([\d,]+) tokens/i,
  /exceed context limit: ([\d,]+) \+/i,
  /request \(([\d,]+) tokens\) exceeds/i,
];

/**
 * The size of the refused request an overflow error text states, in the server's tokens, or `undefined`.
 * Examples: `prompt is too long: 213462 tokens > 200000 maximum` → 213462; `However, you requested 9000
 * tokens` → 9000. With {@link parseContextLimit} it tells how the server counts against a local estimate.
 *
 * Contract: pure; never throws; returns a positive integer or `undefined`.
 */
export function parseRequestedTokens(text: string): number | undefined {
  return firstCount(REQUESTED_PATTERNS, text);
}
