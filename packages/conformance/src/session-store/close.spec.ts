import type { SessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { chain, makeHeader } from "./fixtures.js";
import type { SessionStoreSuite } from "./session-store-suite.js";

/** `close` (optional): harmless to repeat, and what was written before it was written. */
export function closeSpec<TStore extends SessionStore>(suite: SessionStoreSuite<TStore>): void {
  describe("close", () => {
    it("can be called twice, after writes have completed", async (context) => {
      const store = suite.store();
      if (store.close === undefined) {
        context.skip("the store has no close()");
        return;
      }
      const header = makeHeader();
      await store.createSession(header);
      await store.appendEntries(header.id, chain(2));
      await store.close();
      await expect(store.close()).resolves.toBeUndefined();
    });

    it("keeps what was written before it for the next instance when storage is shared", async () => {
      const store = suite.store();
      const header = makeHeader();
      await store.createSession(header);
      await store.appendEntries(header.id, chain(3));
      await store.close?.();
      const next = await suite.options.create();
      try {
        const read = await next.readSession(header.id).catch((error: unknown) => error);
        // A backend whose instances do not share storage (memory) does not know the session at all.
        if (read instanceof Error) expect((read as { code?: unknown }).code).toBe("session_not_found");
        else expect((read as { entries: unknown[] }).entries).toHaveLength(3);
      } finally {
        if (suite.options.destroy !== undefined) await suite.options.destroy(next);
        else await next.close?.();
      }
    });
  });
}
