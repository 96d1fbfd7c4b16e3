import type { SessionStore } from "@arbor/session-store";
import { afterEach, beforeEach, describe } from "vitest";
import { appendEntriesSpec } from "./append-entries.spec.js";
import { closeSpec } from "./close.spec.js";
import { createSessionSpec } from "./create-session.spec.js";
import { deleteSessionSpec } from "./delete-session.spec.js";
import { listSessionsSpec } from "./list-sessions.spec.js";
import { readSessionSpec } from "./read-session.spec.js";
import type { DescribeSessionStoreOptions, SessionStoreSuite } from "./session-store-suite.js";
import { watchSpec } from "./watch.spec.js";
import { writerLeaseSpec } from "./writer-lease.spec.js";

/**
 * Registers the vitest suite every {@link SessionStore} backend passes, one spec file per method:
 * `createSession`, `appendEntries`, `readSession`, `listSessions`, `deleteSession`, `close`, and
 * `watch` and `acquireWriterLease` when the store has them (live followers, the writer lease). It checks
 * round trips (unknown fields and entry types included), append order, atomic batches,
 * `expectedLastEntryId` conflicts (also between concurrent appends), unknown ids, corrupt data (with the
 * `corrupt` hook), pagination (newest activity first, `limit`/`cursor`, `cwd` filter), independence of
 * sessions, and lazy `entry()` returning one object per entry.
 *
 * Isolation rule: every test creates its own store (`create`, then `destroy`) and its own session ids,
 * entry ids and working directories, so tests never see each other's data even when the instances of a
 * backend share storage; listing tests only assert on sessions of their own `cwd`.
 */
export function describeSessionStore<TStore extends SessionStore>(
  options: DescribeSessionStoreOptions<TStore>,
): void {
  describe(`session store conformance: ${options.name}`, () => {
    let current: TStore | undefined;
    const suite: SessionStoreSuite<TStore> = {
      options,
      store: () => {
        if (current === undefined) throw new Error("describeSessionStore: no store outside a test");
        return current;
      },
    };

    beforeEach(async () => {
      current = await options.create();
    });

    afterEach(async () => {
      const store = current;
      current = undefined;
      if (store === undefined) return;
      if (options.destroy !== undefined) await options.destroy(store);
      else await store.close?.();
    });

    createSessionSpec(suite);
    appendEntriesSpec(suite);
    readSessionSpec(suite);
    listSessionsSpec(suite);
    deleteSessionSpec(suite);
    closeSpec(suite);
    watchSpec(suite);
    writerLeaseSpec(suite);
  });
}
