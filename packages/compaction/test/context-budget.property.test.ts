import type { Model } from "@arbor/ai-providers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  contextBudget,
  DEFAULT_COMPACTION_SETTINGS,
  DEFAULT_TOOL_OUTPUT_TOKENS,
  summaryOutputTokens,
} from "../src/index.js";

const windows = fc.integer({ min: 4000, max: 1_000_000 });

function modelOf(contextWindow: number): Model {
  return {
    id: "m",
    name: "m",
    api: "openai-chat",
    provider: "p",
    baseUrl: "http://127.0.0.1",
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow,
    maxTokens: 1_000_000,
  } as Model;
}

describe("contextBudget over windows from 4k to 1M", () => {
  it("derives every value it was not given from the window, within the defaults, and warns about none", () => {
    fc.assert(
      fc.property(windows, (window) => {
        const budget = contextBudget({ modelWindow: window, settings: DEFAULT_COMPACTION_SETTINGS });
        expect(budget.adjustments).toEqual([]);
        expect(budget.sources).toEqual({
          reserveTokens: "window",
          keepRecentTokens: "window",
          toolOutputTokens: "window",
        });
        expect(budget.reserveTokens).toBeLessThanOrEqual(DEFAULT_COMPACTION_SETTINGS.reserveTokens);
        expect(budget.keepRecentTokens).toBeLessThanOrEqual(DEFAULT_COMPACTION_SETTINGS.keepRecentTokens);
        expect(budget.toolOutputTokens).toBeLessThanOrEqual(DEFAULT_TOOL_OUTPUT_TOKENS);
        expect(budget.threshold).toBe(window - budget.reserveTokens);
      }),
    );
  });

  it("leaves room for a compaction to reach 60% of the window: fixed part + summary cap + kept tail", () => {
    fc.assert(
      fc.property(windows, (window) => {
        const budget = contextBudget({ modelWindow: window, settings: DEFAULT_COMPACTION_SETTINGS });
        const summaryCap = summaryOutputTokens(modelOf(window), budget.reserveTokens);
        expect(budget.fixedBudgetTokens + summaryCap + budget.keepRecentTokens).toBeLessThanOrEqual(
          budget.targetTokens,
        );
        // A tool result fits in the room for messages, with the kept tail beside it.
        expect(budget.toolOutputTokens).toBeLessThan(budget.threshold - budget.fixedBudgetTokens);
      }),
    );
  });

  it("keeps a value the user set unless it cannot work for the window, and then says so once", () => {
    fc.assert(
      fc.property(windows, fc.integer({ min: 256, max: 400_000 }), (window, reserveTokens) => {
        const budget = contextBudget({
          modelWindow: window,
          settings: { ...DEFAULT_COMPACTION_SETTINGS, reserveTokens },
          configured: { reserveTokens },
        });
        if (reserveTokens <= window / 4) {
          expect(budget.reserveTokens).toBe(reserveTokens);
          expect(budget.sources.reserveTokens).toBe("settings");
          expect(budget.adjustments.filter((entry) => entry.setting === "reserveTokens")).toEqual([]);
        } else {
          expect(budget.reserveTokens).toBeLessThan(reserveTokens);
          expect(budget.sources.reserveTokens).toBe("clamped");
          expect(budget.adjustments.filter((entry) => entry.setting === "reserveTokens")).toHaveLength(1);
        }
      }),
    );
  });

  it("derives from the learned window when a server stated a smaller one", () => {
    fc.assert(
      fc.property(windows, fc.double({ min: 0.05, max: 0.99, noNaN: true }), (window, share) => {
        const learned = Math.max(1000, Math.floor(window * share));
        const budget = contextBudget({
          modelWindow: window,
          learnedWindow: learned,
          settings: DEFAULT_COMPACTION_SETTINGS,
        });
        expect(budget.contextWindow).toBe(Math.min(window, learned));
        expect(budget.threshold).toBeLessThan(budget.contextWindow);
        expect(budget.targetTokens).toBeLessThanOrEqual(budget.contextWindow * 0.6);
      }),
    );
  });
});
