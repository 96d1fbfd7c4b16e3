import { ArborError } from "@arbor/ai-providers";
import { describe, expect, it } from "vitest";
import {
  compactionThreshold,
  contextBudget,
  DEFAULT_COMPACTION_SETTINGS,
  DEFAULT_SUMMARIZER_TIMEOUT_MS,
  InvalidCompactionSettingsError,
  resolveCompactionSettings,
  shouldCompact,
} from "../src/index.js";

describe("resolveCompactionSettings", () => {
  it("fills the defaults of seed 000 (reserve 16,384, keep 20,000, enabled)", () => {
    expect(resolveCompactionSettings()).toEqual(DEFAULT_COMPACTION_SETTINGS);
    expect(resolveCompactionSettings(null)).toEqual(DEFAULT_COMPACTION_SETTINGS);
    expect(DEFAULT_COMPACTION_SETTINGS).toMatchObject({
      enabled: true,
      reserveTokens: 16_384,
      keepRecentTokens: 20_000,
    });
  });

  it("keeps what is given, accepts numeric strings, and a separate summarizer model", () => {
    expect(
      resolveCompactionSettings({
        keepRecentTokens: "8000",
        enabled: false,
        model: "anthropic/claude-haiku-4-5",
      }),
    ).toEqual({
      ...DEFAULT_COMPACTION_SETTINGS,
      keepRecentTokens: 8000,
      enabled: false,
      model: "anthropic/claude-haiku-4-5",
    });
    expect(resolveCompactionSettings({ reserveTokens: undefined }).reserveTokens).toBe(16_384);
  });

  it("throws a typed error listing every problem with its key", () => {
    let error: unknown;
    try {
      resolveCompactionSettings({
        reserveTokens: 12,
        keepRecentTokens: "lots",
        keepRecentToken: 5,
        model: "haiku",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidCompactionSettingsError);
    expect(ArborError.isInstance(error)).toBe(true);
    const typed = error as InvalidCompactionSettingsError;
    expect(typed.code).toBe("invalid_compaction_settings");
    expect(typed.problems).toHaveLength(4);
    expect(typed.message).toContain("reserveTokens: expected integer >= 256, received number 12");
    expect(typed.message).toContain('keepRecentTokens: expected integer >= 0, received string "lots"');
    expect(typed.message).toMatch(
      /keepRecentToken: unknown setting \(allowed: enabled, reserveTokens, keepRecentTokens/,
    );
    expect(typed.message).toMatch(/model: expected string matching/);
  });

  it("rejects settings that are not an object", () => {
    expect(() => resolveCompactionSettings("auto")).toThrow(/Invalid compaction settings/);
  });
});

describe("shouldCompact", () => {
  it("triggers above contextWindow - reserveTokens (183,616 for a 200,000 window)", () => {
    const settings = resolveCompactionSettings();
    expect(shouldCompact(183_616, 200_000, settings)).toBe(false);
    expect(shouldCompact(183_617, 200_000, settings)).toBe(true);
    expect(shouldCompact(10, 8000, { ...settings, reserveTokens: 8000 })).toBe(true);
  });

  it("with thresholdPercent, triggers at that share of the window when it is below the reserve's threshold", () => {
    const settings = resolveCompactionSettings({ thresholdPercent: 80 });
    expect(compactionThreshold(200_000, settings)).toBe(160_000);
    expect(shouldCompact(160_000, 200_000, settings)).toBe(false);
    expect(shouldCompact(160_001, 200_000, settings)).toBe(true);
    // The lower threshold wins: a 95% share of a small window is above what the reserve leaves.
    expect(compactionThreshold(6_000, { reserveTokens: 1_200, thresholdPercent: 95 })).toBe(4_800);
    expect(compactionThreshold(200_000, resolveCompactionSettings())).toBe(183_616);
    expect(() => resolveCompactionSettings({ thresholdPercent: 99 })).toThrow(/thresholdPercent/);
    expect(() => resolveCompactionSettings({ thresholdPercent: 5 })).toThrow(/thresholdPercent/);
  });

  it("with thresholdPercent, the budget's threshold, target and kept tail all fit under it", () => {
    const budget = contextBudget({
      modelWindow: 200_000,
      settings: resolveCompactionSettings({ thresholdPercent: 50 }),
    });
    expect(budget.threshold).toBe(100_000);
    expect(budget.targetTokens).toBe(75_000);
    expect(budget.keepRecentTokens).toBeLessThanOrEqual(50_000);
    const plain = contextBudget({ modelWindow: 200_000, settings: resolveCompactionSettings() });
    expect(plain.threshold).toBe(183_616);
    expect(plain.targetTokens).toBe(120_000);
  });

  it("never triggers when disabled", () => {
    expect(shouldCompact(1_000_000, 200_000, { enabled: false, reserveTokens: 16_384 })).toBe(false);
  });
});

describe("compaction.timeoutMs", () => {
  it("defaults to five minutes, accepts 0 (no limit) and rejects a negative value", () => {
    expect(resolveCompactionSettings().timeoutMs).toBe(DEFAULT_SUMMARIZER_TIMEOUT_MS);
    expect(DEFAULT_SUMMARIZER_TIMEOUT_MS).toBe(300_000);
    expect(resolveCompactionSettings({ timeoutMs: 0 }).timeoutMs).toBe(0);
    expect(() => resolveCompactionSettings({ timeoutMs: -1 })).toThrow(/timeoutMs/);
  });
});
