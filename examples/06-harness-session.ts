/**
 * 06 — a harness session: `createHarness()` wires a (scripted) model, a JSONL session store in a temporary
 * ARBOR_HOME, a `read_file` tool and the project's AGENTS.md into one running session. The agent reads ten
 * large files in one tool loop; halfway the context crosses the compaction threshold, so the harness
 * summarizes the older history *before the next model call* and the run goes on. Every save point (one per
 * turn) is written to the session file. Then the session is closed, reopened from the file by a new harness,
 * and continued: its context is rebuilt exactly. Runs offline, no API key:
 *
 *   pnpm exec tsx --conditions=@arbor/source examples/06-harness-session.ts
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool, Type } from "@arbor/agent-core";
import { createScriptedProvider, type ScriptedStep, script } from "@arbor/ai-providers/testing";
import { createHarness, type HarnessEvent, type HarnessSession } from "@arbor/harness";
import { createResourceLoader, createSystemPromptBuilder } from "@arbor/harness/resources";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";

const root = await mkdtemp(join(tmpdir(), "arbor-example-06-"));
const home = join(root, "arbor-home");
const project = join(root, "project");
await mkdir(join(project, "src"), { recursive: true });
await writeFile(join(project, "AGENTS.md"), "Answer briefly. Never modify files in src/legacy.\n");
for (let module = 1; module <= 10; module++) {
  const body = Array.from({ length: 200 }, (_, line) => `  step${line}(); // module ${module}`).join("\n");
  await writeFile(
    join(project, "src", `module-${module}.ts`),
    `export function module${module}() {\n${body}\n}\n`,
  );
}

const readFileTool = defineTool({
  name: "read_file",
  description: "Read a file of the project.",
  parameters: Type.Object({ path: Type.String({ description: "Path relative to the project" }) }),
  async execute({ path }) {
    return { content: [{ type: "text", text: await readFile(join(project, path), "utf8") }] };
  },
});

// The session's "model" (a 12,000-token window) and a separate summarizer model.
const model = createScriptedProvider([], { id: "demo", model: { id: "coder", contextWindow: 12_000 } });
const summarizer = createScriptedProvider([], {
  id: "demo",
  model: { id: "summarizer", contextWindow: 64_000 },
});
const summarize: ScriptedStep = script.dynamic((call) => {
  summarizer.push(summarize);
  const request = JSON.stringify(call.context.messages);
  const read = [...new Set(request.match(/module-\d+\.ts/g) ?? [])].sort();
  return script.text(
    `## Goal\n- Review the ten modules\n\n## Progress\n### Done\n- [x] Read ${read.join(", ")}\n\n## Next Steps\n1. Read the remaining modules`,
  );
});
summarizer.push(summarize);
for (let module = 1; module <= 10; module++)
  model.push(script.toolCall("read_file", { path: `src/module-${module}.ts` }));
model.push(script.text("All ten modules call step0() to step199() in order; none touches src/legacy."));
model.push(script.text("Module 10: it was the last read_file call, after the earlier ones were summarized."));

const store = new JsonlSessionStore({ home, durability: "flush" });
const options = {
  streamFn: model.stream,
  model: model.model,
  models: [summarizer.model],
  tools: [readFileTool],
  cwd: project,
  resources: createResourceLoader({ home }),
  systemPrompt: createSystemPromptBuilder(),
  settings: { compaction: { reserveTokens: 2000, keepRecentTokens: 3000, model: "demo/summarizer" } },
};
const harness = createHarness({
  ...options,
  store,
  summarizer: { model: summarizer.model, streamFn: summarizer.stream },
});
const session = await harness.newSession({ name: "Module review" });
console.log(`session ${session.id} in ${store.pathOf(session.id)?.replace(root, "<tmp>")}`);
console.log(
  `system prompt: ${session.systemPrompt.length} chars, includes AGENTS.md: ${session.systemPrompt.includes("Never modify files in src/legacy")}`,
);

function show(event: HarnessEvent, current: HarnessSession): void {
  const usage = current.contextUsage();
  switch (event.type) {
    case "tool_execution_start":
      console.log(
        `  turn: ${event.toolName}(${JSON.stringify(event.args)})  context ${usage.tokens} / ${usage.contextWindow} tokens`,
      );
      break;
    case "compaction_start":
      console.log(
        `  >> compaction (${event.reason}): ${event.tokensBefore} tokens is over ${usage.compactionThreshold}`,
      );
      break;
    case "compaction_end":
      if (event.outcome.kind === "compacted") {
        console.log(
          `  << compacted before the next model call: ${event.tokensBefore} -> ${event.tokensAfter} tokens`,
        );
        console.log(
          `     summary: ${event.outcome.summary.split("\n").find((line) => line.startsWith("- [x]"))}`,
        );
      } else console.log(`  << compaction: ${event.outcome.kind}`);
      break;
    case "save_point":
      console.log(
        `  [saved ${event.entryIds.length} ${event.entryIds.length === 1 ? "entry" : "entries"} at ${event.reason}]`,
      );
      break;
    case "message_end":
      if (event.message.role === "assistant" && event.message.content[0]?.type === "text") {
        console.log(`  assistant: ${event.message.content[0].text}`);
      }
      break;
  }
}

console.log("\n> Read every module and tell me what they do.");
session.subscribe((event) => show(event, session));
await session.prompt("Read every module and tell me what they do.");
const before = JSON.stringify(session.state.messages);
const entries = session.session.entryCount;
console.log(
  `\nafter the run: ${entries} entries in the file, ${session.state.messages.length} messages in the context`,
);
await harness.close();
await store.close();

// A new process would do exactly this: a new store over the same home, a new harness, open by id.
const reopenedStore = new JsonlSessionStore({ home, durability: "flush" });
const again = createHarness({
  ...options,
  store: reopenedStore,
  summarizer: { model: summarizer.model, streamFn: summarizer.stream },
});
const reopened = await again.openSession(session.id);
console.log(
  `\nreopened "${reopened.session.name}": context identical to before closing: ${JSON.stringify(reopened.state.messages) === before}`,
);
console.log(
  `  it starts with the compaction summary: ${(reopened.state.messages[0] as { role: string } | undefined)?.role === "compactionSummary"}`,
);
console.log("\n> Which module did you read last?");
reopened.subscribe((event) => show(event, reopened));
await reopened.prompt("Which module did you read last?");
await again.close();
await reopenedStore.close();
await rm(root, { recursive: true, force: true });
