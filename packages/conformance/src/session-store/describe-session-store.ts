import type { SessionStore } from "@arbor/session-store";
import { afterEach, beforeEach, describe } from "vitest";
import { appendEntriesSpec } from "./append-entries.spec.js";
import { closeSpec } from "./close.spec.js";
import { createSessionSpec } from "./create-session.spec.js";
import { deleteSessionSpec } from "./delete-session.spec.js";
import { listSessionsSpec } from "./list-sessions.spec.js";
import { readSessionSpec } from "./read-session.spec.js";
import { watchSpec } from "./watch.spec.js";

/** Options of {@link describeSessionStore}. */
export interface DescribeSessionStoreOptions<TStore extends SessionStore = SessionStore> {
  /** Shown in the test names. */
  name: string;
  /**
   * Makes the store one test uses. Called before every test.
   *
   * Contract: instances may share storage (one database, one directory): the suite never assumes an
   * empty store — each test uses its own session ids and its own `cwd` for listings.
   */
  create: () => TStore | Promise<TStore>;
  /**
   * Cleans up after a test (close the store, remove a temporary directory, drop a schema). When absent,
   * the suite calls the store's `close()` if it has one.
   */
  destroy?: (store: TStore) => void | Promise<void>;
  /**
   * Damages the stored header of `sessionId` so that it can no longer be read (JSONL: overwrite line 1
   * with bytes that are not JSON). The corrupt-data specs are skipped when absent.
   */
  corrupt?: (store: TStore, sessionId: string) => void | Promise<void>;
}

/** What each spec file receives: the options and the store of the running test. */
export interface SessionStoreSuite<TStore extends SessionStore = SessionStore> {
  options: DescribeSessionStoreOptions<TStore>;
  /** The store of the running test. */
  store(): TStore;
}

/**
 * Registers the vitest suite every {@link SessionStore} backend passes, one spec file per method:
 * `createSession`, `appendEntries`, `readSession`, `listSessions`, `deleteSession`, `close`, and
 * `watch` when the store has it (live followers). It checks
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
  });
}
