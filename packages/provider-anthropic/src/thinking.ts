import type { OutputConfig, ThinkingConfigParam } from "@anthropic-ai/sdk/resources/messages";
import type { Model, ThinkingLevel } from "@arbor/ai-providers";
import { type AnthropicEffort, compatOf } from "./models.js";
import type { AnthropicThinkingBudgets } from "./settings.js";

/** The smallest thinking budget the API accepts. */
export const MIN_THINKING_BUDGET = 1024;

/** Default budgets per level for budget-thinking models. */
export const DEFAULT_THINKING_BUDGETS: Readonly<Required<AnthropicThinkingBudgets>> = Object.freeze({
  minimal: 1024,
  low: 4096,
  medium: 16_384,
  high: 32_768,
  xhigh: 65_536,
});

/** What the request says about thinking and output length. */
export interface ThinkingPlan {
  /** `max_tokens` to send. */
  maxTokens: number;
  /** `thinking` to send, if any. */
  thinking?: ThinkingConfigParam;
  /** `output_config.effort` to send, if any. */
  effort?: AnthropicEffort;
  /** Whether the model will think (sampling parameters are then not sent). */
  thinkingOn: boolean;
}

/** The `effort` for a level on an adaptive model, within the levels the model accepts. */
function effortFor(level: ThinkingLevel, accepted: readonly AnthropicEffort[]): AnthropicEffort {
  const wanted: AnthropicEffort[] =
    level === "xhigh"
      ? ["xhigh", "max", "high"]
      : level === "high"
        ? ["high"]
        : level === "medium"
          ? ["medium"]
          : ["low"];
  return wanted.find((effort) => accepted.includes(effort)) ?? accepted[accepted.length - 1] ?? "high";
}

/**
 * Maps a thinking level to the request's `max_tokens`, `thinking` and `output_config.effort`, clamped to
 * what the model allows:
 *
 * - `max_tokens` is the requested output limit (default: the model's `maxTokens`), never above the model's.
 * - Budget models (`compat.thinking: "budget"`, e.g. Claude Haiku 4.5): `off` or absent sends nothing; a
 *   level sends `{ type: "enabled", budget_tokens }` with the level's budget, kept at least 1,024 and at
 *   most `max_tokens - 1024` (so an answer still fits). When `max_tokens` is too small for the minimum
 *   budget it is raised to 2,048 (within the model's limit); a model whose limit is below that does not
 *   think.
 * - Adaptive models: `off` sends `{ type: "disabled" }`; a level sends `{ type: "adaptive" }` and the
 *   effort `minimal`/`low` → `low`, `medium` → `medium`, `high` → `high`, `xhigh` → `xhigh` (or `max`
 *   where `xhigh` is not accepted).
 * - Always-on models (`compat.thinking: "always"`): thinking cannot be turned off, so `off` and `minimal`
 *   ask for the lowest effort, `low`.
 */
export function planThinking(
  model: Model,
  level: ThinkingLevel | undefined,
  requestedMaxTokens: number | undefined,
  options: { budgets?: AnthropicThinkingBudgets; display?: "summarized" | "omitted" } = {},
): ThinkingPlan {
  const modelLimit = Math.max(1, Math.floor(model.maxTokens));
  const requested =
    requestedMaxTokens !== undefined && Number.isFinite(requestedMaxTokens) && requestedMaxTokens >= 1
      ? Math.floor(requestedMaxTokens)
      : modelLimit;
  let maxTokens = Math.min(requested, modelLimit);
  const compat = compatOf(model);
  // Adaptive models differ in their default display (some omit the text); ask for readable thinking.
  const display = options.display ?? "summarized";
  const wantsThinking = level !== undefined && level !== "off" && model.reasoning;

  if (compat.thinking === "always") {
    const effort = effortFor(wantsThinking ? level : "low", compat.effortLevels ?? ["low", "medium", "high"]);
    return { maxTokens, thinking: { type: "adaptive", display }, effort, thinkingOn: true };
  }
  if (compat.thinking === "adaptive") {
    if (!wantsThinking) return { maxTokens, thinking: { type: "disabled" }, thinkingOn: false };
    const effort = effortFor(level, compat.effortLevels ?? ["low", "medium", "high"]);
    return { maxTokens, thinking: { type: "adaptive", display }, effort, thinkingOn: true };
  }
  if (!wantsThinking) return { maxTokens, thinkingOn: false };
  const wanted = options.budgets?.[level] ?? DEFAULT_THINKING_BUDGETS[level];
  if (maxTokens - MIN_THINKING_BUDGET < MIN_THINKING_BUDGET) {
    if (modelLimit < 2 * MIN_THINKING_BUDGET) return { maxTokens, thinkingOn: false };
    maxTokens = 2 * MIN_THINKING_BUDGET;
  }
  const budget = Math.max(MIN_THINKING_BUDGET, Math.min(Math.floor(wanted), maxTokens - MIN_THINKING_BUDGET));
  // Budget models return summarized thinking by default; send `display` only when it was asked for.
  const thinking: ThinkingConfigParam =
    options.display === undefined
      ? { type: "enabled", budget_tokens: budget }
      : { type: "enabled", budget_tokens: budget, display: options.display };
  return { maxTokens, thinking, thinkingOn: true };
}

/** `output_config` for a plan, or undefined. */
export function outputConfigOf(plan: ThinkingPlan): OutputConfig | undefined {
  return plan.effort === undefined ? undefined : { effort: plan.effort };
}
