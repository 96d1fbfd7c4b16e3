import type { SessionMessage } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { estimateContextTokens, estimateTokens, usageTokensOf } from "../src/index.js";
import { call, messageBuilders, newSession, TestClock, usageOf } from "./helpers.js";

const { user, assistant, result } = messageBuilders(new TestClock());

describe("estimateTokens (seed 000, section 4)", () => {
  it("counts chars / 4, rounded up, for user text in a string or in blocks", () => {
    expect(estimateTokens({ role: "user", content: "x".repeat(9), timestamp: 1 })).toBe(3);
    expect(estimateTokens(user("x".repeat(8)))).toBe(2);
  });

  it("counts each image as 4,800 characters, in user, tool result and custom content", () => {
    const image = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
    expect(
      estimateTokens({ role: "user", content: [{ type: "text", text: "abcd" }, image], timestamp: 1 }),
    ).toBe(1201);
    const toolResult = { ...result("c1", "abcd"), content: [image, image] };
    expect(estimateTokens(toolResult)).toBe(2400);
    expect(
      estimateTokens({ role: "custom", customType: "note", content: [image], display: true, timestamp: 1 }),
    ).toBe(1200);
  });

  it("counts an assistant's text, thinking, and tool calls as name + JSON arguments", () => {
    const message = assistant([
      { type: "thinking", thinking: "t".repeat(10) },
      { type: "text", text: "a".repeat(6) },
      call("c1", "read", { path: "src/a.ts" }),
    ]);
    const chars = 10 + 6 + "read".length + JSON.stringify({ path: "src/a.ts" }).length;
    expect(estimateTokens(message)).toBe(Math.ceil(chars / 4));
  });

  it("counts tool results, custom messages, bash executions and summaries", () => {
    expect(estimateTokens(result("c1", "r".repeat(40)))).toBe(10);
    expect(
      estimateTokens({
        role: "custom",
        customType: "x",
        content: "c".repeat(12),
        display: false,
        timestamp: 1,
      }),
    ).toBe(3);
    const bash: SessionMessage = {
      role: "bashExecution",
      command: "ls -la",
      output: "o".repeat(10),
      cancelled: false,
      truncated: false,
      timestamp: 1,
    };
    expect(estimateTokens(bash)).toBe(4);
    expect(estimateTokens({ ...bash, excludeFromContext: true })).toBe(0);
    expect(
      estimateTokens({ role: "compactionSummary", summary: "s".repeat(20), tokensBefore: 9, timestamp: 1 }),
    ).toBe(5);
    expect(
      estimateTokens({ role: "branchSummary", summary: "s".repeat(21), fromId: "root", timestamp: 1 }),
    ).toBe(6);
  });

  it("gives 0 for a role the model never sees", () => {
    expect(estimateTokens({ role: "note", text: "hello" } as unknown as SessionMessage)).toBe(0);
  });
});

describe("usageTokensOf", () => {
  it("sums input, output, cacheRead and cacheWrite; falls back to totalTokens; skips failed responses", () => {
    const message = assistant("hi");
    message.usage = {
      ...usageOf(0),
      input: 100,
      output: 20,
      cacheRead: 300,
      cacheWrite: 4,
      totalTokens: 9999,
    };
    expect(usageTokensOf(message)).toBe(424);
    message.usage = { ...usageOf(0), totalTokens: 77 };
    expect(usageTokensOf(message)).toBe(77);
    expect(usageTokensOf(assistant("x", { usage: 500, stopReason: "error" }))).toBeUndefined();
    expect(usageTokensOf(assistant("x", { usage: 500, stopReason: "aborted" }))).toBeUndefined();
    expect(usageTokensOf(assistant("x"))).toBeUndefined();
    expect(usageTokensOf(user("x"))).toBeUndefined();
  });
});

describe("estimateContextTokens", () => {
  it("estimates every message when no assistant reported usage", () => {
    const messages = [user("u".repeat(40)), assistant("a".repeat(20)), user("v".repeat(8))];
    expect(estimateContextTokens(messages)).toEqual({
      tokens: 17,
      usageTokens: 0,
      trailingTokens: 17,
      lastUsageIndex: undefined,
    });
  });

  it("uses the last usable usage and estimates only the tail after it", () => {
    const messages = [
      user("u".repeat(400)),
      assistant([call("c1", "read", { path: "a" })], { usage: 5000 }),
      result("c1", "r".repeat(400)),
      assistant("failed", { usage: 99_999, stopReason: "error" }),
      user("v".repeat(40)),
    ];
    const estimate = estimateContextTokens(messages);
    expect(estimate.lastUsageIndex).toBe(1);
    expect(estimate.usageTokens).toBe(5000);
    expect(estimate.trailingTokens).toBe(100 + estimateTokens(messages[3]!) + 10);
    expect(estimate.tokens).toBe(estimate.usageTokens + estimate.trailingTokens);
  });

  it("ignores usage reported before the latest compaction, in the array or in the kept span", async () => {
    const { session, user, assistant } = await newSession();
    session.appendMessage(user("u".repeat(4000)));
    session.appendMessage(assistant("a".repeat(4000), { usage: 150_000 }));
    const kept = session.appendMessage(user("kept question"));
    session.appendMessage(assistant("kept answer", { usage: 180_000 }));
    session.appendCompaction({ summary: "s".repeat(400), firstKeptEntryId: kept.id, tokensBefore: 180_000 });

    const afterCompaction = estimateContextTokens(session.buildContext().messages);
    expect(afterCompaction.lastUsageIndex).toBeUndefined();
    expect(afterCompaction.tokens).toBe(100 + Math.ceil("kept question".length / 4) + Math.ceil(11 / 4));

    // A usage-bearing message placed before the summary (as an application might arrange) is ignored too.
    const shuffled = [assistant("old", { usage: 170_000 }), ...session.buildContext().messages];
    expect(estimateContextTokens(shuffled).lastUsageIndex).toBeUndefined();

    session.appendMessage(user("next"));
    session.appendMessage(assistant("fresh answer", { usage: 3000 }));
    session.appendMessage(user("x".repeat(40)));
    const fresh = estimateContextTokens(session.buildContext().messages);
    expect(fresh.usageTokens).toBe(3000);
    expect(fresh.trailingTokens).toBe(10);
    expect(fresh.lastUsageIndex).toBe(session.buildContext().messages.length - 2);
  });
});
