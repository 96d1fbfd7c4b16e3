import { MISSING_TOOL_RESULT_TEXT } from "@arbor/ai-providers";
import { describe, expect, it } from "vitest";
import { MemorySessionStore, repairToolPairs, Session, type SessionMessage } from "../src/index.js";
import { assistant, call, describeMessages, result, tickingClock, user } from "./helpers.js";

function items(...messages: SessionMessage[]) {
  return messages.map((message, index) => ({ message, entryId: `e${index}` }));
}

function repaired(...messages: SessionMessage[]) {
  const output = repairToolPairs(items(...messages));
  return { messages: describeMessages(output.items.map((item) => item.message)), output };
}

describe("repairToolPairs", () => {
  it("leaves a well-formed conversation alone", () => {
    const input = items(
      user("u"),
      assistant([call("a"), call("b")]),
      result("a"),
      result("b"),
      assistant("done"),
    );
    const output = repairToolPairs(input);
    expect(output.items).toEqual(input);
    expect(output.repairs).toEqual([]);
  });

  it("adds a synthetic error result for a call without one, after the call's results", () => {
    const { messages, output } = repaired(
      user("u"),
      assistant([call("a"), call("b")]),
      result("a"),
      user("next"),
    );
    expect(messages).toEqual([
      "user: u",
      "assistant: call(a) call(b)",
      "result(a)",
      "result(b, error)",
      "user: next",
    ]);
    const synthetic = output.items[3];
    expect(synthetic?.entryId).toBe("e1");
    expect(synthetic?.message).toEqual({
      role: "toolResult",
      toolCallId: "b",
      toolName: "read",
      content: [{ type: "text", text: MISSING_TOOL_RESULT_TEXT }],
      isError: true,
      timestamp: 2,
    });
    expect(output.repairs).toContainEqual({
      kind: "missing_tool_result",
      entryId: "e1",
      toolCallId: "b",
      toolName: "read",
    });
  });

  it("answers calls left open at the end of the context (an interrupted turn)", () => {
    const { messages } = repaired(user("u"), assistant([call("a")], { stopReason: "aborted" }));
    expect(messages).toEqual(["user: u", "assistant: call(a)", "result(a, error)"]);
  });

  it("drops results without a call, second results, and results of a closed turn", () => {
    const { messages, output } = repaired(
      result("ghost"),
      user("u"),
      assistant([call("a")]),
      result("a"),
      result("a"),
      assistant([call("b")]),
      result("a"),
      result("b"),
    );
    expect(messages).toEqual([
      "user: u",
      "assistant: call(a)",
      "result(a)",
      "assistant: call(b)",
      "result(b)",
    ]);
    expect(output.repairs.filter((repair) => repair.kind === "orphan_tool_result")).toEqual([
      { kind: "orphan_tool_result", entryId: "e0", toolCallId: "ghost" },
      { kind: "orphan_tool_result", entryId: "e4", toolCallId: "a" },
      { kind: "orphan_tool_result", entryId: "e6", toolCallId: "a" },
    ]);
  });

  it("moves messages that came between a call and its result after the result", () => {
    const { messages, output } = repaired(
      assistant([call("a")]),
      { role: "custom", customType: "hook", content: "injected", display: true, timestamp: 3 },
      user("typed while the tool ran"),
      result("a"),
      assistant("done"),
    );
    expect(messages).toEqual([
      "assistant: call(a)",
      "result(a)",
      "custom: injected",
      "user: typed while the tool ran",
      "assistant: done",
    ]);
    expect(output.repairs).toEqual([
      { kind: "moved_message", entryId: "e1" },
      { kind: "moved_message", entryId: "e2" },
    ]);
  });

  it("pairs results with the calls of a turn with many calls, in any order", () => {
    const calls = Array.from({ length: 40 }, (_, index) => call(`c${index % 20}`));
    const results = Array.from({ length: 39 }, (_, index) => result(`c${(index * 7) % 20}`));
    const { messages, output } = repaired(assistant(calls), ...results, user("next"));
    expect(messages.filter((line) => line.startsWith("result("))).toHaveLength(40);
    expect(messages.at(-1)).toBe("user: next");
    expect(output.repairs).toEqual([
      ...Array.from({ length: 20 }, (_, index) => ({
        kind: "renamed_tool_call",
        entryId: "e0",
        toolCallId: `c${index}`,
        newId: `c${index}_2`,
      })),
      { kind: "missing_tool_result", entryId: "e0", toolCallId: "c13", toolName: "read" },
    ]);
    // The results follow the calls' order.
    expect(messages.slice(1, 41)).toEqual([
      ...Array.from({ length: 20 }, (_, index) => `result(c${index})`),
      ...Array.from({ length: 20 }, (_, index) => `result(c${index}_2${index === 13 ? ", error" : ""})`),
    ]);
  });

  it("gives a repeated call id in one message a new id, and its result with it", () => {
    const { messages, output } = repaired(
      assistant([call("dup"), call("dup")]),
      result("dup", "first"),
      result("dup", "second"),
      user("u"),
    );
    expect(messages).toEqual(["assistant: call(dup) call(dup_2)", "result(dup)", "result(dup_2)", "user: u"]);
    const texts = output.items
      .map((item) => item.message)
      .filter((message) => message.role === "toolResult")
      .map((message) => (message.content[0] as { text: string }).text);
    expect(texts).toEqual(["first", "second"]);
    expect(output.repairs).toEqual([
      { kind: "renamed_tool_call", entryId: "e0", toolCallId: "dup", newId: "dup_2" },
    ]);
  });

  it("renames an id a provider reused in a later turn, skipping ids the context already holds", () => {
    const first = assistant([call("call_1")]);
    const input = items(
      user("u"),
      first,
      result("call_1", "one"),
      assistant([call("call_1_2"), call("call_1")]),
      result("call_1", "two"),
      result("call_1_2", "three"),
    );
    const output = repairToolPairs(input);
    expect(describeMessages(output.items.map((item) => item.message))).toEqual([
      "user: u",
      "assistant: call(call_1)",
      "result(call_1)",
      "assistant: call(call_1_2) call(call_1_3)",
      "result(call_1_2)",
      "result(call_1_3)",
    ]);
    const texts = output.items
      .map((item) => item.message)
      .filter((message) => message.role === "toolResult")
      .map((message) => (message.content[0] as { text: string }).text);
    expect(texts).toEqual(["one", "three", "two"]);
    expect(output.items[1]?.message).toBe(first);
    expect(input[3]?.message.role === "assistant" && input[3].message.content[1]).toMatchObject({
      id: "call_1",
    });
  });
});

describe("buildContext repairs whatever the file holds", () => {
  async function open(build: (session: Session) => void) {
    const store = new MemorySessionStore();
    const session = await Session.create(store, { cwd: "/", now: tickingClock() });
    build(session);
    await session.flush();
    return Session.open(store, session.id);
  }

  it("answers a tool call whose result was never written (a crash mid-turn), then continues", async () => {
    const session = await open((s) => {
      s.appendMessage(user("run it"));
      s.appendMessage(assistant([call("t1", "bash", { command: "sleep 100" })]));
      s.appendMessage(user("are you there?"));
    });
    const context = session.buildContext();
    expect(describeMessages(context.messages)).toEqual([
      "user: run it",
      "assistant: call(t1)",
      "result(t1, error)",
      "user: are you there?",
    ]);
    expect(context.repairs).toEqual([
      { kind: "missing_tool_result", entryId: context.entryIds[1], toolCallId: "t1", toolName: "bash" },
    ]);
  });

  it("drops a kept result whose call was compacted away", async () => {
    const session = await open((s) => {
      s.appendMessage(user("u1"));
      s.appendMessage(assistant([call("t1")]));
      const orphan = s.appendMessage(result("t1"));
      s.appendMessage(assistant("a1"));
      s.appendCompaction({ summary: "summary", firstKeptEntryId: orphan.id, tokensBefore: 10 });
      s.appendMessage(user("u2"));
    });
    expect(describeMessages(session.buildContext().messages)).toEqual([
      "compactionSummary: summary",
      "assistant: a1",
      "user: u2",
    ]);
  });
});
