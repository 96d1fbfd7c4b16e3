/**
 * 11 — an extension that writes the compaction summary: `extensions/compaction-summary.ts` handles
 * `session_before_compact` and returns its own summary, so compacting calls no model. Three scripted turns,
 * then `compact()`: the `compaction` entry holds the extension's summary, and the next model call sees it.
 * Runs offline, no API key:
 *
 *   pnpm exec tsx --conditions=@arbor/source examples/11-extension-compaction.ts
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { createAppRuntime } from "@arbor/app-runtime";

const project = mkdtempSync(join(tmpdir(), "arbor-example-11-"));
const model = createScriptedProvider(
  [
    script.text("Plan: parse, validate, then store."),
    script.text("Validation rejects empty names."),
    script.text("Stored in SQLite."),
    script.text("We parsed, validated and stored the input."),
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
  tools: false,
  compaction: { keepRecentTokens: 1 },
  extensions: [fileURLToPath(new URL("./extensions/compaction-summary.ts", import.meta.url))],
});
try {
  await runtime.session.prompt("Plan the importer.");
  await runtime.session.prompt("How do we validate?");
  await runtime.session.prompt("Where do we store it?");
  const outcome = await runtime.session.compact();
  if (outcome.kind !== "compacted") throw new Error(`expected a compaction, got ${outcome.kind}`);
  console.log(outcome.summary);
  console.log(
    `compacted by the extension (fromHook: ${outcome.fromHook}), ${outcome.tokensBefore} tokens before`,
  );
  await runtime.session.prompt("Recap, please.");
  const seen = model.calls.at(-1)!.context.messages.map((message) => message.role);
  console.log(`the next call sees ${seen.length} messages: ${seen.join(", ")}`);
} finally {
  await runtime.dispose();
}
