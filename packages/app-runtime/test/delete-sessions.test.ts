import { generateSessionId, MemorySessionStore, type SessionStore } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { describe, expect, it } from "vitest";
import { deleteSessions, sessionsToPrune } from "../src/index.js";
import { temporaryDirectory } from "./helpers.js";

async function storedSession(store: SessionStore, cwd: string, timestamp: string): Promise<string> {
  const id = generateSessionId();
  await store.createSession({ type: "session", version: 3, id, timestamp, cwd });
  return id;
}

describe("deleteSessions and sessionsToPrune", () => {
  it("selects by age and working directory, from the listing alone", async () => {
    const store = new MemorySessionStore();
    const old = await storedSession(store, "/a", "2026-01-01T00:00:00.000Z");
    const recent = await storedSession(store, "/a", "2026-12-01T00:00:00.000Z");
    const elsewhere = await storedSession(store, "/b", "2026-01-02T00:00:00.000Z");
    const now = new Date("2026-12-05T00:00:00.000Z");
    const month = 30 * 24 * 3600 * 1000;
    const ids = async (query: Parameters<typeof sessionsToPrune>[1]) =>
      (await sessionsToPrune(store, query)).map((session) => session.id).sort();
    expect(await ids({ olderThanMs: month, now })).toEqual([old, elsewhere].sort());
    expect(await ids({ olderThanMs: month, cwd: "/a", now })).toEqual([old]);
    expect(await ids({ cwd: "/a" })).toEqual([old, recent].sort());
  });

  it("deletes, and refuses the open session, an unknown id and one another writer holds", async () => {
    const home = temporaryDirectory();
    const store = new JsonlSessionStore({ home });
    const other = new JsonlSessionStore({ home });
    try {
      const free = await storedSession(store, "/p", new Date().toISOString());
      const open = await storedSession(store, "/p", new Date().toISOString());
      const held = await storedSession(store, "/p", new Date().toISOString());
      const lease = await other.acquireWriterLease(held);
      const missing = generateSessionId();
      const result = await deleteSessions(store, [free, open, held, missing], { keep: [open] });
      expect(result.deleted).toEqual([free]);
      expect(result.refused.map((refusal) => refusal.id)).toEqual([open, held, missing]);
      expect(result.refused[1]?.reason).toMatch(/is open for writing by pid \d+/);
      expect(result.refused[2]?.reason).toBe("no such session in this store");
      const left = (await store.listSessions({})).sessions.map((session) => session.id).sort();
      expect(left).toEqual([open, held].sort());
      await lease.release();
      expect((await deleteSessions(store, [held])).deleted).toEqual([held]);
    } finally {
      await store.close();
      await other.close();
    }
  });
});
