import { MemorySessionStore, Session } from "@arbor/session-store";
import { describe, expect, test } from "vitest";
import { contextBreakdown, sessionGraph, shownContextTokens } from "../src/index.js";
import { assistantMessage } from "./helpers.js";

/** A chain of `pairs` user/assistant pairs. Returns the ids in order. */
function chat(session: Session, pairs: number, from = 0): string[] {
  const ids: string[] = [];
  for (let index = from; index < from + pairs; index++) {
    ids.push(session.appendMessage({ role: "user", content: `question ${index}`, timestamp: index }).id);
    ids.push(session.appendMessage(assistantMessage(`answer ${index}`)).id);
  }
  return ids;
}

describe("sessionGraph", () => {
  test("every entry of a short session is a node; leaf, path, context and a failed response are marked", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/p" });
    const [first] = chat(session, 2);
    const failed = session.appendMessage(assistantMessage("", { stopReason: "error", errorMessage: "boom" }));
    session.moveTo(first!);
    const other = session.appendMessage({ role: "user", content: "another way", timestamp: 9 });
    const graph = sessionGraph(session);
    expect(graph.nodes).toHaveLength(session.entryCount);
    const byId = new Map(graph.nodes.map((node) => [node.id, node]));
    expect(byId.get(other.id)).toMatchObject({ leaf: true, onPath: true, inContext: true, kind: "user" });
    expect(byId.get(other.id)?.parentId).toBe(first);
    expect(byId.get(failed.id)).toMatchObject({ failed: true, onPath: false, leaf: false });
    expect(byId.get(first!)?.preview).toContain("question 0");
  });

  test("a compaction covers the entries before its kept start; long stretches collapse into runs", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/p" });
    const early = chat(session, 20);
    const kept = chat(session, 2, 20);
    const compaction = session.appendCompaction({
      summary: "## Goal\nanswer questions",
      firstKeptEntryId: kept[0]!,
      tokensBefore: 5000,
    });
    chat(session, 20, 22);
    const graph = sessionGraph(session, { collapseAbove: 5, recentEntries: 4 });
    expect(graph.nodes.length).toBeLessThan(session.entryCount);
    const runs = graph.nodes.filter((node) => node.kind === "run");
    expect(runs.length).toBeGreaterThanOrEqual(2);
    const coveredRun = runs.find((node) => node.entryId === early[1]);
    expect(coveredRun).toMatchObject({ compactedBy: compaction.id, onPath: true, inContext: false });
    expect(coveredRun?.run?.count).toBeGreaterThan(5);
    const node = graph.nodes.find((candidate) => candidate.id === compaction.id);
    expect(node).toMatchObject({ kind: "compaction", inContext: true });
    // Every node's parent is a node of the graph.
    const ids = new Set(graph.nodes.map((candidate) => candidate.id));
    for (const candidate of graph.nodes)
      if (candidate.parentId !== null) expect(ids.has(candidate.parentId)).toBe(true);
    // Expanding the run shows its entries one by one.
    const open = sessionGraph(session, {
      collapseAbove: 5,
      recentEntries: 4,
      expanded: new Set([early[1]!]),
    });
    expect(open.nodes.find((candidate) => candidate.id === early[5])).toMatchObject({
      compactedBy: compaction.id,
    });
  });

  test("a 60,000-entry chain is a handful of nodes", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/p" });
    chat(session, 30_000);
    const graph = sessionGraph(session);
    expect(graph.entryCount).toBe(60_000);
    expect(graph.nodes.length).toBeLessThan(20);
  });
});

describe("contextBreakdown", () => {
  test("splits a context into system prompt, tools, the compaction summary, messages and tool results", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/p" });
    const kept = chat(session, 3);
    const compaction = session.appendCompaction({
      summary: "x".repeat(400),
      firstKeptEntryId: kept[4]!,
      tokensBefore: 900,
    });
    session.appendMessage(
      assistantMessage([{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } }], {
        stopReason: "toolUse",
      }),
    );
    session.appendMessage({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "read",
      content: [{ type: "text", text: "y".repeat(800) }],
      isError: false,
      timestamp: 5,
    });
    const context = session.buildContext();
    const breakdown = contextBreakdown({
      systemPrompt: "s".repeat(40),
      tools: [{ name: "read", description: "reads", parameters: {} }],
      messages: context.messages,
      entryIds: context.entryIds,
      contextWindow: 1000,
      compactionThreshold: 800,
    });
    const byKind = new Map(breakdown.categories.map((category) => [category.kind, category]));
    expect(byKind.get("systemPrompt")?.tokens).toBe(10);
    expect(byKind.get("compactionSummary")).toMatchObject({ tokens: 100, entryId: compaction.id });
    expect(byKind.get("toolResults")?.tokens).toBe(200);
    expect(byKind.get("messages")?.label).toBe("messages (3)");
    expect(byKind.get("tools")?.tokens).toBeGreaterThan(0);
    expect(breakdown.total).toBe(breakdown.estimated);
    expect(breakdown.percent).toBeCloseTo(breakdown.total / 10);
    // A usage the provider reported is the total; an estimate of the messages alone is not.
    const input = {
      systemPrompt: "",
      tools: [],
      messages: context.messages,
      contextWindow: 1000,
      compactionThreshold: 800,
    };
    expect(contextBreakdown({ ...input, usage: { tokens: 700, anchored: true } }).total).toBe(700);
    // An estimate of the messages alone gets the system prompt and the tools added (none here).
    expect(contextBreakdown({ ...input, usage: { tokens: 5, anchored: false } }).total).toBe(5);
    const fixed = {
      systemPrompt: "s".repeat(40),
      tools: [{ name: "read", description: "reads", parameters: {} }],
    };
    const withFixed = contextBreakdown({ ...input, ...fixed, usage: { tokens: 5, anchored: false } });
    expect(withFixed.total).toBe(5 + withFixed.categories[0]!.tokens + withFixed.categories[1]!.tokens);
    expect(withFixed.total).toBe(
      shownContextTokens({ tokens: 5, anchored: false }, 10 + withFixed.categories[1]!.tokens),
    );
  });
});
