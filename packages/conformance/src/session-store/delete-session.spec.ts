import type { SessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { asStored, chain, expectCode, makeHeader, newSessionId } from "./fixtures.js";
import type { SessionStoreSuite } from "./session-store-suite.js";

/** `deleteSession`: gone everywhere, others untouched, unknown ids. */
export function deleteSessionSpec<TStore extends SessionStore>(suite: SessionStoreSuite<TStore>): void {
  describe("deleteSession", () => {
    it("removes the session from reads, appends and listings", async () => {
      const store = suite.store();
      const header = makeHeader();
      await store.createSession(header);
      await store.appendEntries(header.id, chain(3));
      await store.deleteSession(header.id);
      await expectCode(store.readSession(header.id), "session_not_found");
      await expectCode(store.appendEntries(header.id, chain(1)), "session_not_found");
      expect((await store.listSessions({ cwd: header.cwd })).sessions).toEqual([]);
    });

    it("leaves other sessions untouched", async () => {
      const store = suite.store();
      const doomed = makeHeader();
      const kept = makeHeader({ cwd: doomed.cwd });
      const entries = chain(2);
      await store.createSession(doomed);
      await store.createSession(kept);
      await store.appendEntries(kept.id, entries);
      await store.deleteSession(doomed.id);
      const read = await store.readSession(kept.id);
      expect(read.entries.map((entry) => entry.entry())).toEqual(asStored(entries));
      expect((await store.listSessions({ cwd: kept.cwd })).sessions.map((session) => session.id)).toEqual([
        kept.id,
      ]);
    });

    it("throws SessionNotFoundError for an unknown or already deleted session", async () => {
      const store = suite.store();
      await expectCode(store.deleteSession(newSessionId()), "session_not_found");
      const header = makeHeader();
      await store.createSession(header);
      await store.deleteSession(header.id);
      await expectCode(store.deleteSession(header.id), "session_not_found");
    });
  });
}
