import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ScriptedStep } from "@arbor/ai-providers/testing";
import { script } from "@arbor/ai-providers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type AppRuntimeOptions, createAppRuntime } from "../src/create-app-runtime.js";
import type { ExtensionNotice } from "../src/extensions/extension-api.js";
import { discoverExtensions } from "../src/extensions/extension-loader.js";
import type { ProviderFactories, StoreFactories } from "../src/factories.js";
import { temporaryDirectory } from "./helpers.js";

const stores: StoreFactories = { jsonl: () => import("@arbor/session-store-jsonl") };
const providers: ProviderFactories = { scripted: () => import("../src/demo/index.js") };
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/extensions/${name}`, import.meta.url));

interface Probe {
  steps: ScriptedStep[];
  hooks: string[];
  events: string[];
  provider?: { calls: { context: { messages: { role: string; content: unknown }[] } }[] };
}

function installProbe(steps: ScriptedStep[]): Probe {
  const probe: Probe = { steps, hooks: [], events: [] };
  (globalThis as { __arborProbe?: Probe }).__arborProbe = probe;
  return probe;
}
afterEach(() => {
  delete (globalThis as { __arborProbe?: Probe }).__arborProbe;
});

function options(overrides: Partial<AppRuntimeOptions> = {}): AppRuntimeOptions & { warnings: string[] } {
  const warnings: string[] = [];
  return {
    cwd: temporaryDirectory(),
    env: {},
    home: temporaryDirectory(),
    providers,
    stores,
    persistent: false,
    flags: { provider: "scripted" },
    tools: ["read"],
    onWarning: (message) => warnings.push(message),
    warnings,
    ...overrides,
  };
}

function textOf(content: unknown): string {
  return typeof content === "string"
    ? content
    : (content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("");
}

describe("extensions", () => {
  it("reach every hook and event, register a tool the scripted model calls, a provider and commands", async () => {
    const probe = installProbe([
      script.toolCall("probe_tool", { word: "hi" }),
      script.text("done"),
      script.text("second answer"),
    ]);
    const given = options({
      flags: { provider: "probe" },
      extensions: [fixture("probe.ts")],
      compaction: { keepRecentTokens: 1 },
    });
    const runtime = await createAppRuntime(given);
    try {
      expect(runtime.model).toMatchObject({ provider: "probe", id: "scripted-model" });
      expect(runtime.extensions.loaded).toEqual([
        expect.objectContaining({
          path: fixture("probe.ts"),
          origin: "flag",
          tools: ["probe_tool"],
          commands: ["probe", "probe-api"],
          providers: ["probe"],
        }),
      ]);
      expect(runtime.session.state.activeToolNames).toEqual(["read", "probe_tool"]);

      await runtime.session.prompt("use the tool");
      const result = runtime.session.state.messages.find((message) => message.role === "toolResult");
      expect(textOf(result?.content)).toBe("probe: hi");

      const outcome = await runtime.session.compact();
      expect(outcome).toMatchObject({
        kind: "compacted",
        summary: "summary from the extension",
        fromHook: true,
      });
      const firstEntry = runtime.session.session.getBranch()[0]!.id;
      await runtime.session.navigateTree(firstEntry);

      expect(new Set(probe.hooks)).toEqual(
        new Set([
          "before_agent_start",
          "context",
          "before_provider_request",
          "before_provider_payload",
          "after_provider_response",
          "tool_call",
          "tool_result",
          "session_before_compact",
          "session_before_tree",
          "prepareNextTurn",
          "shouldStopAfterTurn",
        ]),
      );
      expect(probe.events[0]).toBe("session_start");
      for (const event of ["agent_start", "turn_end", "tool_execution_end", "compaction_end", "settled"]) {
        expect(probe.events).toContain(event);
      }

      // A command: a custom entry (projected into the next call's context) and a notice.
      const notices: ExtensionNotice[] = [];
      runtime.extensions.onNotice((notice) => notices.push(notice));
      expect(runtime.extensions.commandList().map((command) => command.name)).toEqual(["probe", "probe-api"]);
      expect(await runtime.extensions.runCommandLine("/probe remember this")).toBe(true);
      expect(await runtime.extensions.runCommandLine("/unknown")).toBe(false);
      expect(notices).toEqual([
        { level: "info", message: 'probe recorded "remember this"', source: fixture("probe.ts") },
      ]);
      const custom = runtime.session.session.getBranch().filter((entry) => entry.type === "custom");
      expect(custom).toEqual([
        expect.objectContaining({ customType: "probe", data: { text: "remember this" } }),
      ]);

      await runtime.extensions.runCommand("probe-api", "");
      const branch = runtime.session.session.getBranch();
      expect(branch.some((entry) => entry.type === "label" && entry.label === "from-extension")).toBe(true);
      expect(branch.some((entry) => entry.type === "custom_message" && entry.customType === "note")).toBe(
        true,
      );
      expect(runtime.session.state.queued.nextTurn).toHaveLength(1);
      expect(notices.at(-1)).toMatchObject({ level: "warning", message: "api used" });

      await runtime.session.prompt("again");
      const lastCall = probe
        .provider!.calls.at(-1)!
        .context.messages.map((message) => textOf(message.content));
      expect(lastCall).toContain("a note from the extension");
      expect(lastCall).toContain("queued for the next prompt");
      expect(lastCall.at(-1)).toBe("probe entries: 1");
      expect(runtime.extensions.failures).toEqual([]);
    } finally {
      await runtime.dispose();
    }
    expect(probe.events.at(-1)).toBe("session_shutdown");
  });

  it("a failing extension is reported with its file and hook and skipped; the session still works", async () => {
    const cwd = temporaryDirectory();
    const directory = join(cwd, ".arbor", "extensions");
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, "syntax-error.ts"), "export default (arbor => {\n");
    const given = options({
      cwd,
      flags: { provider: "scripted" },
      tools: ["bash"],
      extensions: [
        fixture("throws-at-load.ts"),
        fixture("not-a-function.mjs"),
        fixture("throws-in-hook.ts"),
        "missing.ts",
      ],
    });
    const runtime = await createAppRuntime(given);
    try {
      const failures = runtime.extensions.failures;
      expect(failures.map((failure) => [failure.path, failure.hook])).toEqual([
        [join(directory, "syntax-error.ts"), "load"],
        [fixture("throws-at-load.ts"), "load"],
        [fixture("not-a-function.mjs"), "load"],
        [join(cwd, "missing.ts"), "load"],
      ]);
      expect(failures[1]!.message).toBe("cannot start: no config");
      expect(failures[2]!.message).toMatch(/default export is not a function/);
      expect(failures[3]!.message).toBe("no such file");
      expect(runtime.extensions.loaded.map((extension) => extension.path)).toEqual([
        fixture("throws-in-hook.ts"),
      ]);
      expect(runtime.session.state.activeToolNames).not.toContain("never_registered");
      expect(given.warnings).toContain(
        `extension ${fixture("throws-at-load.ts")} failed to load: cannot start: no config`,
      );

      // The demo model runs `ls` with `bash`: the throwing tool_call guard and turn_end listener are reported.
      await runtime.session.prompt("run ls");
      expect(runtime.session.state.messages.at(-1)).toMatchObject({ role: "assistant" });
      const hooks = runtime.extensions.failures
        .slice(4)
        .map((failure) => `${failure.hook}: ${failure.message}`);
      expect(hooks).toContain("tool_call: guard exploded");
      expect(hooks).toContain("turn_end: listener exploded");
      const result = runtime.session.state.messages.find((message) => message.role === "toolResult");
      expect(result).toMatchObject({ toolName: "bash", isError: false });
      expect(given.warnings).toContain(
        `extension ${fixture("throws-in-hook.ts")}, turn_end: listener exploded`,
      );
    } finally {
      await runtime.dispose();
    }
  });

  it("an extension cannot take an MCP tool name; its provider wins over a built-in of the same name", async () => {
    const cwd = temporaryDirectory();
    const directory = join(cwd, ".arbor", "extensions");
    mkdirSync(directory, { recursive: true });
    writeFileSync(
      join(directory, "a-provider.mjs"),
      `export default (arbor) => arbor.registerProvider("scripted", {
        id: "mine",
        models: [{ id: "demo", name: "Extension model", provider: "mine", api: "x", reasoning: false,
          input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 }],
        stream() { throw new Error("not called"); },
      });\n`,
    );
    writeFileSync(
      join(directory, "b-tool.mjs"),
      'export default (arbor) => arbor.registerTool({ name: "mcp__s__t", description: "", parameters: {}, execute() {} });\n',
    );
    const runtime = await createAppRuntime(options({ cwd }));
    try {
      expect(runtime.model).toMatchObject({ provider: "scripted", id: "demo", name: "Extension model" });
      expect(runtime.registry.providers.map((provider) => provider.id)).toEqual(["scripted"]);
      expect(runtime.extensions.failures).toEqual([
        expect.objectContaining({
          path: join(directory, "b-tool.mjs"),
          hook: "load",
          message: expect.stringMatching(/names starting with mcp__ are the MCP servers' tools/),
        }),
      ]);
    } finally {
      await runtime.dispose();
    }
  });

  it("--no-extensions loads none, not even the directories'", async () => {
    const cwd = temporaryDirectory();
    const home = temporaryDirectory();
    mkdirSync(join(home, "extensions"), { recursive: true });
    writeFileSync(join(home, "extensions", "a.ts"), "export default () => { throw new Error('loaded'); };\n");
    expect(discoverExtensions({ home, cwd })).toEqual([
      { path: join(home, "extensions", "a.ts"), origin: "global" },
    ]);
    const runtime = await createAppRuntime(options({ cwd, home, extensions: false }));
    try {
      expect(runtime.extensions.loaded).toEqual([]);
      expect(runtime.extensions.failures).toEqual([]);
    } finally {
      await runtime.dispose();
    }
  });
});
