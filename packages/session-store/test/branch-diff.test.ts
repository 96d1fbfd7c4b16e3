import { describe, expect, it } from "vitest";
import { diffBranches, MemorySessionStore, Session, sameJson } from "../src/index.js";
import { assistant, tickingClock, user } from "./helpers.js";

async function conversation() {
  const store = new MemorySessionStore();
  const session = await Session.create(store, { cwd: "/project", now: tickingClock() });
  const u1 = session.appendMessage(user("u1"));
  const a1 = session.appendMessage(assistant("a1"));
  const u2 = session.appendMessage(user("u2"));
  const a2 = session.appendMessage(assistant("a2"));
  await session.flush();
  return { store, session, u1, a1, u2, a2 };
}

describe("diffBranches", () => {
  it("finds where two leaves of one session diverge, matching by id", async () => {
    const { session, a1, a2 } = await conversation();
    session.moveTo(a1.id);
    const other = session.appendMessage(user("u2 again"));
    const diff = diffBranches({ session, leafId: a2.id }, { session, leafId: other.id });
    expect(diff.sameSession).toBe(true);
    expect(diff.matchedBy).toBe("id");
    expect(diff.relation).toBeUndefined();
    expect(diff.commonAncestor?.a.id).toBe(a1.id);
    expect(diff.commonAncestor?.b.id).toBe(a1.id);
    expect(diff.commonAncestor?.position).toBe(2);
    expect(diff.a.after.map((ref) => ref.type)).toEqual(["message", "message"]);
    expect(diff.a).toMatchObject({ leafId: a2.id, branchLength: 4, messages: 2 });
    expect(diff.b.after.map((ref) => ref.id)).toEqual([other.id]);
  });

  it("matches a fork with its parent by id and contents, and names the relation", async () => {
    const { session, a1, a2 } = await conversation();
    session.appendLabel(a1.id, "checkpoint");
    await session.flush();
    const fork = await session.fork(a1.id);
    fork.appendMessage(user("in the fork"));
    const diff = diffBranches({ session, leafId: session.leafId }, { session: fork, leafId: fork.leafId });
    expect(diff.sameSession).toBe(false);
    expect(diff.relation).toBe("b-forked-from-a");
    expect(diff.commonAncestor?.a.id).toBe(a1.id);
    expect(diff.a.after.map((ref) => ref.id)).toContain(a2.id);
    expect(diff.b.messages).toBe(1);
    const reversed = diffBranches(
      { session: fork, leafId: fork.leafId },
      { session, leafId: session.leafId },
    );
    expect(reversed.relation).toBe("a-forked-from-b");
  });

  it("shares nothing between unrelated sessions, and handles the empty branch", async () => {
    const first = await conversation();
    const second = await conversation();
    const diff = diffBranches(
      { session: first.session, leafId: first.session.leafId },
      { session: second.session, leafId: null },
    );
    expect(diff.matchedBy).toBe("none");
    expect(diff.commonAncestor).toBeUndefined();
    expect(diff.a.after).toHaveLength(4);
    expect(diff.b).toMatchObject({ branchLength: 0, messages: 0, after: [] });
  });

  it("matches copies under other ids by content", async () => {
    const store = new MemorySessionStore();
    const original = await Session.create(store, { cwd: "/p", now: tickingClock() });
    original.appendMessage(user("same"));
    await original.flush();
    const copy = await Session.create(store, { cwd: "/p", now: tickingClock() });
    copy.appendMessage(user("same"));
    await copy.flush();
    const diff = diffBranches(
      { session: original, leafId: original.leafId },
      { session: copy, leafId: copy.leafId },
    );
    expect(diff.matchedBy).toBe("content");
    expect(diff.commonAncestor?.a.id).not.toBe(diff.commonAncestor?.b.id);
  });
});

describe("sameJson", () => {
  it("compares JSON deeply, ignoring key order, undefined members and skipped keys", () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1, x: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson({ id: "x", v: 1 }, { id: "y", v: 1 }, new Set(["id"]))).toBe(true);
  });
});
