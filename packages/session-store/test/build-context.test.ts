import { describe, expect, it } from "vitest";
import {
  type AppendableMessage,
  BRANCH_SUMMARY_PREFIX,
  BRANCH_SUMMARY_SUFFIX,
  COMPACTION_SUMMARY_PREFIX,
  COMPACTION_SUMMARY_SUFFIX,
  convertSessionMessagesToLlm,
  MemorySessionStore,
  Session,
  type SessionEntry,
  type SessionMessage,
} from "../src/index.js";
import { assistant, call, describeMessages, result, tickingClock, user } from "./helpers.js";

async function newSession() {
  const store = new MemorySessionStore();
  const session = await Session.create(store, { cwd: "/project", now: tickingClock() });
  return { store, session };
}

describe("Session.buildContext", () => {
  it("returns the whole path without a compaction, and nothing for an empty session", async () => {
    const { session } = await newSession();
    expect(session.buildContext()).toMatchObject({ messages: [], leafId: null, model: undefined });
    session.appendMessage(user("hello"));
    session.appendMessage(assistant("hi"));
    const context = session.buildContext();
    expect(describeMessages(context.messages)).toEqual(["user: hello", "assistant: hi"]);
    expect(context.compactionId).toBeUndefined();
    expect(context.entryIds).toEqual(session.getPath().map((ref) => ref.id));
  });

  it("starts at the latest compaction: its summary, the kept span from firstKeptEntryId, then what follows", async () => {
    const { session } = await newSession();
    session.appendMessage(user("u1"));
    session.appendMessage(assistant("a1"));
    const kept = session.appendMessage(user("u2"));
    session.appendMessage(assistant("a2"));
    const compaction = session.appendCompaction({
      summary: "u1 and a1 happened",
      firstKeptEntryId: kept.id,
      tokensBefore: 1234,
      details: { readFiles: ["a.txt"], modifiedFiles: [] },
    });
    session.appendMessage(user("u3"));
    session.appendMessage(assistant("a3"));

    const context = session.buildContext();
    expect(describeMessages(context.messages)).toEqual([
      "compactionSummary: u1 and a1 happened",
      "user: u2",
      "assistant: a2",
      "user: u3",
      "assistant: a3",
    ]);
    expect(context.messages[0]).toEqual({
      role: "compactionSummary",
      summary: "u1 and a1 happened",
      tokensBefore: 1234,
      timestamp: Date.parse(compaction.timestamp),
    });
    expect(context.compactionId).toBe(compaction.id);
    expect(context.entryIds[0]).toBe(compaction.id);
    expect(context.entryIds[1]).toBe(kept.id);
  });

  it("keeps a span that reaches back over an earlier compaction (iterative compaction, same boundary)", async () => {
    const { session } = await newSession();
    session.appendMessage(user("u1"));
    const boundary = session.appendMessage(user("u2"));
    session.appendMessage(assistant("a2"));
    session.appendCompaction({ summary: "first", firstKeptEntryId: boundary.id, tokensBefore: 100 });
    session.appendMessage(user("u3"));
    session.appendCompaction({ summary: "second", firstKeptEntryId: boundary.id, tokensBefore: 200 });
    session.appendMessage(user("u4"));
    expect(describeMessages(session.buildContext().messages)).toEqual([
      "compactionSummary: second",
      "user: u2",
      "assistant: a2",
      "user: u3",
      "user: u4",
    ]);
  });

  it("turns a navigation with a summary into a branchSummary message on the new path (seed 000, section 7)", async () => {
    const { session } = await newSession();
    session.appendMessage(user("a"));
    session.appendMessage(assistant([call("t1")]));
    session.appendMessage(result("t1"));
    const b = session.appendMessage(user("b"));
    session.appendMessage(user("c"));
    session.appendMessage(assistant("assist 2"));
    session.moveTo(b.id);
    session.appendMessage(user("d"));
    session.appendMessage(assistant("assist 3"));

    const moved = session.moveTo(b.id, { summary: "tried d, got assist 3", details: { readFiles: [] } });
    const summary = moved.entries[0];
    expect(summary).toMatchObject({ type: "branch_summary", parentId: b.id, fromId: b.id });
    expect(session.leafId).toBe(summary?.id);
    session.appendMessage(user("e"));
    session.appendMessage(assistant("assist 4"));

    expect(describeMessages(session.buildContext().messages)).toEqual([
      "user: a",
      "assistant: call(t1)",
      "result(t1)",
      "user: b",
      "branchSummary: tried d, got assist 3",
      "user: e",
      "assistant: assist 4",
    ]);
  });

  it("turns custom_message entries into custom messages and leaves out entries the model does not see", async () => {
    const { session } = await newSession();
    const first = session.appendMessage(user("u1"));
    session.appendCustom("my-extension", { count: 1 });
    session.appendLabel(first.id, "start");
    session.appendSessionInfo("A name");
    const custom = session.appendCustomMessage({
      customType: "reminder",
      content: "remember the tests",
      display: false,
      details: { source: "hook" },
    });
    session.appendThinkingLevelChange("high");
    session.appendMessage(assistant("a1"));
    const context = session.buildContext();
    expect(describeMessages(context.messages)).toEqual([
      "user: u1",
      "custom: remember the tests",
      "assistant: a1",
    ]);
    expect(context.messages[1]).toEqual({
      role: "custom",
      customType: "reminder",
      content: "remember the tests",
      display: false,
      details: { source: "hook" },
      timestamp: Date.parse(custom.timestamp),
    });
  });

  it("derives thinking level, model and active tools from the path", async () => {
    const { session } = await newSession();
    expect(session.buildContext()).toMatchObject({
      thinkingLevel: undefined,
      model: undefined,
      activeToolNames: undefined,
    });
    session.appendModelChange("anthropic", "claude-a");
    session.appendThinkingLevelChange("low");
    session.appendActiveToolsChange(["read", "bash"]);
    const fork = session.appendMessage(user("u1"));
    expect(session.buildContext()).toMatchObject({
      thinkingLevel: "low",
      model: { provider: "anthropic", modelId: "claude-a" },
      activeToolNames: ["read", "bash"],
    });

    // An assistant message later on the path than the latest model_change sets the model.
    session.appendMessage(assistant("a1", { provider: "openai", model: "gpt-x" }));
    expect(session.buildContext().model).toEqual({ provider: "openai", modelId: "gpt-x" });
    // A model_change after it wins again; later settings replace earlier ones.
    session.appendModelChange("anthropic", "claude-b");
    session.appendThinkingLevelChange("high");
    session.appendActiveToolsChange(["read"]);
    expect(session.buildContext()).toMatchObject({
      thinkingLevel: "high",
      model: { provider: "anthropic", modelId: "claude-b" },
      activeToolNames: ["read"],
    });

    // Settings on another branch do not apply.
    session.moveTo(fork.id);
    session.appendMessage(user("u2"));
    expect(session.buildContext()).toMatchObject({
      thinkingLevel: "low",
      model: { provider: "anthropic", modelId: "claude-a" },
      activeToolNames: ["read", "bash"],
    });
  });

  it("finds settings written before the latest compaction", async () => {
    const { session } = await newSession();
    session.appendModelChange("anthropic", "claude-a");
    session.appendThinkingLevelChange("medium");
    session.appendMessage(user("u1"));
    const kept = session.appendMessage(user("u2"));
    session.appendCompaction({ summary: "s", firstKeptEntryId: kept.id, tokensBefore: 1 });
    session.appendMessage(user("u3"));
    expect(session.buildContext()).toMatchObject({
      thinkingLevel: "medium",
      model: { provider: "anthropic", modelId: "claude-a" },
    });
  });

  it("builds the context of any leaf, not only the current one", async () => {
    const { session } = await newSession();
    const root = session.appendMessage(user("root"));
    const left = session.appendMessage(assistant("left"));
    session.moveTo(root.id);
    session.appendMessage(assistant("right"));
    expect(describeMessages(session.buildContext(left.id).messages)).toEqual([
      "user: root",
      "assistant: left",
    ]);
    expect(describeMessages(session.buildContext(null).messages)).toEqual([]);
    expect(describeMessages(session.buildContext().messages)).toEqual(["user: root", "assistant: right"]);
  });

  it("passes messages of roles it does not know through unchanged", async () => {
    const { session } = await newSession();
    session.appendMessage(user("u1"));
    const note = { role: "note", text: "an application's own message", timestamp: 5 };
    session.appendMessage(note as unknown as AppendableMessage);
    await session.flush();
    const reopened = await Session.open(session.store, session.id);
    expect(reopened.buildContext().messages).toEqual([user("u1"), note]);
    expect(reopened.warnings).toEqual([]);
  });

  it("keeps nothing before a compaction whose firstKeptEntryId is not on its path, with a warning", async () => {
    const store = new MemorySessionStore();
    await store.createSession({
      type: "session",
      version: 3,
      id: "s",
      timestamp: "2026-01-01T00:00:00Z",
      cwd: "/",
    });
    const entries: SessionEntry[] = [
      {
        type: "message",
        id: "aaaa0001",
        parentId: null,
        timestamp: "2026-01-01T00:00:01Z",
        message: user("old"),
      },
      {
        type: "compaction",
        id: "cccc0002",
        parentId: "aaaa0001",
        timestamp: "2026-01-01T00:00:02Z",
        summary: "summary",
        firstKeptEntryId: "elsewhere",
        tokensBefore: 10,
      },
      {
        type: "message",
        id: "aaaa0003",
        parentId: "cccc0002",
        timestamp: "2026-01-01T00:00:03Z",
        message: user("new"),
      },
    ];
    await store.appendEntries("s", entries);
    const session = await Session.open(store, "s");
    expect(describeMessages(session.buildContext().messages)).toEqual([
      "compactionSummary: summary",
      "user: new",
    ]);
    session.buildContext();
    expect(session.warnings).toEqual([
      expect.stringContaining('Compaction "cccc0002" keeps from "elsewhere"'),
    ]);
  });
});

describe("convertSessionMessagesToLlm", () => {
  it("turns summaries, custom and bash messages into user messages and drops unknown roles", () => {
    const messages: SessionMessage[] = [
      { role: "compactionSummary", summary: "S1", tokensBefore: 10, timestamp: 1 },
      user("u1"),
      { role: "branchSummary", summary: "B1", fromId: "root", timestamp: 2 },
      { role: "custom", customType: "x", content: "C1", display: true, timestamp: 3 },
      {
        role: "custom",
        customType: "x",
        content: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
        display: true,
        timestamp: 4,
      },
      {
        role: "bashExecution",
        command: "ls",
        output: "a.txt",
        exitCode: 2,
        cancelled: false,
        truncated: false,
        timestamp: 5,
      },
      {
        role: "bashExecution",
        command: "ls",
        output: "",
        cancelled: false,
        truncated: false,
        excludeFromContext: true,
        timestamp: 6,
      },
      { role: "note" } as unknown as SessionMessage,
      assistant("a1"),
    ];
    const converted = convertSessionMessagesToLlm(messages);
    expect(converted.map((message) => message.role)).toEqual([
      "user",
      "user",
      "user",
      "user",
      "user",
      "user",
      "assistant",
    ]);
    expect(converted[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: `${COMPACTION_SUMMARY_PREFIX}S1${COMPACTION_SUMMARY_SUFFIX}` }],
      timestamp: 1,
    });
    expect(converted[1]).toBe(messages[1]);
    expect(converted[2]?.content).toEqual([
      { type: "text", text: `${BRANCH_SUMMARY_PREFIX}B1${BRANCH_SUMMARY_SUFFIX}` },
    ]);
    expect(converted[3]).toEqual({ role: "user", content: [{ type: "text", text: "C1" }], timestamp: 3 });
    expect(converted[4]?.content).toEqual([{ type: "image", data: "AAAA", mimeType: "image/png" }]);
    expect(JSON.stringify(converted[5]?.content)).toContain("exited with code 2");
  });
});

describe("a context built again", () => {
  it("is reused for the same leaf (the caller's arrays are its own) and rebuilt for a new one", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/", now: tickingClock() });
    session.appendMessage(user("read it"));
    session.appendMessage(assistant([call("c1")]));
    session.appendMessage(user("never answered"));
    const first = session.buildContext();
    expect(first.repairs.map((repair) => repair.kind)).toEqual(["missing_tool_result"]);
    const second = session.buildContext();
    expect(second).toEqual(first);
    expect(second.messages).not.toBe(first.messages);
    expect(second.messages[0]).toBe(first.messages[0]);
    first.messages.length = 0;
    first.repairs.length = 0;
    expect(session.buildContext()).toEqual(second);
    const leaf = session.leafId;
    session.appendMessage(assistant("done"));
    expect(session.buildContext().messages).toHaveLength(second.messages.length + 1);
    expect(session.buildContext(leaf)).toEqual(second);
  });
});
