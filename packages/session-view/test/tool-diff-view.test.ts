import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool, Type } from "@arbor/agent-core";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { createHarness, type HarnessSession } from "@arbor/harness";
import { MemorySessionStore } from "@arbor/session-store";
import { afterEach, describe, expect, test } from "vitest";
import { SessionViewModel, type TranscriptItem } from "../src/index.js";
import { isCutToolItem } from "../src/transcript-items.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** An `edit` that records what Arbor's edit tool records: a unified diff and its counts. */
const edit = defineTool({
  name: "edit",
  description: "Edit a file",
  parameters: Type.Object({ path: Type.String(), edits: Type.Array(Type.Unknown()) }),
  execute: ({ path }) => ({
    content: [{ type: "text", text: `Edited ${path}: 1 replacement, +1 -1 lines, first change at line 1.` }],
    details: {
      path,
      diff: `--- ${path}\n+++ ${path}\n@@ -1,2 +1,2 @@\n-const a = 1;\n+const a = 2;\n export { a };\n`,
      firstChangedLine: 1,
      replacements: 1,
      linesAdded: 1,
      linesRemoved: 1,
    },
  }),
});

const many = defineTool({
  name: "many",
  description: "Print many lines",
  parameters: Type.Object({ count: Type.Number() }),
  execute: ({ count }) => ({
    content: [
      { type: "text", text: Array.from({ length: count }, (_, index) => `line ${index + 1}`).join("\n") },
    ],
  }),
});

async function startSession(): Promise<HarnessSession> {
  const root = await mkdtemp(join(tmpdir(), "arbor-session-view-"));
  const provider = createScriptedProvider([
    script.toolCall("edit", {
      path: "math.js",
      edits: [{ oldText: "const a = 1;", newText: "const a = 2;" }],
    }),
    script.toolCall("many", { count: 40 }),
    script.text("done"),
  ]);
  const harness = createHarness({
    streamFn: provider.stream,
    model: provider.model,
    store: new MemorySessionStore(),
    cwd: root,
    tools: [edit as never, many as never],
  });
  const session = await harness.newSession();
  cleanups.push(async () => {
    await session.close();
    await rm(root, { recursive: true, force: true });
  });
  return session;
}

function toolItems(items: readonly TranscriptItem[]) {
  return items.filter((item) => item.kind === "tool");
}

describe("tool diffs in the view model", () => {
  test("an edit's item carries its diff and a short line; Ctrl-O's expansion shows a cut output whole", async () => {
    const session = await startSession();
    const view = new SessionViewModel({ persistent: false, streamFrameMs: 0 });
    view.attach(session);
    await session.prompt("change a");
    await session.waitForIdle();

    const [edited, printed] = toolItems(view.transcript.items);
    expect(edited).toMatchObject({ name: "edit", argumentLine: "math.js (+1 −1)" });
    expect(
      edited?.kind === "tool" && edited.diff?.hunks[0]?.lines.map((line) => `${line.kind} ${line.text}`),
    ).toEqual(["remove const a = 1;", "add const a = 2;", "context export { a };"]);
    expect(edited !== undefined && isCutToolItem(edited)).toBe(false);
    expect(printed?.kind === "tool" && printed.output).toMatchObject({ more: 34 });

    expect(view.expandLastTool()).toBe(true);
    const expanded = view.transcript.items.at(-1);
    expect(expanded).toMatchObject({ kind: "tool", name: "many", expanded: true });
    expect(expanded?.kind === "tool" && expanded.output.lines).toHaveLength(40);
    expect(expanded?.kind === "tool" && expanded.output.more).toBe(0);
    // Nothing cut is left after the expansion: a notice says so.
    expect(view.expandLastTool()).toBe(false);
    expect(view.transcript.items.at(-1)).toMatchObject({
      kind: "notice",
      text: "no cut tool output to expand",
    });

    // A replay of the session (its messages, with details) gives the same diff.
    const replayed = new SessionViewModel({ persistent: false, streamFrameMs: 0 });
    replayed.replay(session.state.messages);
    expect(toolItems(replayed.transcript.items)[0]).toMatchObject({ argumentLine: "math.js (+1 −1)" });
  });
});
