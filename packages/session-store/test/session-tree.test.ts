import { describe, expect, it } from "vitest";
import { MemorySessionStore, Session, type SessionEntry, SessionEntryNotFoundError } from "../src/index.js";
import { assistant, tickingClock, user } from "./helpers.js";

async function newSession() {
  const store = new MemorySessionStore();
  const session = await Session.create(store, { cwd: "/project", id: "tree-session", now: tickingClock() });
  return { store, session };
}

describe("Session tree", () => {
  it("appends as children of the leaf and moves the leaf to each new entry", async () => {
    const { session } = await newSession();
    expect(session.leafId).toBeNull();
    const first = session.appendMessage(user("a"));
    const second = session.appendMessage(assistant("b"));
    expect(first.parentId).toBeNull();
    expect(second.parentId).toBe(first.id);
    expect(second.id).toMatch(/^[0-9a-f]{8}$/);
    expect(second.timestamp).toBe("2026-01-01T00:00:02.000Z");
    expect(session.leafId).toBe(second.id);
    expect(session.getEntry(second.id)).toBe(second);
    expect(session.entryCount).toBe(2);
  });

  it("gives branches, children and the whole tree; getBranch follows any leaf", async () => {
    const { session } = await newSession();
    const root = session.appendMessage(user("root"));
    const left = session.appendMessage(assistant("left"));
    session.moveTo(root.id);
    const right = session.appendMessage(assistant("right"));
    const rightChild = session.appendMessage(user("right child"));

    expect(session.children(root.id).map((child) => child.id)).toEqual([left.id, right.id]);
    expect(session.children(null).map((child) => child.id)).toEqual([root.id]);
    expect(session.getBranch().map((entry) => entry.id)).toEqual([root.id, right.id, rightChild.id]);
    expect(session.getBranch(left.id).map((entry) => entry.id)).toEqual([root.id, left.id]);
    expect(session.getPath(rightChild.id).map((ref) => ref.type)).toEqual(["message", "message", "message"]);

    const tree = session.getTree();
    expect(tree).toHaveLength(1);
    const [rootNode] = tree;
    expect(rootNode?.id).toBe(root.id);
    // The leaf entry of the move is a child of `left` (the leaf it moved away from).
    expect(rootNode?.children.map((child) => child.type)).toEqual(["message", "message"]);
    const leftNode = rootNode?.children[0];
    expect(leftNode?.children.map((child) => child.type)).toEqual(["leaf"]);
    expect(rootNode?.children[1]?.children[0]?.entry()).toBe(rightChild);
  });

  it("throws SessionEntryNotFoundError for unknown ids", async () => {
    const { session } = await newSession();
    session.appendMessage(user("a"));
    expect(() => session.getBranch("nope0000")).toThrow(SessionEntryNotFoundError);
    expect(() => session.moveTo("nope0000")).toThrow(SessionEntryNotFoundError);
    expect(() => session.appendLabel("nope0000", "x")).toThrow(SessionEntryNotFoundError);
    expect(() => session.buildContext("nope0000")).toThrow(SessionEntryNotFoundError);
    await expect(session.fork("nope0000")).rejects.toBeInstanceOf(SessionEntryNotFoundError);
    expect(session.getEntry("nope0000")).toBeUndefined();
    expect(session.children("nope0000")).toEqual([]);
  });

  it("reopens to the same tree and leaf: the last entry, or a leaf entry's target", async () => {
    const { store, session } = await newSession();
    const root = session.appendMessage(user("root"));
    session.appendMessage(assistant("abandoned"));
    session.moveTo(root.id);
    await session.flush();
    const reopened = await Session.open(store, session.id);
    expect(reopened.leafId).toBe(root.id);
    expect(reopened.getTree()[0]?.children[0]?.children[0]?.type).toBe("leaf");
    const next = reopened.appendMessage(assistant("new branch"));
    expect(next.parentId).toBe(root.id);
    await reopened.flush();
    expect((await Session.open(store, session.id)).leafId).toBe(next.id);
  });

  it("treats a missing or later parent as a root and repeated ids as one entry, with warnings", async () => {
    const store = new MemorySessionStore();
    await store.createSession({
      type: "session",
      version: 3,
      id: "odd",
      timestamp: "2026-01-01T00:00:00Z",
      cwd: "/",
    });
    const entry = (id: string, parentId: string | null): SessionEntry => ({
      type: "message",
      id,
      parentId,
      timestamp: "2026-01-01T00:00:01Z",
      message: user(id),
    });
    await store.appendEntries("odd", [
      entry("aaaa0001", "cccc0003"),
      entry("bbbb0002", null),
      entry("bbbb0002", null),
      entry("cccc0003", "aaaa0001"),
    ]);
    const session = await Session.open(store, "odd");
    expect(session.children(null).map((ref) => ref.id)).toEqual(["aaaa0001", "bbbb0002"]);
    expect(session.getPath("cccc0003").map((ref) => ref.id)).toEqual(["aaaa0001", "cccc0003"]);
    expect(session.warnings).toEqual([
      expect.stringContaining(
        'Entry "aaaa0001" (message) names parent "cccc0003", which does not come before it',
      ),
      expect.stringContaining('Entry "bbbb0002" (message) repeats an earlier entry\'s id'),
    ]);
  });
});
