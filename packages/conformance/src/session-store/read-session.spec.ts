import type { SessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { asStored, chain, expectCode, makeHeader, newSessionId } from "./fixtures.js";
import type { SessionStoreSuite } from "./session-store-suite.js";

/** `readSession`: unknown ids, snapshots, copies, corrupt data. */
export function readSessionSpec<TStore extends SessionStore>(suite: SessionStoreSuite<TStore>): void {
  describe("readSession", () => {
    it("throws SessionNotFoundError for an unknown session", async () => {
      await expectCode(suite.store().readSession(newSessionId()), "session_not_found");
    });

    it("reads a healthy session without warnings", async () => {
      const store = suite.store();
      const header = makeHeader();
      await store.createSession(header);
      await store.appendEntries(header.id, chain(5));
      const read = await store.readSession(header.id);
      expect(read.header).toEqual(asStored(header));
      expect(read.entries).toHaveLength(5);
      expect(read.warnings).toEqual([]);
    });

    it("returns a snapshot: later appends do not change it, and its entries stay readable", async () => {
      const store = suite.store();
      const header = makeHeader();
      const first = chain(3);
      await store.createSession(header);
      await store.appendEntries(header.id, first);
      const before = await store.readSession(header.id);
      await store.appendEntries(header.id, chain(2, first.at(-1)?.id ?? null, 30));
      expect(before.entries).toHaveLength(3);
      expect(before.entries.map((entry) => entry.entry())).toEqual(asStored(first));
      expect((await store.readSession(header.id)).entries).toHaveLength(5);
    });

    it("gives every read its own copies: mutating a read entry changes nothing stored", async () => {
      const store = suite.store();
      const header = makeHeader();
      const entries = chain(2);
      await store.createSession(header);
      await store.appendEntries(header.id, entries);
      const first = await store.readSession(header.id);
      const entry = first.entries[0]?.entry() as unknown as { message: { content: unknown } };
      entry.message.content = "mutated";
      (first.header as unknown as Record<string, unknown>).cwd = "/mutated";
      const second = await store.readSession(header.id);
      expect(second.entries.map((entry) => entry.entry())).toEqual(asStored(entries));
      expect(second.header.cwd).toBe(header.cwd);
    });

    describe("corrupt data", () => {
      it.skipIf(suite.options.corrupt === undefined)(
        "throws SessionCorruptError for an unreadable header; listing and deleting still work",
        async () => {
          const store = suite.store();
          const damaged = makeHeader();
          const healthy = makeHeader({ cwd: damaged.cwd });
          await store.createSession(damaged);
          await store.createSession(healthy);
          await store.appendEntries(damaged.id, chain(2));
          await suite.options.corrupt?.(store, damaged.id);
          await expectCode(store.readSession(damaged.id), "session_corrupt");
          const page = await store.listSessions({ cwd: damaged.cwd });
          expect(page.sessions.map((session) => session.id)).toContain(healthy.id);
          expect((await store.readSession(healthy.id)).header).toEqual(asStored(healthy));
          await store.deleteSession(damaged.id);
          await expectCode(store.readSession(damaged.id), "session_not_found");
        },
      );
    });
  });
}
