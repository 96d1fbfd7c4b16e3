/**
 * `SqliteSessionStore`: every session of a store in one SQLite database file (better-sqlite3, WAL).
 */
import { closeSync, constants, mkdirSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ArborError, describeError, InvalidArgumentError } from "@arbor/ai-providers";
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
  type StoredSession,
} from "@arbor/session-store";
import {
  decodeListingCursor,
  encodeEntryBatch,
  encodeListingCursor,
  entryJson,
  JsonTextEntry,
  listingTime,
  parseStoredHeader,
  storedMessageText,
} from "@arbor/session-store/backend";
import Database from "better-sqlite3";
import { SqliteUnavailableError } from "./errors.js";
import { migrateSchema } from "./schema.js";
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
   * Receives every warning (a corrupt row skipped).
   *
   * Contract: must not throw.
   */
  onWarning?: (message: string) => void;
}

/** Default page size of `listSessions`. */
const DEFAULT_PAGE_SIZE = 50;

interface SessionRow {
  id: string;
  cwd: string;
  created_at: string;
  updated_at: string;
  message_count: number;
  name: string | null;
  parent_session: string | null;
  /** The body of the first user message entry, if any. */
  first_user: string | null;
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
 * An append is one `BEGIN IMMEDIATE` transaction that checks `expectedLastEntryId` against the stored
 * last entry, so several processes can share the file (`busy_timeout` makes them queue). Passes
 * `describeSessionStore()`.
 */
export class SqliteSessionStore implements SessionStore {
  /** The database file as resolved. */
  readonly file: string;
  private readonly db: Database.Database;
  private readonly warn: (message: string) => void;
  private readonly watchers = new Set<SqliteWatcher>();
  private readonly watchIntervalMs: number;
  private closed = false;
  private readonly statements: ReturnType<typeof prepare>;

  constructor(options: SqliteSessionStoreOptions) {
    if (typeof options?.file !== "string" || options.file === "") {
      throw new InvalidArgumentError('SqliteSessionStore: pass { file } (a path, or ":memory:").');
    }
    this.file = options.file === ":memory:" ? options.file : resolve(options.file);
    this.db = openDatabase(this.file);
    try {
      this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
      this.db.pragma("journal_mode = WAL");
      this.db.pragma(`synchronous = ${options.durability === "full" ? "FULL" : "NORMAL"}`);
      migrateSchema(this.db, this.file);
      this.statements = prepare(this.db);
    } catch (error) {
      this.db.close();
      if (error instanceof ArborError) throw error;
      throw new SqliteUnavailableError(this.file, describeError(error), { cause: error });
    }
    const onWarning = options.onWarning;
    this.warn = (message) => onWarning?.(message);
    this.watchIntervalMs = options.watchIntervalMs ?? 50;
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
    const { id, cwd, timestamp, parentSession } = (header ?? {}) as Partial<SessionHeader>;
    if (typeof id !== "string" || typeof cwd !== "string" || typeof timestamp !== "string") {
      throw new InvalidArgumentError("createSession: the header needs a string id, cwd and timestamp.");
    }
    const json = entryJson(header, "createSession: the header");
    const result = this.statements.createSession.run({
      id,
      header: json,
      cwd,
      created: timestamp,
      updatedMs: listingTime(timestamp),
      parent: typeof parentSession === "string" ? parentSession : null,
    });
    if (result.changes === 0) throw new SessionExistsError(id);
  }

  /**
   * Contract: see {@link SessionStore.appendEntries}. The check of `expectedLastEntryId`, the rows and
   * the summary update are one `BEGIN IMMEDIATE` transaction; throws `InvalidArgumentError` (storing
   * nothing) for an entry that is not JSON data or lacks its tree fields.
   */
  async appendEntries(
    sessionId: string,
    entries: readonly SessionEntry[],
    options?: AppendOptions,
  ): Promise<void> {
    this.assertOpen();
    const batch = encodeEntryBatch(sessionId, entries);
    const expected = options?.expectedLastEntryId;
    const { statements } = this;
    const append = this.db.transaction(() => {
      const session = statements.sessionState.get(sessionId) as
        | { entry_count: number; last_entry_id: string | null }
        | undefined;
      if (session === undefined) throw new SessionNotFoundError(sessionId);
      if (expected !== undefined && expected !== session.last_entry_id) {
        throw new SessionConflictError(sessionId, expected, session.last_entry_id);
      }
      if (batch.rows.length === 0) return;
      let seq = session.entry_count;
      for (const row of batch.rows) {
        statements.insertEntry.run(sessionId, seq, row.id, row.parentId, row.type, row.body);
        seq += 1;
      }
      statements.updateSummary.run({
        id: sessionId,
        count: batch.rows.length,
        last: batch.rows.at(-1)?.id,
        messages: batch.messages,
        nameChanged: batch.name === undefined ? 0 : 1,
        name: batch.name ?? null,
        updated: batch.updatedAt ?? null,
        updatedMs: batch.updatedAt === undefined ? null : listingTime(batch.updatedAt),
      });
    });
    append.immediate();
    if (batch.rows.length > 0) for (const watcher of this.watchers) watcher.poke(sessionId);
  }

  /**
   * Contract: see {@link SessionStore.readSession}. Reads the tree columns and JSON text of every
   * row in one query; bodies are parsed when `entry()` asks. A row whose text is not valid JSON is
   * left out and reported in `warnings` (and to `onWarning`).
   */
  async readSession(sessionId: string): Promise<StoredSession> {
    this.assertOpen();
    const read = this.db.transaction(() => {
      const session = this.statements.header.get(sessionId) as { header: string } | undefined;
      if (session === undefined) throw new SessionNotFoundError(sessionId);
      return { header: session.header, rows: this.statements.entries.all(sessionId, 0) as EntryRowRead[] };
    });
    const { header, rows } = read.deferred();
    const warnings: string[] = [];
    const parsed = parseStoredHeader(sessionId, header);
    const entries = this.toEntries(sessionId, rows, warnings);
    return { header: parsed, entries, warnings };
  }

  /** Contract: see {@link SessionStore.listSessions}; one indexed keyset query, nothing parsed. */
  async listSessions(query?: ListSessionsQuery): Promise<SessionPage> {
    this.assertOpen();
    const limit = query?.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new InvalidArgumentError(`listSessions: limit must be a positive integer, received ${limit}.`);
    }
    const after = query?.cursor === undefined ? undefined : decodeListingCursor(query.cursor);
    const params = {
      cwd: query?.cwd ?? null,
      afterMs: after === undefined ? null : listingTime(after.updatedAt),
      afterId: after?.id ?? null,
      limit: limit + 1,
    };
    const statement = query?.cwd === undefined ? this.statements.listAll : this.statements.listCwd;
    const rows = statement.all(params) as SessionRow[];
    const sessions = rows.slice(0, limit).map(toSummary);
    const last = sessions.at(-1);
    if (rows.length <= limit || last === undefined) return { sessions };
    return { sessions, nextCursor: encodeListingCursor({ updatedAt: last.updatedAt, id: last.id }) };
  }

  /** Contract: see {@link SessionStore.deleteSession}; the session and its entries go in one transaction. */
  async deleteSession(sessionId: string): Promise<void> {
    this.assertOpen();
    const remove = this.db.transaction(() => {
      if (this.statements.deleteSession.run(sessionId).changes === 0)
        throw new SessionNotFoundError(sessionId);
      this.statements.deleteEntries.run(sessionId);
    });
    remove.immediate();
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
    const state = this.statements.sessionState.get(sessionId) as { entry_count: number } | undefined;
    if (state === undefined) throw new SessionNotFoundError(sessionId);
    const watcher = new SqliteWatcher({
      sessionId,
      from: state.entry_count,
      intervalMs: this.watchIntervalMs,
      dataVersion: () => this.db.pragma("data_version", { simple: true }) as number,
      readAfter: (seq) => {
        const warnings: string[] = [];
        const rows = this.statements.entries.all(sessionId, seq) as EntryRowRead[];
        const next = rows.length === 0 ? seq : (rows.at(-1) as EntryRowRead)[0] + 1;
        return { entries: this.toEntries(sessionId, rows, warnings), next };
      },
      onAppend,
      onClose: (closed) => this.watchers.delete(closed),
    });
    this.watchers.add(watcher);
    return watcher;
  }

  /** Stops every watch and closes the database. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.watchers].map((watcher) => watcher.close()));
    this.db.close();
  }

  private toEntries(sessionId: string, rows: readonly EntryRowRead[], warnings: string[]): JsonTextEntry[] {
    const entries: JsonTextEntry[] = [];
    for (const [seq, type, id, parentId, body, valid] of rows) {
      if (valid !== 1 || type === null || id === null || body === null) {
        const warning = `row ${seq} (entry ${JSON.stringify(id)}) is not a valid entry; skipped`;
        warnings.push(warning);
        this.warn(`${sessionId}: ${warning}`);
        continue;
      }
      entries.push(new JsonTextEntry(sessionId, seq, type, id, parentId, body));
    }
    return entries;
  }

  private assertOpen(): void {
    if (this.closed) throw new InvalidArgumentError(`SqliteSessionStore: ${this.file} is closed.`);
  }
}

function prepare(db: Database.Database) {
  return {
    createSession: db.prepare(
      `INSERT INTO arbor_sessions (id, header, cwd, created_at, updated_at, updated_ms, parent_session)
       VALUES (@id, @header, @cwd, @created, @created, @updatedMs, @parent) ON CONFLICT (id) DO NOTHING`,
    ),
    sessionState: db.prepare("SELECT entry_count, last_entry_id FROM arbor_sessions WHERE id = ?"),
    insertEntry: db.prepare(
      "INSERT INTO arbor_entries (session_id, seq, id, parent_id, type, body) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    updateSummary: db.prepare(
      `UPDATE arbor_sessions SET
         entry_count = entry_count + @count,
         last_entry_id = @last,
         message_count = message_count + @messages,
         name = CASE WHEN @nameChanged = 1 THEN @name ELSE name END,
         updated_at = COALESCE(@updated, updated_at),
         updated_ms = COALESCE(@updatedMs, updated_ms)
       WHERE id = @id`,
    ),
    header: db.prepare("SELECT header FROM arbor_sessions WHERE id = ?"),
    entries: db
      .prepare(
        `SELECT seq, type, id, parent_id, body, json_valid(body) AS valid FROM arbor_entries
       WHERE session_id = ? AND seq >= ? ORDER BY seq`,
      )
      .raw(),
    listAll: db.prepare(
      `SELECT id, cwd, created_at, updated_at, message_count, name, parent_session,
       (SELECT body FROM arbor_entries e WHERE e.session_id = arbor_sessions.id AND e.type = 'message'
         AND json_valid(e.body) AND json_extract(e.body, '$.message.role') = 'user' ORDER BY e.seq LIMIT 1) AS first_user
       FROM arbor_sessions
       WHERE @afterMs IS NULL OR updated_ms < @afterMs OR (updated_ms = @afterMs AND id > @afterId)
       ORDER BY updated_ms DESC, id LIMIT @limit`,
    ),
    listCwd: db.prepare(
      `SELECT id, cwd, created_at, updated_at, message_count, name, parent_session,
       (SELECT body FROM arbor_entries e WHERE e.session_id = arbor_sessions.id AND e.type = 'message'
         AND json_valid(e.body) AND json_extract(e.body, '$.message.role') = 'user' ORDER BY e.seq LIMIT 1) AS first_user
       FROM arbor_sessions
       WHERE cwd = @cwd AND (@afterMs IS NULL OR updated_ms < @afterMs OR (updated_ms = @afterMs AND id > @afterId))
       ORDER BY updated_ms DESC, id LIMIT @limit`,
    ),
    deleteSession: db.prepare("DELETE FROM arbor_sessions WHERE id = ?"),
    deleteEntries: db.prepare("DELETE FROM arbor_entries WHERE session_id = ?"),
  };
}

function toSummary(row: SessionRow): SessionSummary {
  const summary: SessionSummary = {
    id: row.id,
    cwd: row.cwd,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    messageCount: row.message_count,
  };
  if (row.name !== null) summary.name = row.name;
  if (row.parent_session !== null) summary.parentSession = row.parent_session;
  const firstMessage = storedMessageText(row.first_user);
  if (firstMessage !== undefined) summary.firstMessage = firstMessage;
  return summary;
}

/** Creates the file's directory (0700) and the file (0600), and opens the database; failures become {@link SqliteUnavailableError}. */
function openDatabase(file: string): Database.Database {
  try {
    if (file !== ":memory:") {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      // A new database file is private whatever the umask (SQLite gives its -wal and -shm files the same
      // mode); an existing one keeps the mode its owner chose.
      closeSync(openSync(file, constants.O_RDWR | constants.O_CREAT, 0o600));
    }
    return new Database(file);
  } catch (error) {
    throw new SqliteUnavailableError(file, describeError(error), { cause: error });
  }
}
