import type { Model } from "@arbor/ai-providers";
import { describe, expect, it } from "vitest";
import { createAnthropicProvider } from "../src/index.js";
import { planThinking } from "../src/thinking.js";

const catalog = createAnthropicProvider({ apiKey: "unused" }).models;
const modelOf = (id: string): Model => catalog.find((model) => model.id === id)!;

describe("planThinking", () => {
  it("maps levels to budgets for budget models, within [1024, max_tokens - 1024]", () => {
    const haiku = modelOf("claude-haiku-4-5");
    const budget = (level: Parameters<typeof planThinking>[1], maxTokens?: number) =>
      planThinking(haiku, level, maxTokens).thinking;
    expect(budget("minimal")).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect(budget("low")).toEqual({ type: "enabled", budget_tokens: 4096 });
    expect(budget("medium")).toEqual({ type: "enabled", budget_tokens: 16_384 });
    expect(budget("high")).toEqual({ type: "enabled", budget_tokens: 32_768 });
    expect(budget("xhigh")).toEqual({ type: "enabled", budget_tokens: 64_000 - 1024 });
    expect(budget("high", 10_000)).toEqual({ type: "enabled", budget_tokens: 10_000 - 1024 });
    expect(budget("off")).toBeUndefined();
    expect(budget(undefined)).toBeUndefined();
  });

  it("raises a max_tokens too small for the minimum budget, and never above the model's limit", () => {
    const haiku = modelOf("claude-haiku-4-5");
    expect(planThinking(haiku, "low", 100)).toMatchObject({
      maxTokens: 2048,
      thinking: { type: "enabled", budget_tokens: 1024 },
    });
    expect(planThinking(haiku, "low", 1_000_000).maxTokens).toBe(64_000);
    expect(planThinking({ ...haiku, maxTokens: 1500 }, "high", undefined)).toEqual({
      maxTokens: 1500,
      thinkingOn: false,
    });
  });

  it("uses settings budgets when given", () => {
    const plan = planThinking(modelOf("claude-haiku-4-5"), "medium", undefined, {
      budgets: { medium: 5000 },
    });
    expect(plan.thinking).toEqual({ type: "enabled", budget_tokens: 5000 });
  });

  it("maps levels to efforts for adaptive models, falling back to max where xhigh is not accepted", () => {
    const sonnet = modelOf("claude-sonnet-5-5");
    const efforts = (["minimal", "low", "medium", "high", "xhigh"] as const).map(
      (level) => planThinking(sonnet, level, undefined).effort,
    );
    expect(efforts).toEqual(["low", "low", "medium", "high", "xhigh"]);
    expect(planThinking(modelOf("claude-sonnet-4-6"), "xhigh", undefined).effort).toBe("max");
    expect(planThinking(sonnet, "off", undefined)).toEqual({
      maxTokens: 128_000,
      thinking: { type: "disabled" },
      thinkingOn: false,
    });
  });

  it("cannot turn always-on thinking off: off asks for the lowest effort", () => {
    const plan = planThinking(modelOf("claude-fable-5-2"), "off", 4096, { display: "omitted" });
    expect(plan).toEqual({
      maxTokens: 4096,
      thinking: { type: "adaptive", display: "omitted" },
      effort: "low",
      thinkingOn: true,
    });
  });

  it("guesses the thinking mode of a model the catalog does not list from its id", () => {
    const unknown = (id: string): Model => ({ ...modelOf("claude-haiku-4-5"), id, compat: undefined });
    expect(planThinking(unknown("claude-opus-6"), "high", undefined).thinking).toEqual({
      type: "adaptive",
      display: "summarized",
    });
    expect(planThinking(unknown("claude-3-7-sonnet-latest"), "high", undefined).thinking).toMatchObject({
      type: "enabled",
    });
  });

  it("does not think for a model without reasoning", () => {
    const plain = { ...modelOf("claude-haiku-4-5"), reasoning: false };
    expect(planThinking(plain, "high", undefined).thinkingOn).toBe(false);
  });
});
