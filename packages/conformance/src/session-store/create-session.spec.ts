import type { SessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { asStored, at, chain, expectCode, makeHeader } from "./fixtures.js";
import type { SessionStoreSuite } from "./session-store-suite.js";

/** `createSession`: header round trip, duplicate ids, empty sessions, independence. */
export function createSessionSpec<TStore extends SessionStore>(suite: SessionStoreSuite<TStore>): void {
  describe("createSession", () => {
    it("stores the header as given, unknown fields included", async () => {
      const store = suite.store();
      const header = makeHeader({
        parentSession: "conformance-parent",
        metadata: { title: "draft", tags: ["a", "b"], nested: { depth: 2 } },
        "x-client": { name: "conformance", build: 7 },
      });
      await store.createSession(header);
      const read = await store.readSession(header.id);
      expect(read.header).toEqual(asStored(header));
      expect(read.entries).toEqual([]);
      expect(read.warnings).toEqual([]);
    });

    it("throws SessionExistsError for a taken id and keeps the first session", async () => {
      const store = suite.store();
      const header = makeHeader();
      await store.createSession(header);
      await store.appendEntries(header.id, chain(2));
      await expectCode(store.createSession({ ...header, cwd: "/elsewhere" }), "session_exists");
      const read = await store.readSession(header.id);
      expect(read.header.cwd).toBe(header.cwd);
      expect(read.entries).toHaveLength(2);
    });

    it.skipIf(suite.options.reopen === undefined)(
      "creates an id once across instances: a second instance that has not seen it gets SessionExistsError",
      async () => {
        const store = suite.store();
        const other = await suite.options.reopen!(store);
        try {
          const header = makeHeader();
          // Both instances have looked at the storage (and created a session) before the id exists.
          await store.createSession(makeHeader());
          await other.createSession(makeHeader());
          await store.listSessions({ cwd: header.cwd });
          await other.listSessions({ cwd: header.cwd });
          const rival = { ...header, timestamp: at(99), metadata: { title: "second" } };
          const results = await Promise.allSettled([store.createSession(header), other.createSession(rival)]);
          expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
          const rejected = results.find((result) => result.status === "rejected");
          expect((rejected as PromiseRejectedResult).reason).toMatchObject({ code: "session_exists" });
          // Either instance may win the race; both must then read the winner's header, never a mix.
          const winner = results[0].status === "fulfilled" ? header : rival;
          const page = await other.listSessions({ cwd: header.cwd });
          expect(page.sessions.map((summary) => summary.id)).toEqual([header.id]);
          expect((await other.readSession(header.id)).header).toEqual(asStored(winner));
          expect((await store.readSession(header.id)).header).toEqual(asStored(winner));
        } finally {
          await other.close?.();
        }
      },
    );

    it("lists a new session with no messages and its creation time as its activity", async () => {
      const store = suite.store();
      const header = makeHeader({ timestamp: at(42), parentSession: "conformance-parent" });
      await store.createSession(header);
      const page = await store.listSessions({ cwd: header.cwd });
      expect(page.sessions).toHaveLength(1);
      expect(page.sessions[0]).toMatchObject({
        id: header.id,
        cwd: header.cwd,
        createdAt: header.timestamp,
        updatedAt: header.timestamp,
        messageCount: 0,
        parentSession: "conformance-parent",
      });
      expect(page.nextCursor).toBeUndefined();
    });

    it("keeps sessions independent of each other", async () => {
      const store = suite.store();
      const first = makeHeader();
      const second = makeHeader({ cwd: first.cwd });
      await store.createSession(first);
      await store.createSession(second);
      const entries = chain(3);
      await store.appendEntries(first.id, entries);
      expect((await store.readSession(second.id)).entries).toEqual([]);
      // An expectation about one session says nothing about another.
      await store.appendEntries(second.id, chain(1), { expectedLastEntryId: null });
      expect((await store.readSession(first.id)).entries.map((entry) => entry.id)).toEqual(
        entries.map((entry) => entry.id),
      );
    });
  });
}
