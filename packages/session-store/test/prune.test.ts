import type { ToolResultMessage } from "@arbor/ai-providers";
import { describe, expect, it } from "vitest";
import {
  isPrunedToolResult,
  MemorySessionStore,
  prunedToolResult,
  Session,
  type SessionEntry,
  type SessionStore,
} from "../src/index.js";
import { validateSessionEntry } from "../src/validate.js";
import { assistant, CountingStore, call, describeMessages, result, tickingClock, user } from "./helpers.js";

async function newSession(store: SessionStore = new MemorySessionStore()) {
  return Session.create(store, { cwd: "/project", now: tickingClock() });
}

/** Appends `turns` turns of user → tool call → tool result (`size` characters) → reply; returns the result ids. */
function appendTurns(session: Session, turns: number, size = 400, from = 0): string[] {
  const results: string[] = [];
  for (let turn = from; turn < from + turns; turn++) {
    session.appendMessage(user(`question ${turn}`));
    session.appendMessage(assistant([call(`call-${turn}`)]));
    results.push(session.appendMessage(result(`call-${turn}`, `${turn}:`.padEnd(size, "x"))).id);
    session.appendMessage(assistant(`answer ${turn}`));
  }
  return results;
}

describe("prunedToolResult", () => {
  it("keeps the call id, tool name, error flag and time, and says in one line how to recall the output", () => {
    const original: ToolResultMessage = {
      role: "toolResult",
      toolCallId: "call_abc",
      toolName: "bash",
      content: [
        { type: "text", text: "x".repeat(48_000) },
        { type: "text", text: "y".repeat(210) },
      ],
      details: { exitCode: 1 },
      isError: true,
      timestamp: 42,
    };
    const stub = prunedToolResult(original, "1a2b3c4d");
    expect(stub).toEqual({
      role: "toolResult",
      toolCallId: "call_abc",
      toolName: "bash",
      content: [
        {
          type: "text",
          text: '[Output pruned to save context: 48,210 characters (entry 1a2b3c4d). Call recall with {"toolCallId":"call_abc"} to see it again.]',
        },
      ],
      details: { pruned: true, entryId: "1a2b3c4d", characters: 48_210, images: 0 },
      isError: true,
      timestamp: 42,
    });
    expect(isPrunedToolResult(stub)).toBe(true);
    expect(isPrunedToolResult(original)).toBe(false);
    expect(original.content).toHaveLength(2);
  });

  it("counts images, and writes odd ids as JSON on one line", () => {
    const stub = prunedToolResult(
      {
        role: "toolResult",
        toolCallId: 'a"b\nc',
        toolName: "read",
        content: [
          { type: "text", text: "a" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ],
        isError: false,
        timestamp: 1,
      },
      "e1",
    );
    const text = (stub.content[0] as { text: string }).text;
    expect(text).toBe(
      '[Output pruned to save context: 1 character and 1 image (entry e1). Call recall with {"toolCallId":"a\\"b\\nc"} to see it again.]',
    );
    expect(text).not.toContain("\n");
  });
});

describe("a prune entry in Session.buildContext", () => {
  it("shows the named tool results as stubs from then on; the entries stay whole", async () => {
    const session = await newSession();
    const results = appendTurns(session, 3);
    const before = session.buildContext();
    const prune = session.appendPrune({
      entryIds: [results[0]!, results[1]!],
      tokensBefore: 400,
      tokensAfter: 180,
      details: { reason: "threshold" },
    });
    expect(prune).toMatchObject({ type: "prune", entryIds: results.slice(0, 2), tokensBefore: 400 });
    expect(validateSessionEntry(prune).ok).toBe(true);

    const context = session.buildContext();
    expect(describeMessages(context.messages)).toEqual(describeMessages(before.messages));
    expect(context.entryIds).toEqual(before.entryIds);
    expect(context.prunedEntryIds).toEqual(results.slice(0, 2));
    const position = context.entryIds.indexOf(results[0]!);
    const original = before.messages[position] as ToolResultMessage;
    expect(context.messages[position]).toEqual(prunedToolResult(original, results[0]!));
    // The third result and every other message are the session's own objects.
    const third = context.entryIds.indexOf(results[2]!);
    expect(context.messages[third]).toBe(before.messages[third]);
    // The entry keeps its output; the context before the prune is unchanged.
    const stored = session.getEntry(results[0]!);
    expect(stored?.type === "message" && stored.message).toBe(original);
    expect(session.buildContext(before.leafId).messages[position]).toBe(original);
  });

  it("applies a prune to the results before it only, on its own path, and keeps extending after it", async () => {
    const session = await newSession();
    const results = appendTurns(session, 2);
    const fork = session.leafId;
    session.appendPrune({ entryIds: [results[0]!], tokensBefore: 1, tokensAfter: 0 });
    const pruned = session.buildContext();
    expect(pruned.prunedEntryIds).toEqual([results[0]]);

    // Appends after the prune extend the built context; the stub stays.
    const later = appendTurns(session, 1, 400, 2);
    const extended = session.buildContext();
    expect(extended.prunedEntryIds).toEqual([results[0]]);
    expect(isPrunedToolResult(extended.messages[extended.entryIds.indexOf(results[0]!)]!)).toBe(true);
    expect(isPrunedToolResult(extended.messages[extended.entryIds.indexOf(later[0]!)]!)).toBe(false);

    // Another branch from before the prune does not see it.
    session.moveTo(fork);
    session.appendMessage(user("other branch"));
    const other = session.buildContext();
    expect(other.prunedEntryIds).toEqual([]);
    expect(other.messages.some(isPrunedToolResult)).toBe(false);
  });

  it("rebuilds a context built before the prune when the prune is appended to its path", async () => {
    const session = await newSession();
    const results = appendTurns(session, 2);
    expect(session.buildContext().prunedEntryIds).toEqual([]);
    session.appendPrune({ entryIds: [results[1]!], tokensBefore: 1, tokensAfter: 0 });
    const context = session.buildContext();
    expect(context.prunedEntryIds).toEqual([results[1]]);
    expect(context.messages.filter(isPrunedToolResult)).toHaveLength(1);
  });

  it("ignores prunes of entries the summary of a later compaction replaced, and applies those in its kept span", async () => {
    const session = await newSession();
    const early = appendTurns(session, 2);
    session.appendPrune({ entryIds: [early[0]!], tokensBefore: 1, tokensAfter: 0 });
    const kept = session.appendMessage(user("kept from here"));
    session.appendMessage(assistant([call("call-k")]));
    const keptResult = session.appendMessage(result("call-k", "k".repeat(500))).id;
    session.appendPrune({ entryIds: [early[1]!, keptResult], tokensBefore: 1, tokensAfter: 0 });
    session.appendMessage(assistant("done"));
    session.appendCompaction({ summary: "early turns", firstKeptEntryId: kept.id, tokensBefore: 9 });
    const after = appendTurns(session, 1, 400, 5);
    session.appendPrune({ entryIds: [after[0]!], tokensBefore: 1, tokensAfter: 0 });

    const context = session.buildContext();
    expect(context.prunedEntryIds).toEqual([keptResult, after[0]]);
    expect(context.entryIds).not.toContain(early[0]);
    expect(describeMessages(context.messages)[0]).toBe("compactionSummary: early turns");
  });

  it("leaves out a prune entry that is invalid, with a warning, and stubs nothing for it", async () => {
    const store = new MemorySessionStore();
    const session = await newSession(store);
    const results = appendTurns(session, 1);
    await session.flush();
    const bad = {
      type: "prune",
      id: "badprune",
      parentId: session.leafId,
      timestamp: new Date().toISOString(),
      entryIds: results[0],
      tokensBefore: 1,
      tokensAfter: 0,
    } as unknown as SessionEntry;
    await store.appendEntries(session.id, [bad]);
    const reopened = await Session.open(store, session.id);
    expect(reopened.buildContext().prunedEntryIds).toEqual([]);
    expect(reopened.warnings.join("\n")).toContain('Entry "badprune" (prune) is invalid');
  });

  it("does not stub a result the prune names before it exists (an id appended later)", async () => {
    const store = new MemorySessionStore();
    const session = await newSession(store);
    appendTurns(session, 1);
    await session.flush();
    const prune = {
      type: "prune",
      id: "prune001",
      parentId: session.leafId,
      timestamp: new Date().toISOString(),
      entryIds: ["later001"],
      tokensBefore: 1,
      tokensAfter: 0,
    } as SessionEntry;
    const later = {
      type: "message",
      id: "later001",
      parentId: "prune001",
      timestamp: new Date().toISOString(),
      message: result("call-0", "late"),
    } as SessionEntry;
    await store.appendEntries(session.id, [prune, later]);
    const reopened = await Session.open(store, session.id);
    expect(reopened.buildContext().prunedEntryIds).toEqual([]);
  });

  it("appendPrune refuses an empty list and entries that are not on the current path", async () => {
    const session = await newSession();
    const results = appendTurns(session, 1);
    expect(() => session.appendPrune({ entryIds: [], tokensBefore: 0, tokensAfter: 0 })).toThrow(
      /at least one/,
    );
    expect(() => session.appendPrune({ entryIds: ["nope0000"], tokensBefore: 0, tokensAfter: 0 })).toThrow(
      /nope0000/,
    );
    session.moveTo(null);
    session.appendMessage(user("a new root"));
    expect(() => session.appendPrune({ entryIds: results, tokensBefore: 0, tokensAfter: 0 })).toThrow(
      new RegExp(results[0]!),
    );
    expect(session.pendingCount).toBeGreaterThan(0);
  });
});

describe("opening a session with prune entries", () => {
  it("parses no prune entry to open, and only the span's prune entries to build the context", async () => {
    const store = new CountingStore(new MemorySessionStore());
    const session = await newSession(store);
    const early = appendTurns(session, 20);
    const earlyPrune = session.appendPrune({ entryIds: early.slice(0, 5), tokensBefore: 1, tokensAfter: 0 });
    const kept = session.appendMessage(user("kept"));
    session.appendCompaction({ summary: "s", firstKeptEntryId: kept.id, tokensBefore: 1 });
    const late = appendTurns(session, 3, 400, 30);
    const latePrune = session.appendPrune({ entryIds: late.slice(0, 2), tokensBefore: 1, tokensAfter: 0 });
    session.appendMessage(user("last"));
    await session.flush();

    store.reset();
    const reopened = await Session.open(store, session.id);
    expect(store.parsedIds()).toEqual(new Set());
    const context = reopened.buildContext();
    const parsed = store.parsedIds();
    expect(parsed.has(latePrune.id)).toBe(true);
    expect(parsed.has(earlyPrune.id)).toBe(false);
    for (const id of early) expect(parsed.has(id)).toBe(false);
    expect(context.prunedEntryIds).toEqual(late.slice(0, 2));
    expect(reopened.getPath().filter((ref) => ref.type === "prune")).toHaveLength(2);
  });
});
