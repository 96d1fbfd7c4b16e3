import { describe, expect, it } from "vitest";
import { MemorySessionStore, Session } from "../src/index.js";
import { assistant, CountingStore, call, result, tickingClock, user } from "./helpers.js";

/**
 * A session with history before a compaction, an abandoned side branch, labels and a name, stored in a
 * counting store. Returns the ids that the context of the current leaf needs.
 */
async function buildStoredSession(turns: number) {
  const store = new CountingStore(new MemorySessionStore());
  const session = await Session.create(store, { cwd: "/", now: tickingClock() });
  const settings = [
    session.appendModelChange("anthropic", "claude-a").id,
    session.appendThinkingLevelChange("low").id,
  ];
  const history: string[] = [];
  for (let turn = 0; turn < turns; turn++) {
    history.push(session.appendMessage(user(`question ${turn}`)).id);
    history.push(session.appendMessage(assistant([call(`call-${turn}`)])).id);
    history.push(session.appendMessage(result(`call-${turn}`, "x".repeat(200))).id);
  }
  const branchPoint = session.leafId;
  const abandoned: string[] = [session.appendMessage(user("detour")).id];
  const leaf = session.moveTo(branchPoint).entries[0]?.id ?? "";
  for (let index = 0; index < 10; index++)
    abandoned.push(session.appendMessage(user(`abandoned ${index}`)).id);
  const label = session.appendLabel(abandoned[3] ?? "", "dead end").id;
  const summary = session.moveTo(branchPoint, "the abandoned branch").entries[0]?.id ?? "";
  const firstKept = session.appendMessage(user("kept 1")).id;
  const keptSecond = session.appendMessage(assistant("kept 2")).id;
  const compaction = session.appendCompaction({
    summary: "all of it",
    firstKeptEntryId: firstKept,
    tokensBefore: 9000,
  }).id;
  const tail = [session.appendMessage(user("after 1")).id, session.appendMessage(assistant("after 2")).id];
  const info = session.appendSessionInfo("lazy").id;
  tail.push(session.appendMessage(user("after 3")).id);
  await session.flush();
  return {
    store,
    id: session.id,
    settings,
    history,
    abandoned,
    leaf,
    label,
    summary,
    firstKept,
    keptSecond,
    compaction,
    tail,
    info,
  };
}

describe("opening and building a context read only what they need", () => {
  it("opening parses only labels, names and leaf moves", async () => {
    const built = await buildStoredSession(20);
    built.store.reset();
    const session = await Session.open(built.store, built.id);
    expect(built.store.parsedIds()).toEqual(new Set([built.leaf, built.label, built.info]));
    expect(session.leafId).toBe(built.tail.at(-1));
    expect(session.name).toBe("lazy");
    expect(session.getLabel(built.abandoned[3] ?? "")).toBe("dead end");
  });

  it("building the context parses the compaction, its kept span, the tail and the settings chain — nothing else", async () => {
    const built = await buildStoredSession(20);
    const session = await Session.open(built.store, built.id);
    built.store.reset();
    const context = session.buildContext();
    expect(context.messages.map((message) => message.role)).toEqual([
      "compactionSummary",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(context.model).toEqual({ provider: "scripted", modelId: "scripted-model" });
    expect(context.thinkingLevel).toBe("low");
    const parsed = built.store.parsedIds();
    expect(parsed).toEqual(
      new Set([built.compaction, built.firstKept, built.keptSecond, ...built.tail, ...built.settings]),
    );
    for (const id of [
      ...built.history,
      ...built.abandoned,
      built.summary,
      built.info,
      built.leaf,
      built.label,
    ]) {
      expect(parsed.has(id)).toBe(false);
    }
  });

  it("parses each entry at most once, however often the context is built", async () => {
    const built = await buildStoredSession(5);
    const session = await Session.open(built.store, built.id);
    session.buildContext();
    const counts = new Map(built.store.entryCalls);
    session.buildContext();
    session.buildContext();
    expect(built.store.entryCalls).toEqual(counts);
    expect(Math.max(...built.store.entryCalls.values())).toBe(1);
  });

  it("costs the same for 10 and 1,000 turns of history before the compaction", async () => {
    const small = await buildStoredSession(10);
    const large = await buildStoredSession(1000);
    const sizes: number[] = [];
    for (const built of [small, large]) {
      const session = await Session.open(built.store, built.id);
      built.store.reset();
      session.buildContext();
      sizes.push(built.store.parsedIds().size);
    }
    expect(sizes[0]).toBe(sizes[1]);
  });

  it("getBranch walks the index: it parses no entry until a body field is read", async () => {
    const built = await buildStoredSession(50);
    const session = await Session.open(built.store, built.id);
    built.store.reset();
    const branch = session.getBranch();
    expect(branch.length).toBeGreaterThan(150);
    // The tree fields come from the index.
    expect(branch.map((entry) => entry.id)).toEqual(session.getPath().map((ref) => ref.id));
    expect(branch.every((entry, index) => index === 0 || entry.parentId === branch[index - 1]!.id)).toBe(
      true,
    );
    expect(branch.some((entry) => entry.type === "compaction")).toBe(true);
    expect(built.store.parsedIds().size).toBe(0);
    // A body field parses that entry alone, once; the object then behaves as the parsed entry.
    const last = branch.at(-1)!;
    expect(last.type === "message" && last.message.role).toBe("user");
    expect([...built.store.parsedIds()]).toEqual([last.id]);
    expect(JSON.parse(JSON.stringify(last))).toEqual(session.getEntry(last.id));
    expect({ ...last }).toEqual(session.getEntry(last.id));
    expect("timestamp" in last).toBe(true);
    expect(built.store.parsedIds().size).toBe(1);
    // Entries read before are the session's own objects.
    expect(session.getBranch().at(-1)).toBe(session.getEntry(last.id));
  });
});
