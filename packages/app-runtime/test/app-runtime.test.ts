import { statSync } from "node:fs";
import { join } from "node:path";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import { type AppRuntimeOptions, createAppRuntime } from "../src/create-app-runtime.js";
import type { ProviderFactories, StoreFactories } from "../src/factories.js";
import { StoreBackendUnavailableError } from "../src/store-url.js";
import { temporaryDirectory } from "./helpers.js";

const stores: StoreFactories = { jsonl: () => import("@arbor/session-store-jsonl") };

/** The demo model, and an "openai" that is really a scripted provider (no network). */
const providers: ProviderFactories = {
  scripted: () => import("../src/demo/index.js"),
  openai: async () => ({
    createOpenAIProvider: () =>
      createScriptedProvider(() => script.text("from the second provider"), {
        id: "openai",
        model: { id: "gpt-5.5" },
      }),
  }),
};

function options(overrides: Partial<AppRuntimeOptions> = {}): AppRuntimeOptions {
  return {
    cwd: temporaryDirectory(),
    env: { ARBOR_HOME: "/must/not/be/used", OPENAI_API_KEY: "test-key" },
    home: temporaryDirectory(),
    providers,
    stores,
    flags: { provider: "scripted" },
    tools: false,
    ...overrides,
  };
}

describe("createAppRuntime", () => {
  it("uses the home it is given for the store, and opens sessions by id, prefix and path", async () => {
    const given = options();
    const runtime = await createAppRuntime(given);
    try {
      expect(runtime.home).toBe(given.home);
      expect(runtime.model).toMatchObject({ provider: "scripted", id: "demo" });
      await runtime.session.prompt("hello");
      const first = runtime.session.id;
      const file = runtime.sessionFile!;
      expect(file.startsWith(join(given.home!, "sessions"))).toBe(true);
      expect(runtime.storeDescription).toBe(`the JSONL store in ${given.home}`);

      const changes: string[] = [];
      runtime.onSessionChange(() => {
        throw new Error("a failing listener is ignored");
      });
      const stop = runtime.onSessionChange((session) => changes.push(session.id));
      const second = await runtime.newSession();
      await second.prompt("again");
      expect((await runtime.listSessions()).map((summary) => summary.id).sort()).toEqual(
        [first, second.id].sort(),
      );
      expect((await runtime.openSession(first.slice(0, 8))).id).toBe(first);
      expect((await runtime.openSession(file)).id).toBe(first);
      await runtime.openSession(second.id);
      stop();
      await runtime.openSession(first);
      expect(changes).toEqual([second.id, first, second.id]);
      await expect(runtime.openSession("zzz-no-such")).rejects.toThrow(/No session "zzz-no-such"/);
      expect(runtime.session.id).toBe(first);
    } finally {
      await runtime.dispose();
      await runtime.dispose();
    }
  });

  it("loads another provider on demand for loadModel, and refuses one the app does not offer", async () => {
    const runtime = await createAppRuntime(options({ persistent: false }));
    try {
      expect(runtime.registry.providers.map((provider) => provider.id)).toEqual(["scripted"]);
      const model = await runtime.loadModel("openai/gpt-5.5");
      expect(model).toMatchObject({ provider: "openai", id: "gpt-5.5" });
      expect(runtime.registry.providers.map((provider) => provider.id)).toEqual(["scripted", "openai"]);
      await runtime.session.setModel(model);
      await runtime.session.prompt("hi");
      expect(runtime.session.state.messages.at(-1)).toMatchObject({
        content: [{ type: "text", text: "from the second provider" }],
      });
      await expect(runtime.loadModel("anthropic/claude-sonnet-5-5")).rejects.toThrow(
        /offers no "anthropic" provider/,
      );
    } finally {
      await runtime.dispose();
    }
  });

  it("a provider without its key, loaded during a session, says what to set there (no start-up flags)", async () => {
    const keyed: ProviderFactories = {
      ...providers,
      openai: async () => ({
        createOpenAIProvider: () =>
          Object.assign(createScriptedProvider([], { id: "openai", model: { id: "gpt-5.5" } }), {
            credentials: { requiresApiKey: true, apiKeyEnv: "OPENAI_API_KEY" },
          }),
      }),
    };
    const runtime = await createAppRuntime(options({ persistent: false, providers: keyed, env: {} }));
    try {
      const failure = runtime.loadModel("openai/gpt-5.5");
      await expect(failure).rejects.toThrow(
        "No API key for OpenAI: set OPENAI_API_KEY in the environment, then start arbor again (`arbor -c` continues this session). The model is unchanged.",
      );
      await expect(failure).rejects.not.toThrow(/flags|--api-key/);
      expect(runtime.model).toMatchObject({ provider: "scripted" });
    } finally {
      await runtime.dispose();
    }
    // At start, the same provider's error names the flag and where the choice came from.
    await expect(
      createAppRuntime(
        options({ persistent: false, providers: keyed, env: {}, flags: { provider: "openai" } }),
      ),
    ).rejects.toThrow(
      "No API key for OpenAI (flags): set OPENAI_API_KEY in the environment, or pass --api-key KEY.",
    );
  });

  it("exports through the app's exporters, privately, and refuses a format without one", async () => {
    const given = options({
      persistent: false,
      exporters: { md: ({ session }) => `# ${session.id}\n` },
    });
    const runtime = await createAppRuntime(given);
    try {
      const path = await runtime.exportSession("md");
      expect(path).toBe(join(given.cwd, `${runtime.session.id}.md`));
      expect(statSync(path).mode & 0o777).toBe(0o600);
      await expect(runtime.exportSession("html")).rejects.toThrow(/cannot export sessions as html/);
    } finally {
      await runtime.dispose();
    }
  });

  it("routes --store to the app's store factories and refuses a backend without one", async () => {
    await expect(createAppRuntime(options({ store: "sqlite:arbor.db" }))).rejects.toBeInstanceOf(
      StoreBackendUnavailableError,
    );
    const { MemorySessionStore } = await import("@arbor/session-store");
    const opened: string[] = [];
    const runtime = await createAppRuntime(
      options({
        store: "sqlite:arbor.db",
        stores: {
          ...stores,
          sqlite: async (location) => {
            opened.push(location.path);
            return new MemorySessionStore();
          },
        },
      }),
    );
    try {
      expect(opened).toEqual(["arbor.db"]);
      expect(runtime.storeDescription).toBe("the SQLite store arbor.db");
    } finally {
      await runtime.dispose();
    }
  });
});
