import type { SessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { chain, expectCode, makeHeader, newSessionId } from "./fixtures.js";
import type { SessionStoreSuite } from "./session-store-suite.js";

/** A holder as a refused writer is told: `pid 123@host since 2026-…`. */
const HOLDER = /^pid \d+@\S+ since \d{4}-\d\d-\d\dT/;

/**
 * `acquireWriterLease` (optional capability, run when the store has it): one lease per session at a
 * time, whoever asks (the same instance, another instance); refusals name the holder; `release()` and
 * `close()` give it up; readers and other sessions are never refused.
 */
export function writerLeaseSpec<TStore extends SessionStore>(suite: SessionStoreSuite<TStore>): void {
  describe("acquireWriterLease", () => {
    function leaseOf(store: SessionStore) {
      return store.acquireWriterLease?.bind(store);
    }

    it("throws SessionNotFoundError for an unknown session", async (context) => {
      const lease = leaseOf(suite.store());
      if (lease === undefined) return context.skip("the store has no acquireWriterLease()");
      await expectCode(lease(newSessionId()), "session_not_found");
    });

    it("names its session and holder, and refuses a second lease naming that holder", async (context) => {
      const store = suite.store();
      const lease = leaseOf(store);
      if (lease === undefined) return context.skip("the store has no acquireWriterLease()");
      const header = makeHeader();
      await store.createSession(header);
      const held = await lease(header.id);
      try {
        expect(held.sessionId).toBe(header.id);
        expect(held.holder).toMatch(HOLDER);
        const refused = await expectCode(lease(header.id), "session_locked");
        expect((refused as { holder?: unknown }).holder).toBe(held.holder);
        expect((refused as Error).message).toContain(held.holder);
        expect((refused as Error).message).not.toContain("\n");
      } finally {
        await held.release();
      }
      const again = await lease(header.id);
      await again.release();
      await expect(again.release()).resolves.toBeUndefined();
    });

    it("takes leases of different sessions independently, and lets its holder append", async (context) => {
      const store = suite.store();
      const lease = leaseOf(store);
      if (lease === undefined) return context.skip("the store has no acquireWriterLease()");
      const first = makeHeader();
      const second = makeHeader();
      await store.createSession(first);
      await store.createSession(second);
      const one = await lease(first.id);
      const two = await lease(second.id);
      try {
        const entries = chain(2);
        await store.appendEntries(first.id, entries, { expectedLastEntryId: null });
        expect((await store.readSession(first.id)).entries.map((entry) => entry.id)).toEqual(
          entries.map((entry) => entry.id),
        );
      } finally {
        await one.release();
        await two.release();
      }
    });

    it.skipIf(suite.options.reopen === undefined)(
      "refuses another instance while held, lets it read, and lets it take the lease once released",
      async (context) => {
        const store = suite.store();
        if (leaseOf(store) === undefined) return context.skip("the store has no acquireWriterLease()");
        const other = await suite.options.reopen!(store);
        try {
          const header = makeHeader();
          await store.createSession(header);
          await store.appendEntries(header.id, chain(2));
          const held = await leaseOf(store)!(header.id);
          const refused = await expectCode(leaseOf(other)!(header.id), "session_locked");
          expect((refused as Error).message).toContain(held.holder);
          // Readers never take the lease and are never refused by it.
          expect((await other.readSession(header.id)).entries).toHaveLength(2);
          const page = await other.listSessions({ cwd: header.cwd });
          expect(page.sessions.map((summary) => summary.id)).toEqual([header.id]);
          await held.release();
          const taken = await leaseOf(other)!(header.id);
          await expectCode(leaseOf(store)!(header.id), "session_locked");
          await taken.release();
        } finally {
          await other.close?.();
        }
      },
    );

    it.skipIf(suite.options.reopen === undefined)(
      "gives its leases up when the store is closed",
      async (context) => {
        const store = suite.store();
        if (leaseOf(store) === undefined) return context.skip("the store has no acquireWriterLease()");
        const header = makeHeader();
        await store.createSession(header);
        const other = await suite.options.reopen!(store);
        try {
          await leaseOf(store)!(header.id);
          await expectCode(leaseOf(other)!(header.id), "session_locked");
          await store.close?.();
          const taken = await leaseOf(other)!(header.id);
          await taken.release();
        } finally {
          await other.close?.();
        }
      },
    );
  });
}
