import { type CompactionSettingAdjustment, effectiveCompactionSettings } from "./effective-settings.js";
import { type CompactionSettings, compactionThreshold } from "./settings.js";

/**
 * The budget of the next model call, in one place (docs/context-budget.md): the window in effect, the
 * reserve for the answer, the fixed part of every request (system prompt and tool definitions), the kept
 * tail of a compaction, the budget of one tool result, and what a compaction aims to leave. Values the user
 * did not set are derived from the window, so that a 4k local model and a 1M-token model both get a
 * budget that works; values the user set are kept, clamped only when they cannot work (and then said once).
 */

/** The shares of the window the derived values take (each capped by its default, see {@link contextBudget}). */
export const WINDOW_SHARES = Object.freeze({
  /** The reserve: room for the answer (and for the summary's output when compacting). */
  reserveTokens: 0.2,
  /** The kept tail of a compaction. */
  keepRecentTokens: 0.15,
  /** One tool result as the model sees it. */
  toolOutputTokens: 0.1,
  /** The fixed part of a request (system prompt and tool definitions) before it is shortened. */
  fixedTokens: 0.25,
  /** What a compaction aims to leave of the window, the fixed part included. */
  afterCompaction: 0.6,
});

/** The largest tool result a model sees by default, in tokens (Claude Code's limit for MCP output). */
export const DEFAULT_TOOL_OUTPUT_TOKENS = 25_000;

/** The smallest derived tool-output budget, in tokens: room for a useful head and tail and the note. */
export const MIN_TOOL_OUTPUT_TOKENS = 200;

/** The budget values a user may set; the others come from the window. */
export interface ConfiguredBudget {
  reserveTokens?: number;
  keepRecentTokens?: number;
  toolOutputTokens?: number;
}

/** What {@link contextBudget} needs. */
export interface ContextBudgetInput {
  /** The model's window as configured (catalog or `models.json`). */
  modelWindow: number;
  /** A smaller window the server stated in an overflow error, when one was learned. */
  learnedWindow?: number;
  /** The resolved compaction settings (their reserve and kept tail count only where the user set them). */
  settings: CompactionSettings;
  /** The values the user set; absent ones are derived from the window. */
  configured?: ConfiguredBudget;
  /** Estimated tokens of the system prompt and the tool definitions as they are sent. */
  fixedTokens?: number;
}

/** Where a budget value came from. */
export type BudgetSource = "window" | "settings" | "clamped";

/** The budget of the next call (see {@link contextBudget}). */
export interface ContextBudget {
  /** The window in effect: the model's, or the smaller one the server stated. */
  contextWindow: number;
  /** Tokens kept free for the answer; compaction runs above `contextWindow - reserveTokens`. */
  reserveTokens: number;
  /** Tokens of recent history a compaction keeps verbatim. */
  keepRecentTokens: number;
  /** Most tokens one tool result may take in the model's context; longer output is cut, kept whole in the session. */
  toolOutputTokens: number;
  /** The fixed part of every request as sent: system prompt and tool definitions. */
  fixedTokens: number;
  /** The most the fixed part should take; above it, tool definitions are shortened (small windows). */
  fixedBudgetTokens: number;
  /** Compaction runs when the context passes this: `contextWindow - reserveTokens`, or `thresholdPercent` of the window when lower. */
  threshold: number;
  /** Room for the messages of one call: `threshold - fixedTokens` (at least 0). */
  messageTokens: number;
  /** What a compaction aims to leave, the fixed part included: 60% of the window (at most ¾ of the threshold). */
  targetTokens: number;
  /** Where each value came from: derived from the window, as set, or as set but clamped. */
  sources: Record<"reserveTokens" | "keepRecentTokens" | "toolOutputTokens", BudgetSource>;
  /** The set values that were clamped, with one sentence each (for a warning). */
  adjustments: CompactionSettingAdjustment[];
}

/**
 * The budget of the next call for a window.
 *
 * Derived (when not set): reserve `min(16,384, 20% of the window)`, kept tail `min(20,000, 15%)`, tool
 * output `min(25,000, 10%)` (at least 200), fixed part at most 25%. With these a compaction leaves at most
 * about 56% of the window: fixed part (≤ 25%) + summary (≤ 80% of the reserve: 16%) + kept tail (15%).
 * At 200,000 tokens that is the classic 16,384 / 20,000; at 6,000 it is 1,200 / 900 / 600.
 *
 * Set values are kept unless they cannot work for the window (`effectiveCompactionSettings`: a reserve
 * above a quarter of the window, a kept tail above half of what the reserve leaves); those are clamped and
 * listed in `adjustments`. A tool-output budget larger than the messages' room is clamped to it.
 *
 * Contract: pure; never throws; a window that is not a positive finite number yields the settings as they
 * are (nothing derived, nothing clamped).
 */
export function contextBudget(input: ContextBudgetInput): ContextBudget {
  const configured = input.configured ?? {};
  const window = windowInEffect(input.modelWindow, input.learnedWindow);
  const fixedTokens = Math.max(0, Math.ceil(input.fixedTokens ?? 0));
  const known = Number.isFinite(window) && window > 0;
  const derive = (share: number, ceiling: number) =>
    known ? Math.min(ceiling, Math.floor(window * share)) : ceiling;

  const base: CompactionSettings = {
    ...input.settings,
    reserveTokens:
      configured.reserveTokens ?? derive(WINDOW_SHARES.reserveTokens, input.settings.reserveTokens),
    keepRecentTokens:
      configured.keepRecentTokens ?? derive(WINDOW_SHARES.keepRecentTokens, input.settings.keepRecentTokens),
  };
  const effective = known ? effectiveCompactionSettings(base, window) : { settings: base, adjustments: [] };
  const { reserveTokens, keepRecentTokens } = effective.settings;
  const threshold = known
    ? compactionThreshold(window, { reserveTokens, thresholdPercent: input.settings.thresholdPercent })
    : Number.POSITIVE_INFINITY;
  const messageTokens = Math.max(0, threshold - fixedTokens);

  const derivedOutput = Math.max(
    MIN_TOOL_OUTPUT_TOKENS,
    derive(WINDOW_SHARES.toolOutputTokens, DEFAULT_TOOL_OUTPUT_TOKENS),
  );
  const wantedOutput = configured.toolOutputTokens ?? derivedOutput;
  const toolOutputTokens = known
    ? Math.max(1, Math.min(wantedOutput, Math.max(MIN_TOOL_OUTPUT_TOKENS, messageTokens)))
    : wantedOutput;
  const adjustments = [...effective.adjustments];
  if (configured.toolOutputTokens !== undefined && toolOutputTokens !== configured.toolOutputTokens) {
    adjustments.push({
      setting: "toolOutputTokens",
      configured: configured.toolOutputTokens,
      effective: toolOutputTokens,
      message:
        `compaction.toolOutputTokens ${formatTokens(configured.toolOutputTokens)} is more than a request ` +
        `to the ${formatTokens(window)}-token window can carry; using ${formatTokens(toolOutputTokens)}.`,
    });
  }
  const sourceOf = (key: keyof ConfiguredBudget, value: number): BudgetSource =>
    configured[key] === undefined ? "window" : configured[key] === value ? "settings" : "clamped";

  return {
    contextWindow: window,
    reserveTokens,
    keepRecentTokens,
    toolOutputTokens,
    fixedTokens,
    fixedBudgetTokens: known ? Math.floor(window * WINDOW_SHARES.fixedTokens) : Number.POSITIVE_INFINITY,
    threshold,
    messageTokens,
    // 60% of the window, and well under a low threshold (`thresholdPercent`), so that one compaction ends under it.
    targetTokens: known
      ? Math.min(Math.floor(window * WINDOW_SHARES.afterCompaction), Math.floor(threshold * 0.75))
      : Number.POSITIVE_INFINITY,
    sources: {
      reserveTokens: sourceOf("reserveTokens", reserveTokens),
      keepRecentTokens: sourceOf("keepRecentTokens", keepRecentTokens),
      toolOutputTokens: sourceOf("toolOutputTokens", toolOutputTokens),
    },
    adjustments,
  };
}

/** The settings a budget compacts with: the resolved ones with the budget's reserve and kept tail. */
export function budgetSettings(settings: CompactionSettings, budget: ContextBudget): CompactionSettings {
  if (
    settings.reserveTokens === budget.reserveTokens &&
    settings.keepRecentTokens === budget.keepRecentTokens
  ) {
    return settings;
  }
  return { ...settings, reserveTokens: budget.reserveTokens, keepRecentTokens: budget.keepRecentTokens };
}

function windowInEffect(modelWindow: number, learnedWindow: number | undefined): number {
  if (learnedWindow !== undefined && learnedWindow > 0 && learnedWindow < modelWindow) return learnedWindow;
  return modelWindow;
}

function formatTokens(value: number): string {
  return value.toLocaleString("en-US");
}
