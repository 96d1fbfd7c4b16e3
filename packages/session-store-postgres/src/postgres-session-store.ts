/**
 * `PostgresSessionStore`: sessions in PostgreSQL, shared by every process and machine that connects.
 */

import { InvalidArgumentError } from "@arbor/ai-providers";
import {
  type AppendOptions,
  EAGER_BODY_TYPES,
  type ListSessionsQuery,
  type ReadSessionOptions,
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
  type StoredEntry,
  type StoredSession,
} from "@arbor/session-store";
import {
  decodeListingCursor,
  encodeEntryBatch,
  encodeListingCursor,
  entryJson,
  listingTime,
  parseStoredHeader,
} from "@arbor/session-store/backend";
import pg from "pg";
import { appendValues } from "./append-values.js";
import { DeferredJsonEntry } from "./deferred-entry.js";
import { describeServer, explainConnectionError, type ServerAddress } from "./errors.js";
import { PostgresLeases } from "./postgres-lease.js";
import { PostgresListener } from "./postgres-watch.js";
import { PREPARED_APPEND_ROWS, type StoreQueries, storeQueries } from "./queries.js";
import { migrateSchema, quoteIdentifier } from "./schema.js";

/** Options of {@link PostgresSessionStore}. */
export interface PostgresSessionStoreOptions {
  /** `postgres://user:password@host:port/database?…`; merged into `pool` (which wins on conflicts). */
  connectionString?: string;
  /** Options of the `pg.Pool` the store creates (`max`, `idleTimeoutMillis`, `ssl`, `host`, …). */
  pool?: pg.PoolConfig;
  /** The PostgreSQL schema holding the tables, created when missing; default `"arbor"`. */
  schema?: string;
  /**
   * Receives every warning (an idle connection lost, a watch reconnecting). Never holds credentials.
   *
   * Contract: must not throw.
   */
  onWarning?: (message: string) => void;
}

const DEFAULT_PAGE_SIZE = 50;

type EntryRow = [seq: number, type: string, id: string, parentId: string | null, body: string | null];

interface SessionRow {
  id: string;
  cwd: string;
  created_at: string;
  updated_at: string;
  message_count: number;
  name: string | null;
  parent_session: string | null;
  /** The text of the first user message ('' when it has none), NULL before one. */
  first_message: string | null;
}

/**
 * A {@link SessionStore} in PostgreSQL: a `sessions` row per session (the header's JSON and the
 * listing summary — first message included — kept up to date on every append) and an `entries` row per
 * entry (its JSON exactly as appended, in a `json` column, which keeps the text byte for byte).
 *
 * An append is one statement, so one transaction: an `UPDATE … WHERE last_entry_id = $expected` on
 * the session row (the row lock serializes writers on every machine; the database does the
 * compare-and-set), the entry rows with their `(session, seq)` primary key (a prepared multi-row
 * statement per batch size), and a `NOTIFY` for {@link PostgresSessionStore.watch} when the session has
 * followers. The schema is created and migrated on first use under an advisory lock. Passes
 * `describeSessionStore()`.
 */
export class PostgresSessionStore implements SessionStore {
  /** The PostgreSQL schema of the tables. */
  readonly schema: string;
  /** Where the store connects (host and port only). */
  readonly address: ServerAddress;
  private readonly pool: pg.Pool;
  private readonly config: pg.PoolConfig;
  private readonly queries: StoreQueries;
  private readonly channel: string;
  private readonly warn: (message: string) => void;
  private ready: Promise<void> | undefined;
  private listener: PostgresListener | undefined;
  private readonly leases: PostgresLeases;
  private closed = false;

  constructor(options: PostgresSessionStoreOptions = {}) {
    this.schema = options.schema ?? "arbor";
    if (this.schema === "" || this.schema.length > 40) {
      throw new InvalidArgumentError("PostgresSessionStore: schema must be a name of 1 to 40 characters.");
    }
    this.config = { connectionString: options.connectionString, ...options.pool };
    this.address = serverAddress(this.config);
    const onWarning = options.onWarning;
    this.warn = (message) => onWarning?.(message);
    this.pool = new pg.Pool(this.config);
    // An idle client's error (the server stopped or restarted between queries) must not crash the
    // process; the pool drops that client and the next query connects again.
    this.pool.on("error", (error) =>
      this.warn(
        `an idle connection to PostgreSQL at ${describeServer(this.address)} was lost ` +
          `(${error.message.split("\n")[0]}); the next operation connects again`,
      ),
    );
    const quoted = quoteIdentifier(this.schema);
    this.queries = storeQueries(quoted);
    this.channel = `arbor_append:${this.schema}`;
    this.leases = new PostgresLeases({
      config: this.config,
      schema: this.schema,
      quoted,
      address: this.address,
      warn: this.warn,
    });
  }

  /**
   * Opens a store from a `postgres://` (or `postgresql://`) URL.
   *
   * Contract: throws `InvalidArgumentError` for another scheme; connects lazily (the first operation
   * creates or migrates the schema and reports an unreachable server as `PostgresUnavailableError`).
   */
  static fromUrl(
    url: string,
    options: Omit<PostgresSessionStoreOptions, "connectionString"> = {},
  ): PostgresSessionStore {
    if (!/^postgres(ql)?:\/\//.test(url)) {
      throw new InvalidArgumentError(
        "PostgresSessionStore.fromUrl: pass a postgres://host:port/database URL.",
      );
    }
    return new PostgresSessionStore({ ...options, connectionString: url });
  }

  /**
   * Connects and creates or migrates the schema. Every operation does it first; call it to fail early.
   *
   * Contract: throws `PostgresUnavailableError` (naming host and port) when the server cannot be
   * reached and `PostgresSchemaTooNewError` for a newer schema; a failed attempt is retried next time.
   */
  async connect(): Promise<void> {
    if (this.closed) throw new InvalidArgumentError("PostgresSessionStore: the store is closed.");
    this.ready ??= (async () => {
      const client = await this.pool.connect();
      // Between its queries the client is checked out with no listener of the pool's: a connection
      // error then must not become an uncaught 'error' event (the failing query reports it).
      const ignore = () => {};
      client.on("error", ignore);
      try {
        await migrateSchema(client, this.schema);
      } finally {
        client.removeListener("error", ignore);
        client.release();
      }
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw explainConnectionError(error, this.address);
    });
    await this.ready;
  }

  /**
   * Contract: see {@link SessionStore.createSession}; throws `InvalidArgumentError` for a header that
   * is not JSON data or lacks a string `id`, `cwd` and `timestamp`.
   */
  async createSession(header: SessionHeader): Promise<void> {
    const { id, cwd, timestamp, parentSession } = (header ?? {}) as Partial<SessionHeader>;
    if (typeof id !== "string" || typeof cwd !== "string" || typeof timestamp !== "string") {
      throw new InvalidArgumentError("createSession: the header needs a string id, cwd and timestamp.");
    }
    const json = entryJson(header, "createSession: the header");
    const result = await this.query(this.queries.createSession, [
      id,
      json,
      cwd,
      timestamp,
      listingTime(timestamp),
      typeof parentSession === "string" ? parentSession : null,
    ]);
    if (result.rowCount === 0) throw new SessionExistsError(id);
  }

  /**
   * Contract: see {@link SessionStore.appendEntries}. One statement: the compare-and-set on the
   * session row, the rows and the notification (sent only while the session has followers) commit
   * together or not at all. Throws
   * `InvalidArgumentError` (storing nothing) for an entry that is not JSON data or lacks its tree fields.
   */
  async appendEntries(
    sessionId: string,
    entries: readonly SessionEntry[],
    options?: AppendOptions,
  ): Promise<void> {
    const batch = encodeEntryBatch(sessionId, entries);
    const expected = options?.expectedLastEntryId;
    if (batch.rows.length === 0) {
      const state = await this.sessionState(sessionId);
      if (expected !== undefined && expected !== state.lastEntryId) {
        throw new SessionConflictError(sessionId, expected, state.lastEntryId);
      }
      return;
    }
    const size = batch.rows.length;
    const { rows } = await this.query(
      this.queries.append(size),
      appendValues(sessionId, entries, batch, expected, this.channel),
      size <= PREPARED_APPEND_ROWS ? `arbor-append-${size}` : undefined,
    );
    if (rows.length === 1) return;
    const state = await this.sessionState(sessionId);
    throw new SessionConflictError(sessionId, expected ?? null, state.lastEntryId);
  }

  /**
   * Contract: see {@link SessionStore.readSession}. Reads the header and the tree columns and JSON text
   * of every row (two queries at once); bodies are parsed when `entry()` asks. With
   * `options.deferBodies` the text comes only for the rows of `EAGER_BODY_TYPES`, and the returned
   * `loadEntries` fetches the rest by `seq` (one query per call). The database only accepts valid JSON,
   * and a row whose text disagrees with its columns makes its `entry()` throw `SessionCorruptError`.
   */
  async readSession(sessionId: string, options?: ReadSessionOptions): Promise<StoredSession> {
    const deferred = options?.deferBodies === true;
    const [header, { rows }] = await Promise.all([
      this.query<{ header: string }>(this.queries.header, [sessionId]),
      deferred
        ? this.queryArrays(this.queries.entryTree, [sessionId, EAGER_BODY_TYPES])
        : this.queryArrays(this.queries.entriesFrom, [sessionId, 0]),
    ]);
    const text = header.rows[0]?.header;
    if (text === undefined) throw new SessionNotFoundError(sessionId);
    const parsed = parseStoredHeader(sessionId, text);
    const entries = toEntries(sessionId, rows);
    if (!deferred) return { header: parsed, entries, warnings: [] };
    return {
      header: parsed,
      entries,
      warnings: [],
      loadEntries: (wanted) => this.loadBodies(sessionId, wanted),
    };
  }

  /** Contract: see {@link SessionStore.listSessions}; one keyset query bounded on its index, nothing parsed. */
  async listSessions(query?: ListSessionsQuery): Promise<SessionPage> {
    const limit = query?.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new InvalidArgumentError(`listSessions: limit must be a positive integer, received ${limit}.`);
    }
    const after = query?.cursor === undefined ? undefined : decodeListingCursor(query.cursor);
    const cwd = query?.cwd === undefined ? [] : [query.cwd];
    const keyset = after === undefined ? [] : [listingTime(after.updatedAt), after.id];
    const { queries } = this;
    const text =
      query?.cwd === undefined
        ? after === undefined
          ? queries.listAll
          : queries.listAllAfter
        : after === undefined
          ? queries.listCwd
          : queries.listCwdAfter;
    const { rows } = await this.query<SessionRow>(text, [...cwd, ...keyset, limit + 1]);
    const sessions = rows.slice(0, limit).map(toSummary);
    const last = sessions.at(-1);
    if (rows.length <= limit || last === undefined) return { sessions };
    return { sessions, nextCursor: encodeListingCursor({ updatedAt: last.updatedAt, id: last.id }) };
  }

  /** Contract: see {@link SessionStore.deleteSession}; the entries go with the session row (cascade). */
  async deleteSession(sessionId: string): Promise<void> {
    const result = await this.query(this.queries.deleteSession, [sessionId]);
    if (result.rowCount === 0) throw new SessionNotFoundError(sessionId);
  }

  /**
   * Follows a session with `LISTEN`: every append commits a `NOTIFY` naming its session, and the
   * watch then reads the rows after the last one it delivered. One connection per store serves every
   * watch; it reconnects (and catches up) after a lost connection.
   *
   * Contract: see {@link SessionStore.watch}.
   */
  async watch(sessionId: string, onAppend: SessionAppendListener): Promise<SessionWatch> {
    await this.connect();
    this.listener ??= new PostgresListener({
      config: this.config,
      channel: this.channel,
      address: this.address,
      warn: this.warn,
      readFrom: async (id, seq) => {
        const { rows } = await this.queryArrays(this.queries.entriesFrom, [id, seq]);
        const last = rows.at(-1);
        return { entries: toEntries(id, rows), next: last === undefined ? seq : last[0] + 1 };
      },
      // Also while the store closes (after `closed` is set, before the pool ends).
      release: async (id) => {
        await this.pool.query(this.queries.watchEnd, [id]);
      },
    });
    await this.listener.start();
    // Registered before the session row counts it, so a notification that overtakes the count's answer
    // is kept for it; the count is taken under the row's lock, so every append committed after it sees
    // the follower and notifies.
    const watch = this.listener.add(sessionId, onAppend);
    let from: number | undefined;
    try {
      const state = await this.query<{ entry_count: number }>(this.queries.watchStart, [sessionId]);
      from = state.rows[0]?.entry_count;
    } finally {
      if (from === undefined) this.listener.remove(watch);
    }
    if (from === undefined) throw new SessionNotFoundError(sessionId);
    watch.begin(from);
    return watch;
  }

  /**
   * Takes the session's writer lease: a session-level `pg_advisory_lock` on a key derived from the
   * schema and the session id, held by a connection of its own (one per store, opened on the first
   * lease), and a `leases` row naming the holder (pid, host, since). The server releases the lock when
   * that connection ends, so a holder that crashed or lost its connection holds nothing; a lost
   * connection is reported to `onWarning`.
   *
   * Contract: see {@link SessionStore.acquireWriterLease}; throws `PostgresUnavailableError` when the
   * server cannot be reached.
   */
  async acquireWriterLease(sessionId: string): Promise<SessionWriterLease> {
    await this.connect();
    return this.leases.acquire(sessionId);
  }

  /** Stops every watch, releases every lease and ends the pool and the other connections. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.listener?.close();
    await this.leases.close();
    await this.pool.end();
  }

  private async sessionState(sessionId: string): Promise<{ lastEntryId: string | null }> {
    const { rows } = await this.query<{ last_entry_id: string | null }>(this.queries.sessionState, [
      sessionId,
    ]);
    const row = rows[0];
    if (row === undefined) throw new SessionNotFoundError(sessionId);
    return { lastEntryId: row.last_entry_id };
  }

  private async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values: unknown[],
    name?: string,
  ): Promise<pg.QueryResult<R>> {
    await this.connect();
    try {
      return await this.pool.query<R>(name === undefined ? { text, values } : { name, text, values });
    } catch (error) {
      throw explainConnectionError(error, this.address);
    }
  }

  private async queryArrays(text: string, values: unknown[]): Promise<{ rows: EntryRow[] }> {
    await this.connect();
    try {
      return await this.pool.query<EntryRow>({ text, values, rowMode: "array" });
    } catch (error) {
      throw explainConnectionError(error, this.address);
    }
  }

  /** The bodies of `wanted` not loaded yet (see {@link readSession}). */
  private async loadBodies(sessionId: string, wanted: readonly StoredEntry[]): Promise<void> {
    const missing = new Map<number, DeferredJsonEntry>();
    for (const entry of wanted) {
      if (entry instanceof DeferredJsonEntry && !entry.loaded) missing.set(entry.seq, entry);
    }
    if (missing.size === 0) return;
    const { rows } = await this.query<{ seq: number; body: string }>(this.queries.entryBodies, [
      sessionId,
      [...missing.keys()],
    ]);
    for (const row of rows) missing.get(row.seq)?.load(row.body);
    for (const entry of missing.values()) if (!entry.loaded) throw new SessionNotFoundError(sessionId);
  }
}

function toEntries(sessionId: string, rows: readonly EntryRow[]): DeferredJsonEntry[] {
  return rows.map(
    ([seq, type, id, parentId, body]) =>
      new DeferredJsonEntry(sessionId, seq, type, id, parentId, body ?? undefined),
  );
}

/**
 * Host, port and database the pool connects to, as `pg` resolves them (config, URL, `PG*` variables,
 * defaults). A database named by nothing (pg then uses the user's name) is left out: messages never
 * name the user.
 */
function serverAddress(config: pg.PoolConfig): ServerAddress {
  let host = config.host;
  let port = config.port === undefined ? undefined : Number(config.port);
  let database = config.database;
  if (config.connectionString !== undefined) {
    try {
      const url = new URL(config.connectionString);
      host ??= decodeURIComponent(url.hostname) || undefined;
      port ??= url.port === "" ? undefined : Number(url.port);
      database ??= decodeURIComponent(url.pathname.slice(1)) || undefined;
    } catch {
      // pg reports a URL it cannot parse itself.
    }
  }
  database ??= process.env.PGDATABASE;
  return {
    host: host ?? process.env.PGHOST ?? "localhost",
    port: port ?? (process.env.PGPORT === undefined ? 5432 : Number(process.env.PGPORT)),
    ...(database === undefined ? {} : { database }),
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
  if (row.first_message !== null && row.first_message !== "") summary.firstMessage = row.first_message;
  return summary;
}
