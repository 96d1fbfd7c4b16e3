import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ScriptedStep, script } from "@arbor/ai-providers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createAppRuntime } from "../src/create-app-runtime.js";
import type { ProviderFactories, StoreFactories } from "../src/factories.js";
import { temporaryDirectory } from "./helpers.js";

const stores: StoreFactories = { jsonl: () => import("@arbor/session-store-jsonl") };
const providers: ProviderFactories = { scripted: () => import("../src/demo/index.js") };
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/extensions/${name}`, import.meta.url));

interface Probe {
  steps: ScriptedStep[];
  hooks: string[];
  events: string[];
  provider?: { calls: { context: { tools?: { name: string; parameters: unknown }[] } }[] };
}

afterEach(() => {
  delete (globalThis as { __arborProbe?: Probe }).__arborProbe;
});

describe("extension tools with JSON Schema and Standard Schema", () => {
  it("run when called; the model sees JSON Schemas; a bad schema fails the extension's load", async () => {
    const probe: Probe = {
      steps: [
        script.toolCalls([
          { name: "json_tool", arguments: { n: "4" }, id: "a" },
          { name: "std_tool", arguments: { word: "hi" }, id: "b" },
          { name: "std_tool", arguments: { word: 1 }, id: "c" },
          { name: "json_tool", arguments: {}, id: "d" },
        ]),
        script.text("done"),
      ],
      hooks: [],
      events: [],
    };
    (globalThis as { __arborProbe?: Probe }).__arborProbe = probe;
    const cwd = temporaryDirectory();
    const directory = join(cwd, ".arbor", "extensions");
    mkdirSync(directory, { recursive: true });
    writeFileSync(
      join(directory, "bad-schema.mjs"),
      'export default (arbor) => arbor.registerTool({ name: "bad", description: "", parameters: { type: "string" }, execute() {} });\n',
    );
    const runtime = await createAppRuntime({
      cwd,
      env: {},
      home: temporaryDirectory(),
      providers,
      stores,
      persistent: false,
      flags: { provider: "probe" },
      tools: ["read"],
      extensions: [fixture("probe.ts"), fixture("schema-tools.ts")],
      onWarning: () => {},
    });
    try {
      expect(runtime.extensions.failures).toEqual([
        expect.objectContaining({
          path: join(directory, "bad-schema.mjs"),
          hook: "load",
          message:
            'The parameters of tool "bad" are not a usable schema: its root is of type "string", not an object schema (a tool takes named arguments).',
        }),
      ]);
      expect(runtime.session.state.activeToolNames).toEqual(["read", "probe_tool", "json_tool", "std_tool"]);
      await runtime.session.prompt("use the tools");
      const results = runtime.session.state.messages.filter((message) => message.role === "toolResult");
      const texts = results.map((message) =>
        (message.content as { type: string; text?: string }[]).map((block) => block.text ?? "").join(""),
      );
      expect(texts[0]).toBe("json: 5");
      expect(texts[1]).toBe("std: HI");
      expect(texts[2]).toContain('Invalid arguments for tool "std_tool":\n  - /word: word must be a string');
      expect(texts[3]).toContain(
        'Invalid arguments for tool "json_tool":\n  - /n: required property missing',
      );
      expect(results.map((message) => message.isError)).toEqual([false, false, true, true]);
      const sent = probe.provider?.calls[0]?.context.tools ?? [];
      expect(sent.find((tool) => tool.name === "std_tool")?.parameters).toEqual({
        type: "object",
        properties: { word: { type: "string" } },
        required: ["word"],
      });
    } finally {
      await runtime.dispose();
    }
  });
});
