import type { SessionStore, SessionWatch, StoredEntry } from "@arbor/session-store";
import { describe, expect, it, vi } from "vitest";
import { chain, expectCode, makeHeader, newSessionId } from "./fixtures.js";
import type { SessionStoreSuite } from "./session-store-suite.js";

/** Collects what a watch delivers: the ids, and the size of each delivery. */
function recorder() {
  const ids: string[] = [];
  const deliveries: number[] = [];
  const entries: StoredEntry[] = [];
  return {
    ids,
    deliveries,
    entries,
    onAppend: (batch: readonly StoredEntry[]) => {
      deliveries.push(batch.length);
      for (const entry of batch) {
        ids.push(entry.id);
        entries.push(entry);
      }
    },
  };
}

/** Waits up to 10 s for `count` delivered ids (a polling backend delivers late). */
async function waitForIds(ids: string[], count: number): Promise<void> {
  await vi.waitFor(() => expect(ids.length).toBeGreaterThanOrEqual(count), { timeout: 10_000, interval: 10 });
}

/**
 * `watch` (optional capability, run when the store has it): appends after the start, whoever made
 * them, exactly once and in order, batches whole; stopped by `close()`.
 */
export function watchSpec<TStore extends SessionStore>(suite: SessionStoreSuite<TStore>): void {
  describe("watch", () => {
    function watchOf(store: TStore) {
      return store.watch?.bind(store);
    }

    it("throws SessionNotFoundError for an unknown session", async (context) => {
      const watch = watchOf(suite.store());
      if (watch === undefined) return context.skip("the store has no watch()");
      await expectCode(
        watch(newSessionId(), () => {}),
        "session_not_found",
      );
    });

    it("delivers this store's appends after the start, once each, in order, batches whole", async (context) => {
      const store = suite.store();
      const watch = watchOf(store);
      if (watch === undefined) return context.skip("the store has no watch()");
      const header = makeHeader();
      await store.createSession(header);
      const before = chain(2);
      await store.appendEntries(header.id, before);
      const seen = recorder();
      const handle = await watch(header.id, seen.onAppend);
      try {
        const first = chain(3, before.at(-1)?.id ?? null, 20);
        await store.appendEntries(header.id, first);
        const second = chain(2, first.at(-1)?.id ?? null, 30);
        await store.appendEntries(header.id, second);
        await waitForIds(seen.ids, 5);
        await new Promise((done) => setTimeout(done, 100)); // Nothing more arrives.
        expect(seen.ids).toEqual([...first, ...second].map((entry) => entry.id));
        expect(seen.deliveries.every((size) => size === 3 || size === 2 || size === 5)).toBe(true);
        expect(seen.entries[0]?.entry()).toMatchObject({ id: first[0]?.id, type: "message" });
      } finally {
        await handle.close();
      }
    });

    it("delivers appends made through another instance of the same storage", async (context) => {
      const store = suite.store();
      const watch = watchOf(store);
      if (watch === undefined) return context.skip("the store has no watch()");
      const other = await suite.options.create();
      let handle: SessionWatch | undefined;
      try {
        const header = makeHeader();
        await store.createSession(header);
        const shared = await other.readSession(header.id).then(
          () => true,
          () => false,
        );
        if (!shared) return context.skip("instances of this store do not share storage");
        const seen = recorder();
        handle = await watch(header.id, seen.onAppend);
        const entries = chain(4);
        await other.appendEntries(header.id, entries.slice(0, 2));
        await other.appendEntries(header.id, entries.slice(2), {
          expectedLastEntryId: entries[1]?.id ?? null,
        });
        await waitForIds(seen.ids, 4);
        expect(seen.ids).toEqual(entries.map((entry) => entry.id));
      } finally {
        await handle?.close();
        if (suite.options.destroy !== undefined) await suite.options.destroy(other);
        else await other.close?.();
      }
    });

    it("stops delivering once closed; closing twice is harmless", async (context) => {
      const store = suite.store();
      const watch = watchOf(store);
      if (watch === undefined) return context.skip("the store has no watch()");
      const header = makeHeader();
      await store.createSession(header);
      const seen = recorder();
      const handle = await watch(header.id, seen.onAppend);
      const first = chain(1);
      await store.appendEntries(header.id, first);
      await waitForIds(seen.ids, 1);
      await handle.close();
      await handle.close();
      await store.appendEntries(header.id, chain(2, first[0]?.id ?? null, 40));
      await new Promise((done) => setTimeout(done, 200));
      expect(seen.ids).toEqual([first[0]?.id]);
    });
  });
}
