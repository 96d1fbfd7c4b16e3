import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateSessionEntry, validateSessionHeader } from "../src/backend.js";
import {
  COMPACTION_SUMMARY_PREFIX,
  convertSessionMessagesToLlm,
  MemorySessionStore,
  Session,
  type SessionEntry,
  type SessionHeader,
} from "../src/index.js";
import { assistant, describeMessages, PI_FIXTURES, tickingClock, user } from "./helpers.js";

/** The lines of a fixture file, parsed. */
function readFixture(name: string): { header: SessionHeader; entries: SessionEntry[] } {
  const lines = readFileSync(join(PI_FIXTURES, name), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as unknown);
  const [header, ...entries] = lines;
  return { header: header as SessionHeader, entries: entries as SessionEntry[] };
}

/** Loads a fixture into a memory store and opens it. */
async function openFixture(name: string) {
  const { header, entries } = readFixture(name);
  const store = new MemorySessionStore();
  await store.createSession(header);
  await store.appendEntries(header.id, entries);
  const session = await Session.open(store, header.id, { now: tickingClock() });
  return { store, session, header, entries };
}

/** Appends a user / assistant exchange, flushes, reopens; checks the old entries are unchanged. */
async function continueAndReopen(name: string) {
  const { store, session, header, entries } = await openFixture(name);
  const leaf = session.leafId;
  const question = session.appendMessage(user("Arbor continues this session"));
  const answer = session.appendMessage(assistant("Continued."));
  expect(question.parentId).toBe(leaf);
  await session.flush();
  const reopened = await Session.open(store, header.id);
  expect(reopened.entryCount).toBe(entries.length + 2);
  expect(reopened.leafId).toBe(answer.id);
  const stored = (await store.readSession(header.id)).entries.map((entry) => entry.entry());
  expect(stored.slice(0, entries.length)).toEqual(entries);
  const context = reopened.buildContext();
  expect(describeMessages(context.messages.slice(-2))).toEqual([
    "user: Arbor continues this session",
    "assistant: Continued.",
  ]);
  expect(reopened.warnings).toEqual([]);
  return { before: session, reopened };
}

const FILES = [
  "01-plain-chat.anthropic.jsonl",
  "03-tool-calls-write-read-bash.openai-completions.jsonl",
  "05-compaction-manual-rpc.anthropic.jsonl",
  "08-branch-with-branch-summary.anthropic.jsonl",
];

describe("pi agent session files (version 3)", () => {
  it.each(FILES)("%s: every line is valid against the schemas", (name) => {
    const { header, entries } = readFixture(name);
    expect(validateSessionHeader(header)).toEqual({ ok: true, value: header });
    for (const entry of entries) expect(validateSessionEntry(entry)).toMatchObject({ ok: true });
  });

  it.each(FILES)("%s: continues and reopens", async (name) => {
    await continueAndReopen(name);
  });

  it("01 plain chat: a chain of settings and two messages", async () => {
    const { session } = await openFixture(FILES[0] ?? "");
    expect(session.getPath().map((ref) => `${ref.type}:${ref.id}`)).toEqual([
      "model_change:f5e1a549",
      "thinking_level_change:f0448b6c",
      "message:cb754f00",
      "message:56474dac",
    ]);
    expect(session.getTree()).toHaveLength(1);
    const context = session.buildContext();
    expect(describeMessages(context.messages)).toEqual([
      "user: Hello pi, this is a plain chat about the mock server",
      "assistant: You said: Hello pi, this is a plain chat about the mock server",
    ]);
    expect(context).toMatchObject({
      leafId: "56474dac",
      thinkingLevel: "off",
      model: { provider: "mock-anthropic", modelId: "mock-claude" },
      activeToolNames: undefined,
      compactionId: undefined,
      repairs: [],
    });
    expect(context.entryIds).toEqual(["cb754f00", "56474dac"]);
  });

  it("03 tool calls: results paired with their calls, parallel calls included", async () => {
    const { session } = await openFixture(FILES[1] ?? "");
    const context = session.buildContext();
    expect(describeMessages(context.messages)).toEqual([
      expect.stringMatching(/^user: Make a file and check it/),
      "assistant: call(call_mock_816096866e8094e0eed8)",
      "result(call_mock_816096866e8094e0eed8)",
      "assistant: call(call_mock_d1262542456f641c45e8) call(call_mock_57ff36657720575e31a5)",
      "result(call_mock_d1262542456f641c45e8)",
      "result(call_mock_57ff36657720575e31a5)",
      expect.stringMatching(/^assistant: Received 2 tool results/),
    ]);
    expect(context.repairs).toEqual([]);
    expect(context.model).toEqual({ provider: "mock-openai", modelId: "mock-gpt" });
    expect(convertSessionMessagesToLlm(context.messages)).toEqual(context.messages);
  });

  it("05 compaction: the summary, then the kept assistant message and what follows", async () => {
    const { session, entries } = await openFixture(FILES[2] ?? "");
    const compaction = entries.find((entry) => entry.type === "compaction");
    const context = session.buildContext();
    expect(context.compactionId).toBe("f01eb8c2");
    expect(context.entryIds).toEqual([
      "f01eb8c2",
      "2441c2e0",
      "3032dfe9",
      "d6fb0e4c",
      "876e5982",
      "ba0c4a95",
    ]);
    expect(context.messages[0]).toEqual({
      role: "compactionSummary",
      summary: compaction?.type === "compaction" ? compaction.summary : "",
      tokensBefore: 6791,
      timestamp: Date.parse("2026-11-30T12:27:35.711Z"),
    });
    expect(describeMessages(context.messages.slice(1))).toEqual([
      expect.stringMatching(/^assistant: Lagoon fjord/),
      expect.stringMatching(/^user: After compaction: what were we doing\?/),
      "assistant: call(toolu_mock_ce0ec3c9784288bab06b)",
      "result(toolu_mock_ce0ec3c9784288bab06b)",
      'assistant: Tool result received from ls: "index.ts"',
    ]);
    const [first] = convertSessionMessagesToLlm(context.messages);
    expect(first?.role).toBe("user");
    expect(JSON.stringify(first?.content)).toContain(JSON.stringify(COMPACTION_SUMMARY_PREFIX).slice(1, -1));
    expect(context).toMatchObject({
      thinkingLevel: "off",
      model: { provider: "mock-anthropic", modelId: "mock-claude" },
    });
    // The full history stays in the tree.
    expect(session.getBranch()).toHaveLength(entries.length);
  });

  it("08 branch: two children at the branch point, the summary and label on the new path", async () => {
    const { session } = await openFixture(FILES[3] ?? "");
    expect(session.children("bbd4e133").map((ref) => `${ref.type}:${ref.id}`)).toEqual([
      "message:14c6c82a",
      "branch_summary:5b4acce3",
    ]);
    expect(session.getLabel("5b4acce3")).toBe("branch-point");
    expect(session.leafId).toBe("46a34590");
    const context = session.buildContext();
    expect(describeMessages(context.messages)).toEqual([
      expect.stringMatching(/^user: First question/),
      "assistant: call(toolu_mock_41680378b9a641270ed7)",
      "result(toolu_mock_41680378b9a641270ed7)",
      expect.stringMatching(/^assistant: Tool result received from ls/),
      expect.stringMatching(/^branchSummary: The user explored a different conversation branch/),
      expect.stringMatching(/^user: Branch B: look at the source instead/),
      "assistant: call(toolu_mock_04092cd4c56a4351048a)",
      "result(toolu_mock_04092cd4c56a4351048a)",
      expect.stringMatching(/^assistant: Tool result received from bash/),
    ]);
    expect(context.messages[4]).toMatchObject({ role: "branchSummary", fromId: "bbd4e133" });
    // The abandoned branch is still there, with its own context.
    expect(describeMessages(session.buildContext("976cce3b").messages).slice(4)).toEqual([
      expect.stringMatching(/^user: Branch A: read the notes/),
      "assistant: call(toolu_mock_09ab464e4745d167196a)",
      "result(toolu_mock_09ab464e4745d167196a)",
      expect.stringMatching(/^assistant: Tool result received from read/),
    ]);
    const tree = session.getTree();
    expect(tree).toHaveLength(1);
    expect(tree[0]?.id).toBe("e7e3b378");
  });

  it("08 branch: forks the current path into a new session and moves back to the branch point", async () => {
    const { store, session } = await openFixture(FILES[3] ?? "");
    const fork = await session.fork("4af61d01", { position: "before" });
    expect(fork.header.parentSession).toBe(session.id);
    expect(
      fork
        .getPath()
        .map((ref) => ref.id)
        .slice(-3),
    ).toEqual(["bbd4e133", "5b4acce3", "cd1d599a"]);
    expect(fork.getLabel("5b4acce3")).toBe("branch-point");
    expect((await Session.open(store, fork.id)).getBranch()).toEqual(fork.getBranch());

    session.moveTo("bbd4e133", "Branch B looked at src/index.ts");
    expect(describeMessages(session.buildContext().messages).at(-1)).toBe(
      "branchSummary: Branch B looked at src/index.ts",
    );
  });
});
