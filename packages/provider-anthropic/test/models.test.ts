import { describe, expect, it } from "vitest";
import { createAnthropicProvider, VERSION } from "../src/index.js";

describe("the Claude catalog", () => {
  const provider = createAnthropicProvider({ apiKey: "unused" });

  it("lists current models as plain data with prices, limits and capabilities", () => {
    const ids = provider.models.map((model) => model.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        "claude-fable-5-2",
        "claude-opus-5-5",
        "claude-sonnet-5-5",
        "claude-haiku-5-5",
      ]),
    );
    expect(new Set(ids).size).toBe(ids.length);
    for (const model of provider.models) {
      expect(model).toMatchObject({ provider: "anthropic", api: "anthropic-messages", reasoning: true });
      expect(model.input).toEqual(["text", "image"]);
      expect(model.cost.input).toBeGreaterThan(0);
      expect(model.cost.output).toBeGreaterThan(model.cost.input);
      expect(model.cost.cacheRead).toBeLessThan(model.cost.input);
      expect(model.cost.cacheWrite).toBeGreaterThan(model.cost.input);
      expect(model.maxTokens).toBeLessThan(model.contextWindow);
      expect(JSON.parse(JSON.stringify(model))).toEqual(model); // plain data
    }
    expect(provider.models.find((model) => model.id === "claude-opus-5-5")).toMatchObject({
      contextWindow: 1_000_000,
      maxTokens: 128_000,
      cost: { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 },
    });
  });

  it("resolves date-stamped snapshot ids to their catalog entry and nothing else", () => {
    expect(provider.resolveModel?.("claude-haiku-4-5-20251001")).toMatchObject({
      id: "claude-haiku-4-5-20251001",
      contextWindow: 200_000,
    });
    expect(provider.resolveModel?.("claude-sonnet-5-5")?.name).toBe("Claude Sonnet 5.5");
    expect(provider.resolveModel?.("gpt-5")).toBeUndefined();
  });

  it("takes an id, a base URL and extra models from the settings", () => {
    const custom = createAnthropicProvider({
      id: "anthropic-proxy",
      baseURL: "http://127.0.0.1:1",
      models: [{ ...provider.models[0]!, id: "claude-next", name: "Next", provider: "" }],
    });
    expect(custom.id).toBe("anthropic-proxy");
    expect(custom.models.every((model) => model.provider === "anthropic-proxy")).toBe(true);
    expect(custom.models.find((model) => model.id === "claude-next")?.baseUrl).toBe(undefined);
    expect(custom.models[0]?.baseUrl).toBe("http://127.0.0.1:1");
  });

  it("rejects an invalid retry policy at creation", () => {
    expect(() => createAnthropicProvider({ retry: { maxRetries: -1 } })).toThrow(/maxRetries/);
  });

  it("exports its version", () => {
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe("models the catalog does not list", () => {
  it("gives any id a model with the stated default limits, or the settings' limits", () => {
    const provider = createAnthropicProvider({ apiKey: "unused" });
    expect(provider.resolveModel?.("claude-next-9")).toBeUndefined();
    expect(provider.unlistedModel?.("claude-next-9")).toMatchObject({
      id: "claude-next-9",
      provider: "anthropic",
      api: "anthropic-messages",
      contextWindow: 200_000,
      maxTokens: 16_384,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    });
    const small = createAnthropicProvider({ contextWindow: 32_000, maxTokens: 4096, baseURL: "http://gw" });
    expect(small.unlistedModel?.("my-deployment")).toMatchObject({
      contextWindow: 32_000,
      maxTokens: 4096,
      baseUrl: "http://gw",
    });
    expect(provider.credentials).toEqual({
      requiresApiKey: true,
      apiKeyEnv: "ANTHROPIC_API_KEY",
      apiKeyGiven: true,
    });
  });

  it("can leave the catalog out of the list while still resolving its ids", () => {
    const gateway = createAnthropicProvider({
      id: "gw",
      listCatalog: false,
      models: [{ ...createAnthropicProvider().unlistedModel!("glm-5"), provider: "gw" }],
    });
    expect(gateway.models.map((model) => model.id)).toEqual(["glm-5"]);
    expect(gateway.resolveModel?.("claude-sonnet-5-5")).toMatchObject({
      provider: "gw",
      contextWindow: 1_000_000,
    });
  });
});
