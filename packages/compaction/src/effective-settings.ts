import { type CompactionSettings, compactionThreshold } from "./settings.js";

/**
 * Settings that cannot work for a model's window: a `reserveTokens` at or above the window makes the
 * compaction threshold negative (every call compacts, and frees nothing), and a `keepRecentTokens` larger
 * than what is left after the reserve keeps everything. {@link effectiveCompactionSettings} clamps them to
 * fractions of the window and says what it changed, so that the caller can warn once and show the values
 * in effect.
 */

/** Largest share of the window `reserveTokens` may take. */
export const MAX_RESERVE_RATIO = 0.25;

/** Largest share of `contextWindow - reserveTokens` the kept tail may take. */
export const MAX_KEEP_RECENT_RATIO = 0.5;

/** One setting {@link effectiveCompactionSettings} changed. */
export interface CompactionSettingAdjustment {
  setting: "reserveTokens" | "keepRecentTokens" | "toolOutputTokens";
  /** The configured value. */
  configured: number;
  /** The value in effect for this window. */
  effective: number;
  /** One sentence for a warning, e.g. `reserveTokens 16,384 is 273% of the 6,000-token window; using 1,500.` */
  message: string;
}

/** What {@link effectiveCompactionSettings} returns. */
export interface EffectiveCompactionSettings {
  /** The settings to compact with (the configured ones when nothing needed a change). */
  settings: CompactionSettings;
  /** What changed, in order; empty when the configured settings suit the window. */
  adjustments: CompactionSettingAdjustment[];
}

function formatTokens(value: number): string {
  return value.toLocaleString("en-US");
}

/**
 * The settings in effect for a model whose window is `contextWindow` tokens:
 *
 * - `reserveTokens` at most a quarter of the window ({@link MAX_RESERVE_RATIO}): the threshold
 *   `contextWindow - reserveTokens` stays at three quarters of the window or more;
 * - `keepRecentTokens` at most half of `contextWindow - reserveTokens` ({@link MAX_KEEP_RECENT_RATIO}, with
 *   the effective reserve), so that a compaction always has history to summarize. This is the limit
 *   `prepareCompaction` applies on its own when given the window (`effectiveKeepRecentTokens`).
 *
 * Example: a 6,000-token window with the defaults (16,384 / 20,000) compacts with a reserve of 1,500 and
 * a kept tail of 2,250 tokens; a 200,000-token window keeps the defaults.
 *
 * Contract: pure; never throws; returns the same `settings` object and no adjustment when nothing changes,
 * and for a window that is not a positive finite number (unknown window).
 */
export function effectiveCompactionSettings(
  settings: CompactionSettings,
  contextWindow: number,
): EffectiveCompactionSettings {
  if (!Number.isFinite(contextWindow) || contextWindow <= 0) return { settings, adjustments: [] };
  const adjustments: CompactionSettingAdjustment[] = [];
  const window = Math.floor(contextWindow);

  const maxReserve = Math.max(1, Math.floor(window * MAX_RESERVE_RATIO));
  const reserveTokens = Math.min(settings.reserveTokens, maxReserve);
  if (reserveTokens !== settings.reserveTokens) {
    const share = Math.round((settings.reserveTokens / window) * 100);
    adjustments.push({
      setting: "reserveTokens",
      configured: settings.reserveTokens,
      effective: reserveTokens,
      message:
        `compaction.reserveTokens ${formatTokens(settings.reserveTokens)} is ${share}% of the ` +
        `${formatTokens(window)}-token window; using ${formatTokens(reserveTokens)} (a quarter of it).`,
    });
  }

  const threshold = compactionThreshold(window, {
    reserveTokens,
    thresholdPercent: settings.thresholdPercent,
  });
  const maxKeep = Math.max(0, Math.floor(threshold * MAX_KEEP_RECENT_RATIO));
  const keepRecentTokens = Math.min(settings.keepRecentTokens, maxKeep);
  if (keepRecentTokens !== settings.keepRecentTokens) {
    adjustments.push({
      setting: "keepRecentTokens",
      configured: settings.keepRecentTokens,
      effective: keepRecentTokens,
      message:
        `compaction.keepRecentTokens ${formatTokens(settings.keepRecentTokens)} leaves nothing to compact ` +
        `in a ${formatTokens(window)}-token window; keeping ${formatTokens(keepRecentTokens)} ` +
        `(half of the window less the reserve).`,
    });
  }
  if (adjustments.length === 0) return { settings, adjustments };
  return { settings: { ...settings, reserveTokens, keepRecentTokens }, adjustments };
}
