import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createScriptedProvider, type ScriptedStep, script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import { type AppRuntimeOptions, createAppRuntime } from "../src/create-app-runtime.js";
import { temporaryDirectory, writeJson } from "./helpers.js";

// The MCP package's test server (the SDK's Server class over stdio) and a server that dies at start.
const serverScript = fileURLToPath(new URL("../../mcp/test/fixtures/mcp-test-server.mjs", import.meta.url));
const failScript = fileURLToPath(new URL("../../mcp/test/fixtures/fail-server.mjs", import.meta.url));

function options(steps: ScriptedStep[], overrides: Partial<AppRuntimeOptions> = {}) {
  const warnings: string[] = [];
  const provider = createScriptedProvider(steps, { id: "scripted", model: { id: "demo" } });
  const home = temporaryDirectory();
  writeJson(join(home, "settings.json"), {
    mcpServers: {
      local: { command: process.execPath, args: [serverScript, "--stdio"] },
      broken: { command: process.execPath, args: [failScript] },
    },
  });
  const given: AppRuntimeOptions = {
    cwd: temporaryDirectory(),
    env: {},
    home,
    providers: { scripted: async () => ({ createDemoProvider: () => provider }) },
    stores: {},
    persistent: false,
    flags: { provider: "scripted" },
    onWarning: (message) => warnings.push(message),
    ...overrides,
  };
  return { given, warnings, provider };
}

describe("MCP servers of settings.json in the runtime", () => {
  it("their tools join the session, a failing server is one warning, and dispose stops them", async () => {
    const { given, warnings, provider } = options([
      script.toolCall("mcp__local__echo", { text: "over stdio" }),
      script.text("the server answered"),
    ]);
    const runtime = await createAppRuntime(given);
    let mcp: typeof runtime.mcp;
    try {
      mcp = runtime.mcp;
      expect(warnings).toEqual([
        expect.stringMatching(/^MCP server "broken" failed to start: .*missing API token/),
      ]);
      expect(runtime.session.state.activeToolNames).toEqual(
        expect.arrayContaining(["read", "bash", "mcp__local__echo", "mcp__local__add"]),
      );
      await runtime.session.prompt("call the server");
      const result = runtime.session.state.messages.find((message) => message.role === "toolResult");
      expect(result).toMatchObject({
        toolName: "mcp__local__echo",
        content: [{ type: "text", text: "echo: over stdio" }],
      });
      expect(runtime.session.state.messages.at(-1)).toMatchObject({ stopReason: "stop" });
      provider.assertDone();
      expect(mcp!.status().map((server) => [server.name, server.state])).toEqual([
        ["local", "ready"],
        ["broken", "failed"],
      ]);
    } finally {
      await runtime.dispose();
    }
    expect(mcp!.status()[0]!.state).toBe("closed");
  });

  it("--tools allow-lists MCP tools like built-ins; a server none of whose tools is allowed never starts", async () => {
    const { given, warnings } = options([], { tools: ["read", "mcp__local__add"] });
    const runtime = await createAppRuntime(given);
    try {
      expect(runtime.session.state.activeToolNames).toEqual(["read", "mcp__local__add"]);
      expect(runtime.mcp!.status().map((server) => server.state)).toEqual(["ready", "stopped"]);
      expect(warnings).toEqual([]);
    } finally {
      await runtime.dispose();
    }
  });

  it("a configuration @arbor/mcp refuses is one settings error naming the server and field, before anything runs", async () => {
    const { given } = options([]);
    writeJson(join(given.home!, "settings.json"), { mcpServers: { local: { command: 7 } } });
    const failure = await createAppRuntime(given).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({
      name: "ArborUserError",
      code: "invalid_settings",
      message: expect.stringMatching(
        /^Invalid mcpServers in the settings: MCP server "local" at \/command: /,
      ),
    });
  });
});
