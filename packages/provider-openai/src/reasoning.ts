import type { Model, ThinkingLevel } from "@arbor/ai-providers";
import type { OpenAICompat } from "./compat.js";

/** Efforts assumed when a model does not list its own. */
const DEFAULT_EFFORTS = ["minimal", "low", "medium", "high"] as const;

/** The order of every effort OpenAI knows, lowest first. */
const EFFORT_ORDER = ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const;

/**
 * The reasoning effort to send for a thinking level, or `undefined` to send none (the model's default).
 *
 * - Nothing is sent for a model without `reasoning`, or when the server does not take an effort.
 * - No level (`undefined`) sends nothing: the model reasons at its default.
 * - `off` asks for the least reasoning the model allows: `none`, else `minimal`; a model that can only
 *   reason (its lowest effort is `low` or higher) gets nothing.
 * - Any other level is clamped to the model's efforts (`compat.reasoningEfforts`, default minimal …
 *   high): the requested one when listed, else the nearest listed one below it, else the lowest.
 */
export function reasoningEffort(
  model: Model,
  compat: OpenAICompat,
  level: ThinkingLevel | undefined,
): string | undefined {
  if (!model.reasoning || !compat.supportsReasoningEffort || level === undefined) return undefined;
  const allowed = compat.reasoningEfforts.length > 0 ? compat.reasoningEfforts : DEFAULT_EFFORTS;
  if (level === "off") {
    if (allowed.includes("none")) return "none";
    if (allowed.includes("minimal")) return "minimal";
    return undefined;
  }
  const wanted = EFFORT_ORDER.indexOf(level);
  let best: string | undefined;
  let bestRank = -1;
  let lowest: string | undefined;
  let lowestRank = Number.POSITIVE_INFINITY;
  for (const effort of allowed) {
    const rank = EFFORT_ORDER.indexOf(effort as (typeof EFFORT_ORDER)[number]);
    if (rank <= 0) continue; // unknown efforts and "none"
    if (rank <= wanted && rank > bestRank) [best, bestRank] = [effort, rank];
    if (rank < lowestRank) [lowest, lowestRank] = [effort, rank];
  }
  return best ?? lowest;
}
