import type { SessionEntry, SessionHeader } from "./entries.js";

/**
 * An entry as a store returns it. The tree fields are always at hand; the full entry is produced on
 * demand, so a backend that can (JSONL) parses only the bodies the caller asks for — a 60k-entry
 * file opens by scanning `type`, `id` and `parentId` per line and parsing only the context path.
 */
export interface StoredEntry {
  readonly type: string;
  readonly id: string;
  readonly parentId: string | null;
  /**
   * The full entry, unknown fields included.
   *
   * Contract: returns the same object on every call (parsed at most once); throws
   * `SessionCorruptError` when the stored bytes are not a valid entry, and `EntryNotLoadedError` when the
   * session was read with `deferBodies` and this body was not loaded yet (see
   * {@link StoredSession.loadEntries}) — never a partial entry.
   */
  entry(): SessionEntry;
}

/** What {@link SessionStore.readSession} returns. */
export interface StoredSession {
  header: SessionHeader;
  /** Entries in append order. */
  entries: StoredEntry[];
  /** Problems found and worked around while reading (a torn last line moved aside, a bad line skipped). */
  warnings: string[];
  /**
   * Loads the bodies of some of `entries` that were left out (optional: present only when the session was
   * read with {@link ReadSessionOptions.deferBodies} by a store that left bodies out; see
   * docs/decisions/0019-deferred-entry-bodies.md).
   *
   * Contract: after it resolves, `entry()` of every entry passed returns synchronously (or throws
   * `SessionCorruptError` for a damaged one); entries already loaded are skipped, so passing all of
   * `entries` loads what is missing; an entry removed from the store since the read (the session was
   * deleted) makes it throw `SessionNotFoundError`. Throws the store's errors (unavailable, …), loading
   * nothing then. Calls may overlap.
   */
  loadEntries?(entries: readonly StoredEntry[]): Promise<void>;
}

/**
 * Entry types whose bodies a store reading with {@link ReadSessionOptions.deferBodies} must still load:
 * the small entries whose effect is global (labels, name, leaf moves) or that decide what a context
 * holds (compactions, prunes, settings). A `Session` indexes the tree from them before it asks for any
 * message body.
 */
export const EAGER_BODY_TYPES: readonly string[] = [
  "label",
  "session_info",
  "leaf",
  "compaction",
  "prune",
  "thinking_level_change",
  "model_change",
  "active_tools_change",
];

/** Options of {@link SessionStore.readSession}. */
export interface ReadSessionOptions {
  /**
   * The caller may do without most bodies at first (default `false`): a store that pays for moving them
   * (a database server) may return entries of the types outside {@link EAGER_BODY_TYPES} without their
   * bodies, and then provides {@link StoredSession.loadEntries}. Stores that read bodies lazily anyway
   * (JSONL, SQLite, memory) ignore it.
   */
  deferBodies?: boolean;
}

/** One line of {@link SessionStore.listSessions}. */
export interface SessionSummary {
  id: string;
  cwd: string;
  /** The header's timestamp (ISO 8601). */
  createdAt: string;
  /** The last entry's timestamp, or `createdAt` (ISO 8601). */
  updatedAt: string;
  /** The latest `session_info` name, if any. */
  name?: string;
  /** Number of `message` entries. */
  messageCount: number;
  parentSession?: string;
  /** Where the session lives, when the backend has a notion of it (a file path for JSONL). */
  location?: string;
  /**
   * The text of the first user message, when the backend can tell without reading the session (the
   * database stores find it with one indexed lookup); absent otherwise (JSONL: read the file's head).
   */
  firstMessage?: string;
}

/** Query of {@link SessionStore.listSessions}. */
export interface ListSessionsQuery {
  /** Only sessions whose header `cwd` is this directory. */
  cwd?: string;
  /** Page size; default 50. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

/** A page of {@link SessionStore.listSessions}: newest activity first. */
export interface SessionPage {
  sessions: SessionSummary[];
  /** Present when more sessions follow. */
  nextCursor?: string;
}

/** Options of {@link SessionStore.appendEntries}. */
export interface AppendOptions {
  /**
   * The id of the session's last stored entry as the caller last saw it (`null` for a session with no
   * entries). When another writer appended since, the append throws `SessionConflictError` and writes
   * nothing.
   */
  expectedLastEntryId?: string | null;
}

/**
 * Called by {@link SessionStore.watch} with the entries of one or more appends, in append order.
 *
 * Contract: must not throw; it is called again only after it has returned.
 */
export type SessionAppendListener = (entries: readonly StoredEntry[]) => void;

/** What {@link SessionStore.watch} returns: stops the delivery when closed. */
export interface SessionWatch {
  /** Stops delivering. Contract: idempotent; after it resolves `onAppend` is not called again. */
  close(): Promise<void>;
}

/**
 * What {@link SessionStore.acquireWriterLease} returns: the right to be the session's only writer, held
 * until released.
 */
export interface SessionWriterLease {
  readonly sessionId: string;
  /** Who holds it, as a refused writer is told: `pid 123@host since 2026-…`. */
  readonly holder: string;
  /**
   * Gives the lease up, so another process can take it.
   *
   * Contract: idempotent; never throws (what cannot be released is left to the backend's stale rule or
   * to the end of the process or connection).
   */
  release(): Promise<void>;
}

/**
 * Persistence of sessions as append-only entry logs. A backend never rewrites or interprets the tree:
 * compaction, labels, leaf moves and branch summaries are entries like any other. Every backend passes
 * `describeSessionStore()` from `@internal/conformance`.
 */
export interface SessionStore {
  /**
   * Creates an empty session from its header.
   *
   * Contract: throws `SessionExistsError` when the id is taken. The header is stored as given
   * (unknown fields kept).
   */
  createSession(header: SessionHeader): Promise<void>;
  /**
   * Appends a batch of entries atomically: after a crash or a failure either all of them are stored
   * or none.
   *
   * Contract: throws `SessionNotFoundError` for an unknown id, `SessionConflictError` (writing
   * nothing) when `expectedLastEntryId` is given and stale, and a backend-specific error such as
   * `SessionLockedError` when another process holds the session. Entries are stored as given,
   * unknown fields kept. An empty batch is a no-op.
   */
  appendEntries(sessionId: string, entries: readonly SessionEntry[], options?: AppendOptions): Promise<void>;
  /**
   * Reads a session: its header and entries in append order.
   *
   * Contract: throws `SessionNotFoundError` for an unknown id and `SessionCorruptError` when the
   * header is unreadable; damage after the header is worked around and reported in `warnings`. Without
   * `options.deferBodies` every entry's `entry()` works synchronously; with it, see
   * {@link ReadSessionOptions.deferBodies} and {@link StoredSession.loadEntries}.
   */
  readSession(sessionId: string, options?: ReadSessionOptions): Promise<StoredSession>;
  /**
   * Lists sessions, newest activity first, a page at a time.
   *
   * Contract: never loads whole sessions; a cursor from a previous page continues after it.
   */
  listSessions(query?: ListSessionsQuery): Promise<SessionPage>;
  /**
   * Deletes a session.
   *
   * Contract: throws `SessionNotFoundError` for an unknown id.
   */
  deleteSession(sessionId: string): Promise<void>;
  /**
   * Follows a session live (optional capability): calls `onAppend` with the entries appended after the
   * watch started, whoever appended them (this instance, another instance, another process or, for a
   * networked backend, another machine).
   *
   * Contract: throws `SessionNotFoundError` for an unknown id. Resolves once following has started:
   * every entry committed after that is delivered exactly once, in append order, with nothing
   * committed before it; a batch is never split across calls. Delivery may lag the commit (a polling
   * backend documents its interval). `close()` of the watch or of the store stops it.
   */
  watch?(sessionId: string, onAppend: SessionAppendListener): Promise<SessionWatch>;
  /**
   * Takes the session's writer lease (optional capability): while it is held, a lease on the same session
   * through any other store instance, process or machine sharing the storage is refused, so a second
   * writer is turned away when it opens the session — before it calls a model or runs a tool — instead of
   * at its first save point. Readers (`readSession`, `listSessions`, `watch`) never take it and are never
   * refused by it. See docs/decisions/0015-writer-lease.md.
   *
   * Contract: throws `SessionNotFoundError` for an unknown id, and `SessionLockedError` naming the holder
   * (pid, host, since when) while another lease on the session is held — through another instance or
   * process, or an earlier lease of this instance not yet released. The lease lasts until `release()`,
   * `close()` of the store or the end of the process; a holder that ended without releasing is taken over
   * (each backend's reference says how it tells). Appends are not checked against the lease (their
   * `expectedLastEntryId` keeps them safe), though a backend may refuse them too (JSONL: its file lock).
   */
  acquireWriterLease?(sessionId: string): Promise<SessionWriterLease>;
  /** Releases resources (locks, leases, handles, connections). Optional; calling it twice is harmless. */
  close?(): Promise<void>;
}
