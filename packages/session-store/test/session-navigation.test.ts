import { describe, expect, it } from "vitest";
import { MemorySessionStore, Session } from "../src/index.js";
import { assistant, describeMessages, tickingClock, user } from "./helpers.js";

async function conversation() {
  const store = new MemorySessionStore();
  const session = await Session.create(store, { cwd: "/project", now: tickingClock() });
  const u1 = session.appendMessage(user("u1"));
  const a1 = session.appendMessage(assistant("a1"));
  const u2 = session.appendMessage(user("u2"));
  const a2 = session.appendMessage(assistant("a2"));
  return { store, session, u1, a1, u2, a2 };
}

describe("Session.moveTo", () => {
  it("appends a leaf entry under the old leaf; the next entry branches from the target", async () => {
    const { session, a1, a2 } = await conversation();
    const moved = session.moveTo(a1.id);
    expect(moved.leafId).toBe(a1.id);
    expect(moved.entries).toEqual([
      {
        type: "leaf",
        id: expect.any(String),
        parentId: a2.id,
        timestamp: expect.any(String),
        targetId: a1.id,
      },
    ]);
    expect(session.leafId).toBe(a1.id);
    const next = session.appendMessage(user("u2 again"));
    expect(next.parentId).toBe(a1.id);
    expect(describeMessages(session.buildContext().messages)).toEqual([
      "user: u1",
      "assistant: a1",
      "user: u2 again",
    ]);
  });

  it("with a summary, appends a branch_summary under the target that becomes the leaf", async () => {
    const { store, session, u1 } = await conversation();
    const moved = session.moveTo(u1.id, {
      summary: "we tried a1/a2",
      details: { readFiles: ["x"] },
      fromHook: false,
    });
    const [entry] = moved.entries;
    expect(entry).toMatchObject({
      type: "branch_summary",
      parentId: u1.id,
      fromId: u1.id,
      summary: "we tried a1/a2",
      details: { readFiles: ["x"] },
      fromHook: false,
    });
    expect(moved.leafId).toBe(entry?.id);
    await session.flush();
    const reopened = await Session.open(store, session.id);
    expect(reopened.leafId).toBe(entry?.id);
    expect(describeMessages(reopened.buildContext().messages)).toEqual([
      "user: u1",
      "branchSummary: we tried a1/a2",
    ]);
  });

  it("moves before the first entry with null, and does nothing when already there", async () => {
    const { session, a2 } = await conversation();
    expect(session.moveTo(a2.id)).toEqual({ leafId: a2.id, entries: [] });
    expect(session.moveTo(null).entries[0]).toMatchObject({ type: "leaf", targetId: null, parentId: a2.id });
    expect(session.leafId).toBeNull();
    const root = session.appendMessage(user("a new first message"));
    expect(root.parentId).toBeNull();
    expect(session.children(null).map((ref) => ref.id)).toHaveLength(2);
    const summary = session.moveTo(null, "everything before").entries[0];
    expect(summary).toMatchObject({ type: "branch_summary", parentId: null, fromId: "root" });
  });
});

describe("labels and names", () => {
  it("sets, replaces and clears labels; they survive a reopen", async () => {
    const { store, session, u1, a1 } = await conversation();
    session.appendLabel(u1.id, "start");
    session.appendLabel(a1.id, "first answer");
    session.appendLabel(u1.id, "beginning");
    expect(session.getLabel(u1.id)).toBe("beginning");
    session.appendLabel(a1.id, undefined);
    expect(session.getLabel(a1.id)).toBeUndefined();
    const tree = session.getTree();
    expect(tree[0]?.label).toBe("beginning");
    await session.flush();
    const reopened = await Session.open(store, session.id);
    expect(reopened.getLabel(u1.id)).toBe("beginning");
    expect(reopened.getLabel(a1.id)).toBeUndefined();
    expect(reopened.children(null)[0]?.label).toBe("beginning");
  });

  it("names the session with the latest session_info; an empty name clears it", async () => {
    const { store, session } = await conversation();
    expect(session.name).toBeUndefined();
    session.appendSessionInfo("First");
    session.appendSessionInfo("Second");
    expect(session.name).toBe("Second");
    await session.flush();
    expect((await Session.open(store, session.id)).name).toBe("Second");
    expect((await store.listSessions()).sessions[0]?.name).toBe("Second");
    session.appendSessionInfo("");
    expect(session.name).toBeUndefined();
  });
});

describe("Session.fork", () => {
  it("copies the path up to and including the entry into a new session that names its parent", async () => {
    const { store, session, u1, a1, u2 } = await conversation();
    const fork = await session.fork(u2.id, { id: "forked", metadata: { reason: "retry" } });
    expect(fork.header).toMatchObject({
      type: "session",
      version: 3,
      id: "forked",
      cwd: "/project",
      parentSession: session.id,
      metadata: { reason: "retry" },
    });
    expect(fork.getBranch()).toEqual([u1, a1, u2]);
    expect(fork.leafId).toBe(u2.id);
    const reopened = await Session.open(store, "forked");
    expect(reopened.getBranch()).toEqual([u1, a1, u2]);
    expect(
      (await store.listSessions()).sessions.find((summary) => summary.id === "forked")?.parentSession,
    ).toBe(session.id);
    // The parent is untouched, and the fork takes appends of its own.
    expect(session.getBranch()).toHaveLength(4);
    const next = reopened.appendMessage(assistant("another a2"));
    expect(next.parentId).toBe(u2.id);
    await reopened.flush();
  });

  it("with position before, stops at the entry's parent (to redo it)", async () => {
    const { session, u1, a1, u2 } = await conversation();
    const fork = await session.fork(u2.id, { position: "before", cwd: "/elsewhere" });
    expect(fork.getBranch()).toEqual([u1, a1]);
    expect(fork.cwd).toBe("/elsewhere");
    const empty = await session.fork(u1.id, { position: "before" });
    expect(empty.entryCount).toBe(0);
    expect(empty.leafId).toBeNull();
  });

  it("takes only the path (not other branches), keeps compactions working, and carries labels over", async () => {
    const { session, u1, a1, u2, a2 } = await conversation();
    session.appendLabel(u1.id, "on the path");
    session.moveTo(a1.id);
    const side = session.appendMessage(user("side branch"));
    session.appendLabel(u2.id, "set from another branch");
    session.appendLabel(side.id, "not copied");
    session.moveTo(a2.id);
    session.appendCompaction({ summary: "compacted", firstKeptEntryId: u2.id, tokensBefore: 1 });
    const tip = session.appendMessage(user("u3"));

    const fork = await session.fork(tip.id);
    expect(fork.has(side.id)).toBe(false);
    expect(fork.getLabel(u1.id)).toBe("on the path");
    expect(fork.getLabel(u2.id)).toBe("set from another branch");
    expect(fork.getLabel(side.id)).toBeUndefined();
    expect(describeMessages(fork.buildContext().messages)).toEqual([
      "compactionSummary: compacted",
      "user: u2",
      "assistant: a2",
      "user: u3",
    ]);
    expect(fork.warnings).toEqual([]);
  });
});
