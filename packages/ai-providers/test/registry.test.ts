import { describe, expect, it } from "vitest";
import { complete } from "../src/complete.js";
import { addUsage, calculateCost, emptyUsage } from "../src/cost.js";
import {
  DuplicateProviderError,
  InvalidModelReferenceError,
  UnknownModelError,
  UnknownProviderError,
} from "../src/errors.js";
import { createProviderRegistry } from "../src/registry.js";
import { createScriptedProvider, script } from "../src/testing/index.js";
import { testModel } from "./helpers.js";

describe("createProviderRegistry", () => {
  it("resolves provider/model references, model ids with slashes included", () => {
    const a = createScriptedProvider([], { id: "a" });
    const b = createScriptedProvider([], {
      id: "openrouter",
      model: { id: "anthropic/claude-sonnet-4-5", provider: "openrouter" },
    });
    const registry = createProviderRegistry([a, b]);
    expect(registry.resolveModel("a/scripted-model")).toBe(a.model);
    expect(registry.resolveModel("openrouter/anthropic/claude-sonnet-4-5")).toBe(b.model);
    expect(registry.resolveModel(a.model)).toBe(a.model);
    expect(registry.listModels().map((model) => `${model.provider}/${model.id}`)).toEqual([
      "a/scripted-model",
      "openrouter/anthropic/claude-sonnet-4-5",
    ]);
    expect(registry.getProvider("a")).toBe(a);
  });

  it("throws typed errors that say what is known", () => {
    const registry = createProviderRegistry([createScriptedProvider([], { id: "a" })]);
    expect(() => registry.resolveModel("no-slash")).toThrow(InvalidModelReferenceError);
    expect(() => registry.resolveModel("a/")).toThrow(InvalidModelReferenceError);
    expect(() => registry.resolveModel("zzz/model")).toThrow(UnknownProviderError);
    expect(() => registry.resolveModel("zzz/model")).toThrow(/Registered providers: a/);
    expect(() => registry.resolveModel("a/gpt-9")).toThrow(UnknownModelError);
    expect(() => registry.resolveModel("a/gpt-9")).toThrow(/Known models: scripted-model/);
    expect(() => registry.register(createScriptedProvider([], { id: "a" }))).toThrow(DuplicateProviderError);
  });

  it("registries are independent instances", () => {
    const one = createProviderRegistry();
    const two = createProviderRegistry();
    one.register(createScriptedProvider([], { id: "x" }));
    expect(one.providers).toHaveLength(1);
    expect(two.providers).toHaveLength(0);
  });

  it("streams through the model's provider and never throws for unknown ones", async () => {
    const provider = createScriptedProvider([script.text("routed")], { id: "a" });
    const registry = createProviderRegistry([provider]);
    const message = await complete(registry.streamFn, provider.model, { messages: [] });
    expect(message.content).toEqual([{ type: "text", text: "routed" }]);

    const failed = await registry.stream("nope/model", { messages: [] }).result();
    expect(failed).toMatchObject({ stopReason: "error", provider: "nope", model: "model" });
    expect(failed.errorMessage).toMatch(/Unknown provider "nope"/);
    provider.assertDone();
  });

  it("complete() accepts a provider as well as a StreamFn", async () => {
    const provider = createScriptedProvider([script.text("direct")]);
    const message = await complete(provider, provider.model, { messages: [] });
    expect(message.stopReason).toBe("stop");
  });
});

describe("cost", () => {
  it("prices usage per million tokens", () => {
    const usage = {
      ...emptyUsage(),
      input: 1_000_000,
      output: 500_000,
      cacheRead: 2_000_000,
      cacheWrite: 100_000,
    };
    calculateCost(testModel(), usage);
    expect(usage.cost).toMatchObject({ input: 2, output: 5, cacheRead: 1, cacheWrite: 0.4 });
    expect(usage.cost.total).toBeCloseTo(8.4, 10);
    expect(usage.totalTokens).toBe(3_600_000);
    const sum = addUsage(emptyUsage(), usage);
    addUsage(sum, usage);
    expect(sum.cost.total).toBeCloseTo(16.8);
    expect(sum.input).toBe(2_000_000);
  });
});
