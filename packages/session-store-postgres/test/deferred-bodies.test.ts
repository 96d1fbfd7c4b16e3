/**
 * `Session.open(store, id, { bodies: "context" })` over PostgreSQL: the tree and the context's bodies
 * only, the rest loaded on request (docs/decisions/0019-deferred-entry-bodies.md).
 */
import {
  EAGER_BODY_TYPES,
  EntryNotLoadedError,
  Session,
  type SessionEntry,
  SessionNotFoundError,
} from "@arbor/session-store";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresSessionStore } from "../src/index.js";
import { describeWithPostgres, temporarySchema } from "./database.js";

const now = () => new Date("2026-06-01T00:00:00.000Z");

describeWithPostgres("PostgresSessionStore: bodies left out on open", (url) => {
  const schema = temporarySchema(url);
  let store: PostgresSessionStore;
  let sessionId: string;
  /** Entries before the compaction's kept span, after it, and on a side branch. */
  let early: string[];
  let side: string;
  beforeAll(async () => {
    store = PostgresSessionStore.fromUrl(url, { schema });
    const session = await Session.create(store, { cwd: "/work", now });
    session.appendModelChange("anthropic", "claude-sonnet-4-5");
    session.appendSessionInfo("deferred");
    early = [];
    for (let turn = 0; turn < 6; turn++) {
      early.push(session.appendMessage({ role: "user", content: `question ${turn}`, timestamp: 1 }).id);
    }
    const kept = session.appendMessage({ role: "user", content: "kept question", timestamp: 1 });
    session.appendLabel(early[0] as string, "start");
    const branchPoint = session.leafId as string;
    side = session.appendMessage({ role: "user", content: "side branch", timestamp: 1 }).id;
    session.moveTo(branchPoint);
    session.appendCompaction({ summary: "what came before", firstKeptEntryId: kept.id, tokensBefore: 500 });
    session.appendMessage({ role: "user", content: "after the compaction", timestamp: 1 });
    await session.flush();
    sessionId = session.id;
  });
  afterAll(async () => {
    await store.close();
  });

  it("builds the same context as a full open, reading only the context's message bodies", async () => {
    const full = await Session.open(store, sessionId);
    const deferred = await Session.open(store, sessionId, { bodies: "context" });
    expect(deferred.buildContext()).toEqual(full.buildContext());
    expect(deferred.name).toBe("deferred");
    expect(deferred.getLabel(early[0] as string)).toBe("start");
    expect(deferred.settingsAt()).toEqual(full.settingsAt());
    expect(deferred.notices).toEqual([]);

    // An entry outside the context is not read: its body throws a typed error that says what to do.
    const error = (() => {
      try {
        deferred.getEntry(early[1] as string);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(EntryNotLoadedError);
    expect(error).toMatchObject({ code: "entry_not_loaded", entryId: early[1], sessionId });
    expect((error as Error).message).toContain("await session.loadEntries()");
    // …and is not mistaken for damage.
    expect(deferred.notices).toEqual([]);

    await deferred.loadEntries([early[1] as string]);
    expect(deferred.getEntry(early[1] as string)).toEqual(full.getEntry(early[1] as string));
    expect(() => deferred.getEntry(early[2] as string)).toThrow(EntryNotLoadedError);
  });

  it("loads a branch for getBranch and another leaf's context, and everything on request", async () => {
    const full = await Session.open(store, sessionId);
    const deferred = await Session.open(store, sessionId, { bodies: "context" });
    expect(() => deferred.buildContext(side)).toThrow(EntryNotLoadedError);
    await deferred.loadBranch(side);
    expect(deferred.buildContext(side)).toEqual(full.buildContext(side));
    expect(JSON.parse(JSON.stringify(deferred.getBranch(side)))).toEqual(
      JSON.parse(JSON.stringify(full.getBranch(side))),
    );

    await deferred.loadEntries();
    const entries = (session: Session) => {
      const all: (SessionEntry | undefined)[] = [];
      const stack = [...session.getTree()];
      while (stack.length > 0) {
        const node = stack.shift();
        if (node === undefined) break;
        all.push(node.entry());
        stack.push(...node.children);
      }
      return all;
    };
    expect(entries(deferred)).toEqual(entries(full));
    await expect(deferred.loadEntries(["nope"])).rejects.toMatchObject({ code: "entry_not_found" });
  });

  it("forks from a deferred session with every entry of the path", async () => {
    const full = await Session.open(store, sessionId);
    const deferred = await Session.open(store, sessionId, { bodies: "context" });
    const fork = await deferred.fork(early[3] as string);
    const reopened = await Session.open(store, fork.id);
    const ids = full.getPath(early[3] as string).map((ref) => ref.id);
    expect(reopened.getBranch().map((entry) => entry.id)).toEqual([...ids, expect.any(String)]);
    expect(reopened.getEntry(early[2] as string)).toEqual(full.getEntry(early[2] as string));
  });

  it("readSession with deferBodies reads the eager types' bodies and loads the rest by request", async () => {
    const stored = await store.readSession(sessionId, { deferBodies: true });
    expect(stored.loadEntries).toBeTypeOf("function");
    for (const entry of stored.entries) {
      if (EAGER_BODY_TYPES.includes(entry.type)) expect(entry.entry().id).toBe(entry.id);
      else expect(() => entry.entry()).toThrow(EntryNotLoadedError);
    }
    await stored.loadEntries?.(stored.entries);
    const plain = await store.readSession(sessionId);
    expect(plain.loadEntries).toBeUndefined();
    expect(stored.entries.map((entry) => entry.entry())).toEqual(plain.entries.map((entry) => entry.entry()));
  });

  it("fails to load from a session deleted since it was read, naming it", async () => {
    const doomed = await Session.create(store, { cwd: "/work", now });
    doomed.appendMessage({ role: "user", content: "soon gone", timestamp: 1 });
    await doomed.flush();
    const stored = await store.readSession(doomed.id, { deferBodies: true });
    await store.deleteSession(doomed.id);
    await expect(stored.loadEntries?.(stored.entries)).rejects.toBeInstanceOf(SessionNotFoundError);
  });
});
