/**
 * 10 — an extension as a `tool_call` guard: `createAppRuntime({ extensions: [...] })` loads
 * `extensions/block-rm-rf.ts` (TypeScript, no build step). The scripted model asks `bash` for `rm -rf build`;
 * the guard blocks it, the model sees the reason as an error result, and the directory survives. The same file
 * works in the CLI: `arbor --extension examples/extensions/block-rm-rf.ts`. Runs offline, no API key:
 *
 *   pnpm exec tsx --conditions=@arbor/source examples/10-extension-tool-guard.ts
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { createAppRuntime } from "@arbor/app-runtime";

const project = mkdtempSync(join(tmpdir(), "arbor-example-10-"));
mkdirSync(join(project, "build"));
writeFileSync(join(project, "build", "app.js"), "console.log('built');\n");

const model = createScriptedProvider(
  [
    script.toolCall("bash", { command: "rm -rf build" }),
    script.text("The guard refused; I will leave build/ alone."),
  ],
  { model: { id: "demo" } },
);
const runtime = await createAppRuntime({
  cwd: project,
  env: {},
  home: join(project, ".arbor-home"),
  providers: { scripted: async () => ({ createDemoProvider: () => model }) },
  stores: {},
  persistent: false,
  flags: { provider: "scripted" },
  tools: ["bash"],
  extensions: [fileURLToPath(new URL("./extensions/block-rm-rf.ts", import.meta.url))],
  onWarning: (message) => console.log(`notice: ${message}`),
});
try {
  console.log(`loaded: ${runtime.extensions.loaded.map((extension) => extension.path).join(", ")}`);
  await runtime.session.prompt("Clean the build directory.");
  for (const message of runtime.session.state.messages) {
    if (message.role !== "toolResult") continue;
    const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    console.log(`tool ${message.toolName}: ${message.isError ? "error" : "ok"}: ${text}`);
  }
  console.log(`build/ still exists: ${existsSync(join(project, "build", "app.js"))}`);
} finally {
  await runtime.dispose();
}
