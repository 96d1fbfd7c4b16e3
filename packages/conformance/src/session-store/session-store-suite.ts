import type { SessionStore } from "@arbor/session-store";

/**
 * The types the session-store suite and its spec files share (kept apart from `describeSessionStore`, which
 * imports every spec file, so that the specs do not import it back).
 */

/** Options of `describeSessionStore`. */
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
   * Opens a second instance over the storage of `store` (what another process would open). The specs of
   * exclusive creation across instances are skipped when absent.
   *
   * Contract: the new instance sees everything `store` wrote; the suite closes it.
   */
  reopen?: (store: TStore) => TStore | Promise<TStore>;
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
