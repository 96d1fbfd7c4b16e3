import { ArborError, createProviderRegistry, type Model } from "@arbor/ai-providers";
import {
  chatFrames,
  chatTextChunks,
  type OpenAIWireServer,
  openAIErrorReply,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createOpenAIProvider,
  DEFAULT_CONTEXT_WINDOW,
  InvalidOpenAISettingsError,
  OPENAI_MODELS,
  OPENAI_PRESETS,
  VERSION,
} from "../src/index.js";
import { detectPreset } from "../src/presets.js";
import { ask, drain } from "./helpers/run.js";

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
});

describe("presets", () => {
  it.each([
    ["https://api.openai.com/v1", "openai"],
    ["http://localhost:11434/v1", "ollama"],
    ["http://127.0.0.1:11434/v1", "ollama"],
    ["http://ollama.internal:9999/v1", "ollama"],
    ["http://gpu-box:8000/v1", "vllm"],
    ["http://127.0.0.1:8080/v1", "llama-cpp"],
    ["http://localhost:1234/v1", "lm-studio"],
    ["https://openrouter.ai/api/v1", "openrouter"],
    ["https://api.groq.com/openai/v1", "groq"],
    ["https://api.deepseek.com", "deepseek"],
    ["https://example.com/v1", "openai-compatible"],
    ["not a url", "openai-compatible"],
  ])("detects %s as %s", (url, preset) => {
    expect(detectPreset(url)).toBe(preset);
  });

  it("defaults to api.openai.com with the Responses API and the catalog", () => {
    const provider = createOpenAIProvider();
    expect(provider.id).toBe("openai");
    expect(provider.baseURL).toBe("https://api.openai.com/v1");
    expect(provider.api).toBe("responses");
    expect(provider.models.map((model) => model.id)).toEqual(OPENAI_MODELS.map((entry) => entry.id));
    expect(
      provider.models.every((model) => model.api === "openai-responses" && model.provider === "openai"),
    ).toBe(true);
    expect(provider.compat).toMatchObject({
      supportsDeveloperRole: true,
      maxTokensField: "max_completion_tokens",
    });
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("configures a compatible server from its URL, with overrides from the settings and the model", () => {
    const provider = createOpenAIProvider({
      baseURL: "http://localhost:11434/v1/",
      compat: { supportsDeveloperRole: true },
    });
    expect(provider.preset).toBe("ollama");
    expect(provider.id).toBe("ollama");
    expect(provider.baseURL).toBe("http://localhost:11434/v1");
    expect(provider.api).toBe("chat");
    expect(provider.models).toEqual([]);
    expect(provider.compat).toEqual({
      ...OPENAI_PRESETS.ollama.compat,
      supportsDeveloperRole: true,
    });
  });

  it("applies a model's own compat over the provider's", async () => {
    server = await startOpenAIWireServer([{ kind: "sse", frames: chatFrames(chatTextChunks("ok")) }]);
    const provider = createOpenAIProvider({ baseURL: server.url, preset: "vllm" });
    const model: Model = {
      ...(provider.resolveModel("my-model") as Model),
      compat: { maxTokensField: "max_completion_tokens", supportsDeveloperRole: true, bogus: 1 },
    };
    await drain(provider.stream(model, ask("x"), { maxTokens: 77 }));
    expect(server.requests[0]?.body).toMatchObject({
      max_completion_tokens: 77,
      messages: [{ role: "developer" }, { role: "user" }],
    });
  });

  it("rejects settings it cannot use with a typed error", () => {
    expect(() => createOpenAIProvider({ baseURL: "localhost:11434" })).toThrow(InvalidOpenAISettingsError);
    expect(() => createOpenAIProvider({ baseURL: "ftp://x/v1" })).toThrow(/must be an http\(s\) URL/);
    expect(() => createOpenAIProvider({ contextWindow: 0 })).toThrow(
      /contextWindow must be a positive number/,
    );
    expect(() => createOpenAIProvider({ preset: "nope" as "openai" })).toThrow(/Unknown preset "nope"/);
    try {
      createOpenAIProvider({ maxTokens: -1 });
    } catch (error) {
      expect(ArborError.isInstance(error)).toBe(true);
      expect((error as ArborError).code).toBe("invalid_settings");
    }
  });
});

describe("model resolution and discovery", () => {
  it("resolves unknown ids on compatible servers with the stated default window, not on api.openai.com", () => {
    const local = createOpenAIProvider({ preset: "lm-studio" });
    expect(local.resolveModel("qwen2.5-coder")).toMatchObject({
      id: "qwen2.5-coder",
      provider: "lm-studio",
      api: "openai-completions",
      contextWindow: DEFAULT_CONTEXT_WINDOW,
      cost: { input: 0, output: 0 },
    });
    expect(
      createOpenAIProvider({ preset: "lm-studio", contextWindow: 8192 }).resolveModel("m"),
    ).toMatchObject({
      contextWindow: 8192,
      maxTokens: 8192,
    });
    const openai = createOpenAIProvider();
    expect(openai.resolveModel("gpt-99")).toBeUndefined();
    expect(openai.resolveModel("gpt-5.5")).toMatchObject({
      contextWindow: 1_050_000,
      cost: { input: 5, output: 30 },
    });
  });

  it("gives a model for any id through unlistedModel (api.openai.com too), and says what a request needs", () => {
    const openai = createOpenAIProvider();
    expect(openai.unlistedModel("gpt-99")).toMatchObject({
      id: "gpt-99",
      provider: "openai",
      api: "openai-responses",
      contextWindow: DEFAULT_CONTEXT_WINDOW,
      cost: { input: 0, output: 0 },
    });
    expect(openai.credentials).toEqual({
      requiresApiKey: true,
      apiKeyEnv: "OPENAI_API_KEY",
      apiKeyGiven: false,
    });
    expect(createOpenAIProvider({ preset: "ollama" }).credentials.requiresApiKey).toBe(false);
    expect(createOpenAIProvider({ apiKey: "k" }).credentials.apiKeyGiven).toBe(true);
  });

  it("follows OPENAI_BASE_URL (the SDK's convention) for the openai preset when no base URL is given", async () => {
    server = await startOpenAIWireServer([{ kind: "sse", frames: chatFrames(chatTextChunks("via env")) }]);
    vi.stubEnv("OPENAI_BASE_URL", server.url);
    const provider = createOpenAIProvider({ apiKey: "k", api: "chat" });
    expect(provider).toMatchObject({ baseURL: server.url, preset: "openai", id: "openai" });
    const model = provider.unlistedModel("proxy-model");
    const { result } = await drain(provider.stream(model, ask("hi")));
    expect(result.stopReason).toBe("stop");
    expect(server.requests[0]?.body?.model).toBe("proxy-model");
    // A given base URL or another preset wins over the variable.
    expect(createOpenAIProvider({ baseURL: "http://127.0.0.1:1/v1" }).baseURL).toBe("http://127.0.0.1:1/v1");
    expect(createOpenAIProvider({ preset: "ollama" }).baseURL).toBe("http://127.0.0.1:11434/v1");
    vi.stubEnv("OPENAI_BASE_URL", "not a url");
    expect(() => createOpenAIProvider()).toThrow(
      /OPENAI_BASE_URL environment variable must be an http\(s\) URL/,
    );
  });

  it("discovers models with GET /models, reading the windows servers report", async () => {
    server = await startOpenAIWireServer([
      {
        kind: "json",
        status: 200,
        body: {
          object: "list",
          data: [
            { id: "llama3.2:latest", object: "model", created: 1, owned_by: "library" },
            { id: "Qwen/Qwen3-8B", object: "model", created: 1, owned_by: "vllm", max_model_len: 32768 },
            {
              id: "anthropic/claude-sonnet-4.5",
              name: "Anthropic: Claude Sonnet 4.5",
              context_length: 1_000_000,
              architecture: { input_modalities: ["text", "image"] },
              pricing: { prompt: "0.000003", completion: "0.000015", input_cache_read: "0.0000003" },
              top_provider: { max_completion_tokens: 64000 },
            },
          ],
        },
      },
    ]);
    const provider = createOpenAIProvider({ baseURL: server.url, preset: "ollama", id: "local" });
    const result = await provider.discoverModels();
    expect(result.error).toBeUndefined();
    expect(server.requests[0]).toMatchObject({ method: "GET", path: "/v1/models" });
    expect(result.models.map((model) => [model.id, model.contextWindow, model.maxTokens])).toEqual([
      ["llama3.2:latest", DEFAULT_CONTEXT_WINDOW, 16_384],
      ["Qwen/Qwen3-8B", 32768, 16_384],
      ["anthropic/claude-sonnet-4.5", 1_000_000, 64000],
    ]);
    const sonnet = result.models[2] as Model;
    expect(sonnet).toMatchObject({
      name: "Anthropic: Claude Sonnet 4.5",
      input: ["text", "image"],
      provider: "local",
    });
    expect(sonnet.cost.input).toBeCloseTo(3, 9);
    expect(sonnet.cost.output).toBeCloseTo(15, 9);
    expect(sonnet.cost.cacheRead).toBeCloseTo(0.3, 9);
    expect(provider.models.map((model) => model.id)).toEqual(result.models.map((model) => model.id));
    expect(provider.resolveModel("Qwen/Qwen3-8B")?.contextWindow).toBe(32768);

    // A registry resolves the discovered models by reference.
    const registry = createProviderRegistry([provider]);
    expect(registry.resolveModel("local/Qwen/Qwen3-8B").contextWindow).toBe(32768);
  });

  it("keeps catalog rows for ids the catalog knows", async () => {
    server = await startOpenAIWireServer([
      { kind: "json", status: 200, body: { object: "list", data: [{ id: "gpt-5.5", object: "model" }] } },
    ]);
    const provider = createOpenAIProvider({ baseURL: server.url, preset: "openai", apiKey: "sk-test" });
    const result = await provider.discoverModels();
    expect(result.models).toEqual([provider.resolveModel("gpt-5.5")]);
    expect(provider.models).toHaveLength(OPENAI_MODELS.length);
  });

  it("returns the failure as data", async () => {
    server = await startOpenAIWireServer([
      openAIErrorReply(401, "Invalid API key", { code: "invalid_api_key" }),
    ]);
    const provider = createOpenAIProvider({ baseURL: server.url, preset: "deepseek", apiKey: "bad" });
    expect(await provider.discoverModels()).toEqual({
      models: [],
      error: `Could not list the models at ${server.url}/models: DeepSeek HTTP 401 (invalid_api_key): Invalid API key`,
    });
    vi.stubEnv("DEEPSEEK_API_KEY", "");
    const keyless = createOpenAIProvider({ baseURL: server.url, preset: "deepseek" });
    expect((await keyless.discoverModels()).error).toMatch(/^No API key for DeepSeek: set DEEPSEEK_API_KEY/);
  });
});
