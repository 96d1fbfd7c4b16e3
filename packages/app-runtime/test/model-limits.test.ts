import { createScriptedProvider } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import { acceptAnyModel, applyLimits, limitsFor } from "../src/model-limits.js";

describe("modelLimits", () => {
  const limits = {
    "gw/*": { contextWindow: 64_000 },
    "gw/small": { contextWindow: 8000, maxTokens: 2000 },
    "gw/out": { maxTokens: 99_000 },
  };

  it("takes provider/* then provider/id, field by field", () => {
    expect(limitsFor(limits, "gw", "any")).toEqual({ contextWindow: 64_000 });
    expect(limitsFor(limits, "gw", "small")).toEqual({ contextWindow: 8000, maxTokens: 2000 });
    expect(limitsFor(limits, "gw", "out")).toEqual({ contextWindow: 64_000, maxTokens: 99_000 });
    expect(limitsFor(limits, "other", "small")).toEqual({});
  });

  it("keeps the output within the window, and leaves a model without limits as it is", () => {
    const provider = createScriptedProvider([], { id: "gw" });
    const model = provider.models[0]!;
    expect(applyLimits(model, limits).maxTokens).toBeLessThanOrEqual(64_000);
    expect(applyLimits({ ...model, id: "out" }, limits)).toMatchObject({
      contextWindow: 64_000,
      maxTokens: 64_000,
    });
    expect(applyLimits(model, {})).toBe(model);
  });

  it("resolves any id through unlistedModel, with the limits, telling once per id", () => {
    const inner = createScriptedProvider([], { id: "gw" });
    const told: string[] = [];
    const provider = acceptAnyModel(
      { ...inner, unlistedModel: (id) => ({ ...inner.models[0]!, id, name: id }) },
      { limits, onUnlisted: (model) => told.push(model.id) },
    );
    expect(provider.resolveModel?.("small")).toMatchObject({
      id: "small",
      contextWindow: 8000,
      maxTokens: 2000,
    });
    provider.resolveModel?.("small");
    expect(provider.resolveModel?.(inner.models[0]!.id)).toMatchObject({ contextWindow: 64_000 });
    expect(told).toEqual(["small"]);
    expect(provider.models.every((model) => model.contextWindow === 64_000)).toBe(true);
    // A provider without unlistedModel (an offline one) still refuses ids it does not know.
    expect(acceptAnyModel(inner, { limits: {} }).resolveModel?.("nope")).toBeUndefined();
  });
});
