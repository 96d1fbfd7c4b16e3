/**
 * `SqliteSessionStore`: every session of a store in one SQLite database file (better-sqlite3, WAL).
 */
import { resolve } from "node:path";
import { InvalidArgumentError } from "@arbor/ai-providers";
import {
  type AppendOptions,
  type ListSessionsQuery,
  type SessionAppendListener,
  SessionConflictError,
  type SessionEntry,
  SessionExistsError,
  type SessionHeader,
  SessionNotFoundError,
  type SessionPage,
  type SessionStore,
  type SessionSummary,
  type SessionWatch,
  type SessionWriterLease,
  type StoredSession,
} from "@arbor/session-store";
import {
  decodeListingCursor,
  type EncodedEntryBatch,
  encodeEntryBatch,
  encodeListingCursor,
  entryJson,
  JsonTextEntry,
  listingTime,
  parseStoredHeader,
  storedMessageText,
} from "@arbor/session-store/backend";
import type Database from "better-sqlite3";
import { explainSqliteError, SqliteUnavailableError } from "./errors.js";
import { migrateSchema, readSchemaVersion, SQLITE_SCHEMA_VERSION } from "./schema.js";
import { openConnection, type SqliteOpenMode } from "./sqlite-connection.js";
import { AppendQueue } from "./sqlite-group-commit.js";
import { SqliteLeases } from "./sqlite-lease.js";
import {
  MAX_ROWS_PER_INSERT,
  type ReadStatements,
  readStatements,
  type WriteStatements,
  writeStatements,
} from "./sqlite-statements.js";
import { SqliteBodySource } from "./sqlite-stored-entry.js";
import { readTree } from "./sqlite-tree-read.js";
import { SqliteWatcher } from "./sqlite-watch.js";

/** Options of {@link SqliteSessionStore}. */
export interface SqliteSessionStoreOptions {
  /** The database file (created with its directory when missing), or `":memory:"`. */
  file: string;
  /** How long a write waits for another process's transaction before failing (ms); default 5000. */
  busyTimeoutMs?: number;
  /**
   * `"normal"` (default): WAL with `synchronous=NORMAL` — a commit survives a process crash, the last
   * ones may be lost on power loss. `"full"`: `synchronous=FULL`, every commit is synced.
   */
  durability?: "normal" | "full";
  /** How often {@link SqliteSessionStore.watch} polls `PRAGMA data_version` (ms); default 50. */
  watchIntervalMs?: number;
  /**
   * Open to read only: nothing on disk is created or written (a missing file reads as an empty store),
   * and every write throws `SqliteUnavailableError` (`read_only`). Without it a store still writes
   * nothing until its first write, and a file it may not write is opened read-only.
   */
  readOnly?: boolean;
  /**
   * A writer lease whose holder has not renewed it for this long is taken over (ms); default 60000. A
   * holder on this host whose process is gone is taken over at once. Leases are renewed every sixth of it.
   */
  leaseStaleAfterMs?: number;
  /**
   * Receives every warning (a corrupt row skipped).
   *
   * Contract: must not throw.
   */
  onWarning?: (message: string) => void;
}

/** Default page size of `listSessions`. */
const DEFAULT_PAGE_SIZE = 50;

/**
 * A row of the listing (`raw()`, in the order of its columns): the last column is the first user
 * message's text ('' for none with text, null before one) at schema 2, its entry's JSON text at schema 1.
 */
type SessionRow = [
  id: string,
  cwd: string,
  createdAt: string,
  updatedAt: string,
  messageCount: number,
  name: string | null,
  parentSession: string | null,
  first: string | null,
];

/** An append waiting in the group commit queue. */
interface AppendRequest {
  sessionId: string;
  batch: EncodedEntryBatch;
  entries: readonly SessionEntry[];
  expected: string | null | undefined;
}

/** A row of the entries query, as an array (`raw()`: no object per row). */
type EntryRowRead = [
  seq: number,
  type: string | null,
  id: string | null,
  parentId: string | null,
  body: string | null,
  valid: number,
];

/**
 * A {@link SessionStore} in one SQLite file: a `arbor_sessions` row per session (its header's JSON
 * text and the listing summary, kept up to date on every append) and an `arbor_entries` row per entry
 * (its JSON text as appended, with indexed `(session, seq)`, `(session, id)` and `(session, parent)`).
 *
 * Opening reads the schema version with a plain read, so a reader never waits for a writer and never
 * writes; the first write of an instance sets WAL mode and migrates. An append is one `BEGIN IMMEDIATE`
 * transaction that checks `expectedLastEntryId` against the stored last entry, so several processes can
 * share the file (`busy_timeout` makes them queue). Writer leases are rows of `arbor_leases`. Failures of
 * the file are `SqliteUnavailableError` (`store_unavailable`: locked, disk full, not writable) or
 * `SqliteNotADatabaseError`. Passes `describeSessionStore()`.
 */
export class SqliteSessionStore implements SessionStore {
  /** The database file as resolved. */
  readonly file: string;
  /** How the file was opened (see {@link SqliteOpenMode}). */
  readonly mode: SqliteOpenMode;
  private readonly db: Database.Database;
  private readonly warn: (message: string) => void;
  private readonly watchers = new Set<SqliteWatcher>();
  private readonly watchIntervalMs: number;
  private readonly busyTimeoutMs: number;
  private readonly readOnly: boolean;
  private readonly leases: SqliteLeases;
  private closed = false;
  private reads: ReadStatements | undefined;
  /** The schema version {@link reads} were prepared for. */
  private readsVersion = 0;
  private writes: WriteStatements | undefined;
  private readonly appends = new AppendQueue<AppendRequest>((group) => this.commitAppends(group));
  /** One transaction committing a group of appends (prepared with the write statements). */
  private appendGroup: Database.Transaction<(group: readonly AppendRequest[]) => unknown[]> | undefined;

  constructor(options: SqliteSessionStoreOptions) {
    if (typeof options?.file !== "string" || options.file === "") {
      throw new InvalidArgumentError('SqliteSessionStore: pass { file } (a path, or ":memory:").');
    }
    this.file = options.file === ":memory:" ? options.file : resolve(options.file);
    this.readOnly = options.readOnly === true;
    this.busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
    let connection: ReturnType<typeof openConnection>;
    try {
      connection = openConnection(this.file, this.readOnly);
    } catch (error) {
      throw this.explain(error);
    }
    this.db = connection.db;
    this.mode = connection.mode;
    try {
      this.db.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
      this.db.pragma(`synchronous = ${options.durability === "full" ? "FULL" : "NORMAL"}`);
      this.prepareReads(readSchemaVersion(this.db, this.file));
    } catch (error) {
      this.db.close();
      throw this.explain(error);
    }
    const onWarning = options.onWarning;
    this.warn = (message) => onWarning?.(message);
    this.watchIntervalMs = options.watchIntervalMs ?? 50;
    this.leases = new SqliteLeases({
      db: this.db,
      staleAfterMs: Math.max(100, options.leaseStaleAfterMs ?? 60_000),
      busyTimeoutMs: this.busyTimeoutMs,
      warn: this.warn,
    });
  }

  /**
   * Opens a store from a `sqlite:FILE` URL (`sqlite:./sessions.db`, `sqlite:///abs/path.db`) or a plain
   * path.
   *
   * Contract: throws `InvalidArgumentError` for an empty path; `options` are the constructor's, less
   * `file`.
   */
  static fromUrl(url: string, options: Omit<SqliteSessionStoreOptions, "file"> = {}): SqliteSessionStore {
    let file = url.startsWith("sqlite:") ? url.slice("sqlite:".length) : url;
    if (file.startsWith("//")) file = file.slice(2);
    if (file === "") throw new InvalidArgumentError(`"${url}" names no database file: use sqlite:FILE.`);
    return new SqliteSessionStore({ ...options, file });
  }

  /**
   * Contract: see {@link SessionStore.createSession}; throws `InvalidArgumentError` for a header that
   * is not JSON data or lacks a string `id`, `cwd` and `timestamp`.
   */
  async createSession(header: SessionHeader): Promise<void> {
    this.assertOpen();
    this.appends.drain();
    const { id, cwd, timestamp, parentSession } = (header ?? {}) as Partial<SessionHeader>;
    if (typeof id !== "string" || typeof cwd !== "string" || typeof timestamp !== "string") {
      throw new InvalidArgumentError("createSession: the header needs a string id, cwd and timestamp.");
    }
    const json = entryJson(header, "createSession: the header");
    const result = this.guard(() =>
      this.writable("create a session").createSession.run({
        id,
        header: json,
        cwd,
        created: timestamp,
        updatedMs: listingTime(timestamp),
        parent: typeof parentSession === "string" ? parentSession : null,
      }),
    );
    if (result.changes === 0) throw new SessionExistsError(id);
  }

  /**
   * Contract: see {@link SessionStore.appendEntries}. Appends made in the same tick (and in the promise
   * reactions it sets off) commit together, in the order made, in one `BEGIN IMMEDIATE` transaction
   * (group commit); each is checked against its own `expectedLastEntryId` before anything of it is
   * written and fails alone (a failure of the database fails the group, storing none of it). Throws
   * `InvalidArgumentError` (storing nothing) for an entry that is not JSON data or lacks its tree
   * fields, and `SqliteUnavailableError` (storing nothing) when the file is locked past the busy
   * timeout, full or not writable.
   */
  async appendEntries(
    sessionId: string,
    entries: readonly SessionEntry[],
    options?: AppendOptions,
  ): Promise<void> {
    this.assertOpen();
    const batch = encodeEntryBatch(sessionId, entries);
    this.guard(() => this.writable("append"));
    return this.appends.enqueue({ sessionId, batch, entries, expected: options?.expectedLastEntryId });
  }

  /** Commits a group of appends in one transaction (see {@link AppendQueue}), then wakes the watchers. */
  private commitAppends(group: readonly AppendRequest[]): unknown[] {
    if (this.closed) return group.map(() => this.closedError());
    const outcomes = this.guard(() => {
      this.writable("append");
      return (this.appendGroup as NonNullable<typeof this.appendGroup>).immediate(group);
    });
    const appended = new Set<string>();
    for (const [index, append] of group.entries()) {
      if (outcomes[index] === undefined && append.batch.rows.length > 0) appended.add(append.sessionId);
    }
    // Committed: a watcher that breaks its contract (its listener threw) must not fail the appends.
    try {
      for (const sessionId of appended) for (const watcher of this.watchers) watcher.poke(sessionId);
    } catch (error) {
      this.warn(`a watch listener threw: ${error instanceof Error ? error.message : String(error)}`);
    }
    return outcomes;
  }

  /** The rows and summary update of one append, after checking its session and `expectedLastEntryId`. */
  private writeAppend(writes: WriteStatements, append: AppendRequest): void {
    const { sessionId, batch, expected } = append;
    const session = writes.appendState.get(sessionId) as
      | { entry_count: number; last_entry_id: string | null; needs_first: number }
      | undefined;
    if (session === undefined) throw new SessionNotFoundError(sessionId);
    if (expected !== undefined && expected !== session.last_entry_id) {
      throw new SessionConflictError(sessionId, expected, session.last_entry_id);
    }
    if (batch.rows.length === 0) return;
    for (let start = 0; start < batch.rows.length; start += MAX_ROWS_PER_INSERT) {
      const rows = batch.rows.slice(start, start + MAX_ROWS_PER_INSERT);
      const values: unknown[] = [];
      let seq = session.entry_count + start;
      for (const row of rows) values.push(sessionId, seq++, row.id, row.parentId, row.type, row.body);
      writes.insertEntries(rows.length).run(values);
    }
    writes.updateSummary.run({
      id: sessionId,
      count: batch.rows.length,
      last: batch.rows.at(-1)?.id,
      messages: batch.messages,
      nameChanged: batch.name === undefined ? 0 : 1,
      name: batch.name ?? null,
      updated: batch.updatedAt ?? null,
      updatedMs: batch.updatedAt === undefined ? null : listingTime(batch.updatedAt),
      firstMessage: session.needs_first === 1 ? firstUserText(append) : null,
    });
  }

  /**
   * Contract: see {@link SessionStore.readSession}. Reads the tree columns of every row (an index covers
   * them) and the bodies of the few entries whose effect is global (`label`, `session_info`, `leaf`);
   * every other body stays in the database until `entry()` asks for it (fetched by primary key, a growing
   * window of rows at a time for a walk). A row whose text is not valid JSON is found then:
   * `entry()` throws `SessionCorruptError` (a `Session` reports it in its notices and leaves it out). A
   * row without its tree fields is left out and reported in `warnings` (and to `onWarning`). Never waits
   * for a writer.
   */
  async readSession(sessionId: string): Promise<StoredSession> {
    this.assertOpen();
    this.appends.drain();
    const source = new SqliteBodySource(sessionId, (from, to) => {
      if (this.closed) throw this.closedError();
      const reads = this.reads as ReadStatements;
      return this.guard(() => reads.bodies.all(sessionId, from, to) as [number, string][]);
    });
    const { header, tree } = this.guard(() => {
      const reads = this.readable();
      if (reads === undefined) throw new SessionNotFoundError(sessionId);
      const read = this.db.transaction(() => {
        const session = reads.header.get(sessionId) as { header: string; entry_count: number } | undefined;
        if (session === undefined) throw new SessionNotFoundError(sessionId);
        return { header: session.header, tree: readTree(reads, sessionId, session.entry_count, source) };
      });
      return read.deferred();
    });
    const parsed = parseStoredHeader(sessionId, header);
    const warnings: string[] = [];
    for (const [seq, id] of tree.skipped) this.skipRow(sessionId, seq, id, warnings);
    const entries = tree.entries;
    return { header: parsed, entries, warnings };
  }

  /**
   * Contract: see {@link SessionStore.listSessions}; one indexed keyset query (the cursor bounds the
   * index range: a page costs the same at any depth), nothing parsed, no wait for a writer.
   */
  async listSessions(query?: ListSessionsQuery): Promise<SessionPage> {
    this.assertOpen();
    const limit = query?.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new InvalidArgumentError(`listSessions: limit must be a positive integer, received ${limit}.`);
    }
    this.appends.drain();
    const after = query?.cursor === undefined ? undefined : decodeListingCursor(query.cursor);
    const params = {
      cwd: query?.cwd ?? null,
      afterMs: after === undefined ? null : listingTime(after.updatedAt),
      afterId: after?.id ?? null,
      limit: limit + 1,
    };
    const rows = this.guard(() => {
      const reads = this.readable();
      if (reads === undefined) return [];
      const statement =
        query?.cwd === undefined
          ? after === undefined
            ? reads.listAll
            : reads.listAllAfter
          : after === undefined
            ? reads.listCwd
            : reads.listCwdAfter;
      return statement.all(params) as SessionRow[];
    });
    const textColumn = this.readsVersion >= 2;
    const sessions = rows.slice(0, limit).map((row) => toSummary(row, textColumn));
    const last = sessions.at(-1);
    if (rows.length <= limit || last === undefined) return { sessions };
    return { sessions, nextCursor: encodeListingCursor({ updatedAt: last.updatedAt, id: last.id }) };
  }

  /** Contract: see {@link SessionStore.deleteSession}; the session and its entries go in one transaction. */
  async deleteSession(sessionId: string): Promise<void> {
    this.assertOpen();
    this.appends.drain();
    this.guard(() => {
      const writes = this.writable("delete a session");
      const remove = this.db.transaction(() => {
        if (writes.deleteSession.run(sessionId).changes === 0) throw new SessionNotFoundError(sessionId);
        writes.deleteEntries.run(sessionId);
      });
      remove.immediate();
    });
  }

  /**
   * Follows a session: polls `PRAGMA data_version` every `watchIntervalMs` (it changes when another
   * connection commits) and reads the rows after the last one delivered; appends through this
   * instance are delivered without waiting for the poll.
   *
   * Contract: see {@link SessionStore.watch}.
   */
  async watch(sessionId: string, onAppend: SessionAppendListener): Promise<SessionWatch> {
    this.assertOpen();
    this.appends.drain();
    const reads = this.guard(() => this.readable());
    const state = this.guard(() => reads?.sessionState.get(sessionId)) as { entry_count: number } | undefined;
    if (reads === undefined || state === undefined) throw new SessionNotFoundError(sessionId);
    const watcher = new SqliteWatcher({
      sessionId,
      from: state.entry_count,
      intervalMs: this.watchIntervalMs,
      dataVersion: () => this.db.pragma("data_version", { simple: true }) as number,
      readAfter: (seq) => {
        const warnings: string[] = [];
        const rows = reads.entries.all(sessionId, seq) as EntryRowRead[];
        const next = rows.length === 0 ? seq : (rows.at(-1) as EntryRowRead)[0] + 1;
        return { entries: this.toEntries(sessionId, rows, warnings), next };
      },
      onAppend,
      onClose: (closed) => this.watchers.delete(closed),
    });
    this.watchers.add(watcher);
    return watcher;
  }

  /**
   * Takes the session's writer lease: a row of `arbor_leases` (pid, host, process start, since, heartbeat)
   * written in a `BEGIN IMMEDIATE` transaction and renewed every sixth of `leaseStaleAfterMs`. A row
   * whose process is gone (same host, pid not running or reused) or whose heartbeat is older than
   * `leaseStaleAfterMs` is taken over. The row is deleted on release, on `close()` and when the process
   * exits.
   *
   * Contract: see {@link SessionStore.acquireWriterLease}; throws `SqliteUnavailableError` when the file
   * cannot be written (`read_only`) or stays locked past the busy timeout (`locked`).
   */
  async acquireWriterLease(sessionId: string): Promise<SessionWriterLease> {
    this.assertOpen();
    this.appends.drain();
    return this.guard(() => {
      this.writable("take a writer lease");
      return this.leases.acquire(sessionId);
    });
  }

  /** Commits the appends queued, stops every watch, releases every lease and closes the database. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.appends.drain();
    this.closed = true;
    await Promise.all([...this.watchers].map((watcher) => watcher.close()));
    await this.leases.releaseAll();
    this.db.close();
  }

  /** The read statements, once the schema exists (another process may have created it since the open). */
  private readable(): ReadStatements | undefined {
    if (this.reads === undefined) this.prepareReads(readSchemaVersion(this.db, this.file));
    return this.reads;
  }

  /** Prepares the read statements for the schema version found (none before the schema exists). */
  private prepareReads(version: number): void {
    if (version < 1 || version === this.readsVersion) return;
    this.reads = readStatements(this.db, version);
    this.readsVersion = version;
  }

  /** The write statements, after making the database ready for writing (WAL, schema) the first time. */
  private writable(operation: string): WriteStatements {
    if (this.writes !== undefined) return this.writes;
    if (this.readOnly || this.mode !== "read-write") {
      const how = this.readOnly ? "opened read-only" : "opened read-only: SQLite cannot write next to it";
      throw new SqliteUnavailableError(this.file, "read_only", `${how}, so it cannot ${operation}`);
    }
    migrateSchema(this.db, this.file);
    this.prepareReads(SQLITE_SCHEMA_VERSION);
    const writes = writeStatements(this.db);
    // Each append is checked (session, expectedLastEntryId) before any of its rows is written, so one
    // that fails leaves nothing behind and the others commit; a database error fails the whole group.
    this.appendGroup = this.db.transaction((group: readonly AppendRequest[]): unknown[] =>
      group.map((append) => {
        try {
          this.writeAppend(writes, append);
          return undefined;
        } catch (error) {
          if (error instanceof SessionConflictError || error instanceof SessionNotFoundError) return error;
          throw error;
        }
      }),
    );
    this.writes = writes;
    return writes;
  }

  /** Runs a database operation, translating its failures (locked, full, not writable, not a database). */
  private guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw this.explain(error);
    }
  }

  private explain(error: unknown): unknown {
    return explainSqliteError(error, { file: this.file, busyTimeoutMs: this.busyTimeoutMs });
  }

  /** Reports a row left out of a read. */
  private skipRow(sessionId: string, seq: number, id: string | null, warnings: string[]): void {
    const warning = `row ${seq} (entry ${JSON.stringify(id)}) is not a valid entry; skipped`;
    warnings.push(warning);
    this.warn(`${sessionId}: ${warning}`);
  }

  private toEntries(sessionId: string, rows: readonly EntryRowRead[], warnings: string[]): JsonTextEntry[] {
    const entries: JsonTextEntry[] = [];
    for (const [seq, type, id, parentId, body, valid] of rows) {
      if (valid !== 1 || type === null || id === null || body === null) {
        this.skipRow(sessionId, seq, id, warnings);
        continue;
      }
      entries.push(new JsonTextEntry(sessionId, seq, type, id, parentId, body));
    }
    return entries;
  }

  private assertOpen(): void {
    if (this.closed) throw this.closedError();
  }

  private closedError(): InvalidArgumentError {
    return new InvalidArgumentError(`SqliteSessionStore: ${this.file} is closed.`);
  }
}

/** The text of the batch's first user message ('' when it has none), or null when it has no user message. */
function firstUserText(append: AppendRequest): string | null {
  for (const [index, entry] of append.entries.entries()) {
    const { type, message } = entry as { type?: unknown; message?: { role?: unknown } };
    if (type === "message" && message?.role === "user") {
      return storedMessageText(append.batch.rows[index]?.body) ?? "";
    }
  }
  return null;
}

/** @param textColumn - the last column is the first message's text (schema 2), not its entry's JSON. */
function toSummary(row: SessionRow, textColumn: boolean): SessionSummary {
  const [id, cwd, createdAt, updatedAt, messageCount, name, parentSession, first] = row;
  const summary: SessionSummary = { id, cwd, createdAt, updatedAt, messageCount };
  if (name !== null) summary.name = name;
  if (parentSession !== null) summary.parentSession = parentSession;
  const firstMessage = textColumn ? first || undefined : storedMessageText(first);
  if (firstMessage !== undefined) summary.firstMessage = firstMessage;
  return summary;
}
