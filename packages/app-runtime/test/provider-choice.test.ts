import { join } from "node:path";
import { THINKING_LEVELS } from "@arbor/ai-providers";
import { CODING_TOOL_NAMES } from "@arbor/coding-tools";
import { OPENAI_PRESETS } from "@arbor/provider-openai";
import { describe, expect, it } from "vitest";
import { ArborUserError } from "../src/errors.js";
import { type CustomProviderEntry, loadModelsFile } from "../src/models-file.js";
import { chooseProvider, OPENAI_PRESET_NAMES, type ProviderChoiceInputs } from "../src/provider-choice.js";
import { type LoadedSettings, loadSettings } from "../src/settings.js";
import { THINKING_LEVEL_NAMES, TOOL_NAMES } from "../src/tool-names.js";
import { temporaryDirectory, writeJson } from "./helpers.js";

const NO_SETTINGS: LoadedSettings = { settings: {}, files: [], sourceOf: {} };

function inputs(overrides: Partial<ProviderChoiceInputs> = {}): ProviderChoiceInputs {
  return {
    flags: {},
    settings: NO_SETTINGS,
    customProviders: {},
    env: {},
    probe: async () => false,
    ...overrides,
  };
}

describe("provider choice: flags, then settings, then keys, then a local server", () => {
  it("keeps its constant lists equal to the packages' own", () => {
    expect([...OPENAI_PRESET_NAMES].sort()).toEqual(Object.keys(OPENAI_PRESETS).sort());
    expect([...TOOL_NAMES]).toEqual([...CODING_TOOL_NAMES, "recall"]);
    expect([...THINKING_LEVEL_NAMES]).toEqual([...THINKING_LEVELS]);
  });

  it("takes the flags first, splitting provider/model references", async () => {
    const settings: LoadedSettings = {
      settings: { provider: "openai" },
      files: ["/home/me/.arbor/settings.json"],
      sourceOf: { provider: "/home/me/.arbor/settings.json" },
    };
    const env = { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o" };
    expect(
      await chooseProvider(inputs({ flags: { model: "anthropic/claude-haiku-4-5" }, settings, env })),
    ).toMatchObject({
      kind: "anthropic",
      providerId: "anthropic",
      modelId: "claude-haiku-4-5",
      explicit: true,
    });
    // With --provider, a model id that contains a slash is the provider's own id.
    expect(
      await chooseProvider(
        inputs({ flags: { provider: "openrouter", model: "anthropic/claude-x" }, settings }),
      ),
    ).toMatchObject({ kind: "openai", preset: "openrouter", modelId: "anthropic/claude-x" });
    expect(await chooseProvider(inputs({ flags: { baseUrl: "http://127.0.0.1:8000/v1" } }))).toMatchObject({
      kind: "openai",
      providerId: undefined,
      baseUrl: "http://127.0.0.1:8000/v1",
    });
    await expect(chooseProvider(inputs({ flags: { provider: "nope" } }))).rejects.toThrow(
      /Unknown provider "nope"/,
    );
  });

  it("then the settings (naming the file), then ANTHROPIC_API_KEY, then OPENAI_API_KEY, then a local server", async () => {
    const env = { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o" };
    const settings: LoadedSettings = {
      settings: { model: "openai/gpt-5.4" },
      files: ["/p/.arbor/settings.json"],
      sourceOf: { model: "/p/.arbor/settings.json" },
    };
    expect(await chooseProvider(inputs({ settings, env }))).toMatchObject({
      kind: "openai",
      modelId: "gpt-5.4",
      source: "settings (/p/.arbor/settings.json)",
      explicit: false,
    });
    expect(await chooseProvider(inputs({ env }))).toMatchObject({
      kind: "anthropic",
      source: "ANTHROPIC_API_KEY",
    });
    expect(await chooseProvider(inputs({ env: { OPENAI_API_KEY: "o" } }))).toMatchObject({
      kind: "openai",
      preset: "openai",
      source: "OPENAI_API_KEY",
    });
    const probed: string[] = [];
    const local = await chooseProvider(
      inputs({
        env: { ARBOR_LOCAL_SERVER_URL: "http://127.0.0.1:1234/v1" },
        probe: async (url) => {
          probed.push(url);
          return true;
        },
      }),
    );
    expect(probed).toEqual(["http://127.0.0.1:1234/v1"]);
    expect(local).toMatchObject({ kind: "openai", baseUrl: "http://127.0.0.1:1234/v1" });
    const none = await chooseProvider(inputs()).catch((error: unknown) => error);
    expect(none).toBeInstanceOf(ArborUserError);
    expect((none as ArborUserError).code).toBe("no_provider");
    expect((none as Error).message).toContain("--provider scripted");
  });

  it("chooses custom providers of models.json by name", async () => {
    const home = temporaryDirectory();
    writeJson(join(home, "models.json"), {
      providers: {
        "my-vllm": {
          baseUrl: "http://127.0.0.1:8000/v1",
          apiKeyEnv: "MY_VLLM_KEY",
          models: [{ id: "qwen3-coder", contextWindow: 65_536 }],
        },
      },
    });
    const { providers } = loadModelsFile(home);
    const choice = await chooseProvider(
      inputs({ flags: { model: "my-vllm/qwen3-coder" }, customProviders: providers }),
    );
    expect(choice).toMatchObject({ kind: "custom", providerId: "my-vllm", modelId: "qwen3-coder" });
    expect((choice.custom as CustomProviderEntry).models?.[0]?.contextWindow).toBe(65_536);
  });
});

describe("settings.json and models.json validation", () => {
  it("merges the global and project files, the project's fields winning", () => {
    const home = temporaryDirectory();
    const cwd = temporaryDirectory();
    writeJson(join(home, "settings.json"), {
      provider: "anthropic",
      thinking: "low",
      compaction: { reserveTokens: 9000 },
    });
    writeJson(join(cwd, ".arbor", "settings.json"), {
      thinking: "high",
      compaction: { keepRecentTokens: 100 },
    });
    const loaded = loadSettings(home, cwd);
    expect(loaded.settings).toEqual({
      provider: "anthropic",
      thinking: "high",
      compaction: { reserveTokens: 9000, keepRecentTokens: 100 },
    });
    expect(loaded.sourceOf.thinking).toBe(join(cwd, ".arbor", "settings.json"));
  });

  it("names the file and each bad field", () => {
    const home = temporaryDirectory();
    const cwd = temporaryDirectory();
    const file = join(home, "settings.json");
    writeJson(file, { thinking: "hgih", tools: ["read", "rm"], modle: "x" });
    const error = (() => {
      try {
        loadSettings(home, cwd);
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();
    expect(error?.message).toContain(`Invalid settings file ${file}:`);
    expect(error?.message).toMatch(/thinking: expected one of "off" \|/);
    expect(error?.message).toMatch(/tools\.1: expected "read" \| .* \| string matching \/\^mcp__/);
    expect(error?.message).toMatch(/modle: unknown field/);
    writeJson(file, { compaction: { reserveTokens: 12 } });
    expect(() => loadSettings(home, cwd)).toThrow(
      /\n {2}compaction\.reserveTokens: expected integer >= 256, received number 12/,
    );
    writeJson(join(home, "models.json"), { providers: { x: { baseUrl: "ftp://nope", models: [] } } });
    expect(() => loadModelsFile(home)).toThrow(
      /models\.json:\n {2}providers\.x\.baseUrl: expected string matching/,
    );
  });
});
