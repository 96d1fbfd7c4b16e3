import type { SessionEntry, SessionHeader } from "@arbor/session-store";

/**
 * Entries of a session that its store refused after every retry, with what applying them later needs
 * (docs/reference/harness.md, "Failed saves"): they follow `expectedLastEntryId` in the store, in order.
 */
export interface UnsavedEntries {
  sessionId: string;
  /** The session's header: what creates the session when the store never held it (`sessionStored: false`). */
  header: SessionHeader;
  /** Whether the store held the session when the save failed (false: a new session's first save). */
  sessionStored: boolean;
  /**
   * The last entry the store is known to hold, which the entries follow (`null`: none). Exact once the
   * session was saved in this process, and for conflicts (the store said which it expected); for a session
   * opened and never saved since, it is the leaf it was opened at.
   */
  expectedLastEntryId: string | null;
  /** Every entry not stored, in append order (the tree's `parentId` links them). */
  entries: readonly SessionEntry[];
  /** Why the store refused them: the last error's message. */
  reason: string;
  /** True when another writer appended first or holds the session (never retried). */
  conflict: boolean;
  /** When the save was given up (ISO 8601). */
  failedAt: string;
}

/** Where a keeper put unsaved entries, for people. */
export interface KeptEntries {
  /** Where they are, e.g. a file path. */
  location: string;
  /** How to apply them, as a clause for a sentence (e.g. "`arbor sessions recover 0193ab` applies them"). */
  howToApply?: string;
}

/**
 * Keeps what a session's store refused somewhere else — Arbor's app keeps a recovery file — so that nothing
 * that ran is unrecorded without the user being told where it is. Given to `createHarness({ unsavedEntries })`.
 */
export interface UnsavedEntriesKeeper {
  /**
   * Keeps entries the store refused (after its retries), outside the store.
   *
   * Contract: writes them durably and atomically (a reader finds the previous version or the new one, never
   * a part). While they stay unsaved it is called again with every entry still unsaved (the earlier ones
   * included) and `previous`, what the last call returned, which it replaces. Resolves to where they are;
   * may reject — the harness reports the error, and its messages then say that the entries are held in
   * memory only.
   */
  keep(unsaved: UnsavedEntries, previous: KeptEntries | undefined): Promise<KeptEntries>;
  /**
   * The kept entries reached the store after all (a later save wrote them): removes what `keep` wrote.
   *
   * Contract: never rejects (a failure to remove is the keeper's to ignore; applying kept entries that are
   * already stored must change nothing).
   */
  release(kept: KeptEntries): Promise<void>;
}
