/**
 * 07 — branching: a session is a tree. We explore one approach (SQLite), label the point where we decided,
 * go back to it with `navigateTree()` — the harness summarizes the abandoned branch into a `branch_summary`
 * entry, so the new branch keeps what was learned — and try another approach (Postgres). Then we `fork()` the
 * decision point into a session of its own, and print the tree: every entry, its label, the current leaf.
 * Runs offline, no API key:
 *
 *   pnpm exec tsx --conditions=@arbor/source examples/07-branching.ts
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScriptedProvider, type ScriptedStep, script } from "@arbor/ai-providers/testing";
import { createHarness, type HarnessSession } from "@arbor/harness";
import type { SessionTreeNode } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";

const home = await mkdtemp(join(tmpdir(), "arbor-example-07-"));
const store = new JsonlSessionStore({ home, durability: "flush" });

const model = createScriptedProvider(
  [
    script.text("Two options: SQLite (one file, no server) or Postgres (a server, concurrent writers)."),
    script.text("SQLite schema: users(id, email), notes(id, user_id, body). One file: app.db."),
    script.text("SQLite cannot take writes from the three app servers at once: the file locks."),
    script.text("Postgres it is: same schema, a connection pool per app server; no file locks."),
    script.text("In the fork: we keep both options open and benchmark them first."),
  ],
  { id: "demo", model: { id: "assistant" } },
);
// The summarizer: it reads the abandoned branch and writes what was learned there.
const summarizer = createScriptedProvider([], { id: "demo", model: { id: "summarizer" } });
const summarize: ScriptedStep = script.dynamic((call) => {
  summarizer.push(summarize);
  const branch = JSON.stringify(call.context.messages);
  const learned = branch.includes("file locks")
    ? "SQLite fails with three concurrent app servers (file locks)"
    : "nothing";
  return script.text(`## Tried\n- SQLite: schema users/notes in app.db\n\n## Learned\n- ${learned}`);
});
summarizer.push(summarize);

const harness = createHarness({
  streamFn: model.stream,
  model: model.model,
  store,
  cwd: home,
  summarizer: { model: summarizer.model, streamFn: summarizer.stream },
});

const text = (message: unknown): string => {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: { type: string; text?: string }) => (block.type === "text" ? block.text : ""))
    .join("");
};
const entryWith = (session: HarnessSession, words: string): string => {
  const ref = session.session.getPath().find((candidate) => {
    const entry = candidate.entry();
    return entry?.type === "message" && text(entry.message).includes(words);
  });
  if (ref === undefined) throw new Error(`no entry with "${words}"`);
  return ref.id;
};
const ask = async (session: HarnessSession, prompt: string) => {
  console.log(`> ${prompt}`);
  await session.prompt(prompt);
  console.log(`  ${text(session.state.messages.at(-1))}`);
};

const session = await harness.newSession({ name: "Pick a database" });
await ask(session, "Which database should the notes app use?");
const decision = entryWith(session, "Two options");
await session.label(decision, "decision point");
await ask(session, "Let's try SQLite.");
await ask(session, "We run three app servers. Does that work?");

console.log("\n-- going back to the decision point (the SQLite branch is summarized, not lost)");
const moved = await session.navigateTree(decision);
if (moved.kind === "moved" && moved.summary !== undefined) {
  console.log(`branch_summary ${moved.summaryEntryId}:\n${moved.summary.replace(/^/gm, "  | ")}`);
}
await ask(session, "Then let's use Postgres.");
const sent = model.calls.at(-1)!.context.messages;
console.log(
  `the model saw ${sent.length} messages: ${sent.map((message) => `${message.role}(${text(message).slice(0, 24)}…)`).join(", ")}`,
);

console.log("\n-- forking the decision point into a session of its own");
const fork = await session.fork(decision);
console.log(
  `fork ${fork.id.slice(0, 8)} (parent ${fork.session.header.parentSession?.slice(0, 8)}), ${fork.state.messages.length} messages`,
);
await ask(fork, "Before choosing, what would you measure?");

function describe(node: SessionTreeNode): string {
  const entry = node.entry();
  if (entry?.type === "message")
    return `${(entry.message as { role: string }).role}: ${text(entry.message).slice(0, 48)}`;
  if (entry?.type === "branch_summary") return `branch_summary (of the SQLite branch)`;
  if (entry?.type === "label") return `label "${entry.label}" on ${entry.targetId}`;
  if (entry?.type === "session_info") return `name "${entry.name}"`;
  if (entry?.type === "model_change") return `model ${entry.provider}/${entry.modelId}`;
  if (entry?.type === "thinking_level_change") return `thinking level ${entry.thinkingLevel}`;
  return entry?.type ?? node.type;
}

function printTree(current: HarnessSession): void {
  const parent = current.session.header.parentSession;
  const origin = parent === undefined ? "" : `, forked from ${parent.slice(0, 8)}`;
  console.log(
    `\ntree of session ${current.id.slice(0, 8)} "${current.session.name}"${origin} (* = current leaf):`,
  );
  const walk = (nodes: SessionTreeNode[], prefix: string) => {
    nodes.forEach((node, index) => {
      const last = index === nodes.length - 1;
      const label = node.label === undefined ? "" : `  [${node.label}]`;
      const leaf = node.id === current.session.leafId ? "  *" : "";
      console.log(`${prefix}${last ? "└─ " : "├─ "}${node.id} ${describe(node)}${label}${leaf}`);
      walk(node.children, prefix + (last ? "   " : "│  "));
    });
  };
  walk(current.session.getTree(), "");
}

printTree(session);
printTree(fork);
await harness.close();
await store.close();
await rm(home, { recursive: true, force: true });
