/**
 * The database schema of {@link SqliteSessionStore}, versioned: `arbor_schema_version` holds the
 * version, and each migration moves it one step up inside one transaction. Readers only read the
 * version (and read every version up to this package's); the first write of a store migrates.
 */

import { ArborError } from "@arbor/ai-providers";
import { storedMessageText } from "@arbor/session-store/backend";
import type Database from "better-sqlite3";

/**
 * The JSON text of a session's first user message, for `arbor_sessions.id` (one indexed lookup): what
 * schema version 1 lists, and what the migration to version 2 stores.
 */
export const FIRST_USER_BODY = `SELECT body FROM arbor_entries e WHERE e.session_id = arbor_sessions.id
  AND e.type = 'message' AND json_valid(e.body) AND json_extract(e.body, '$.message.role') = 'user'
  ORDER BY e.seq LIMIT 1`;

/** One step of the schema: takes the database from the previous version to the next, in one transaction. */
type Migration = (db: Database.Database) => void;

/**
 * Migrations in order: index 0 takes an empty database to version 1, index 1 takes version 1 to 2 (the
 * listing's first message stored in the session row, filled in for the sessions already there; the
 * entries copied into a rowid table with an index covering their tree columns).
 */
const MIGRATIONS: readonly Migration[] = [
  (db) =>
    db.exec(`
  CREATE TABLE arbor_sessions (
    id TEXT PRIMARY KEY,
    header TEXT NOT NULL,
    cwd TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    updated_ms INTEGER NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0,
    entry_count INTEGER NOT NULL DEFAULT 0,
    last_entry_id TEXT,
    name TEXT,
    parent_session TEXT
  );
  CREATE INDEX arbor_sessions_by_activity ON arbor_sessions (updated_ms DESC, id);
  CREATE INDEX arbor_sessions_by_cwd ON arbor_sessions (cwd, updated_ms DESC, id);
  CREATE TABLE arbor_entries (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    id TEXT NOT NULL,
    parent_id TEXT,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  ) WITHOUT ROWID;
  CREATE INDEX arbor_entries_by_id ON arbor_entries (session_id, id);
  CREATE INDEX arbor_entries_by_parent ON arbor_entries (session_id, parent_id);
  `),
  (db) => {
    // `first_message`: the text of the first user message ('' when it has none), NULL before one.
    // Entries move to a rowid table: a 2 KB body fits its page (no overflow page each), rows are
    // appended at the table's end, and the tree index covers what opening a session reads of every row.
    db.exec(`
      ALTER TABLE arbor_sessions ADD COLUMN first_message TEXT;
      CREATE TABLE arbor_entries_2 (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL,
        parent_id TEXT,
        type TEXT NOT NULL,
        body TEXT NOT NULL
      );
      INSERT INTO arbor_entries_2 (session_id, seq, id, parent_id, type, body)
        SELECT session_id, seq, id, parent_id, type, body FROM arbor_entries ORDER BY session_id, seq;
      DROP TABLE arbor_entries;
      ALTER TABLE arbor_entries_2 RENAME TO arbor_entries;
      CREATE UNIQUE INDEX arbor_entries_by_seq ON arbor_entries (session_id, seq);
      CREATE INDEX arbor_entries_by_id ON arbor_entries (session_id, id);
      CREATE INDEX arbor_entries_by_parent ON arbor_entries (session_id, parent_id);
      CREATE INDEX arbor_entries_tree ON arbor_entries (session_id, seq, type, id, parent_id);
    `);
    const firstUser = db.prepare(`SELECT id, (${FIRST_USER_BODY}) FROM arbor_sessions`).raw().all() as [
      string,
      string | null,
    ][];
    const fill = db.prepare("UPDATE arbor_sessions SET first_message = ? WHERE id = ?");
    for (const [id, body] of firstUser) {
      if (body !== null) fill.run(storedMessageText(body) ?? "", id);
    }
  },
];

/** The schema version this package writes. */
export const SQLITE_SCHEMA_VERSION = MIGRATIONS.length;

/** The database was written by a newer version of this package. */
export class SqliteSchemaTooNewError extends ArborError {
  constructor(
    readonly file: string,
    readonly version: number,
  ) {
    super(
      "schema_too_new",
      `The session database ${file} has schema version ${version}; this version of ` +
        `@arbor/session-store-sqlite reads up to ${SQLITE_SCHEMA_VERSION}. Upgrade the package.`,
    );
    this.name = "SqliteSchemaTooNewError";
  }
}

/**
 * The writer leases of {@link SqliteSessionStore.acquireWriterLease}: one row per leased session. Not
 * part of the versioned schema: it is created with `IF NOT EXISTS` by every writer, and a version that
 * does not know it ignores it (raising the version would make those versions refuse the whole file).
 */
const LEASES_TABLE = `
  CREATE TABLE IF NOT EXISTS arbor_leases (
    session_id TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    process_start TEXT,
    since TEXT NOT NULL,
    heartbeat_ms INTEGER NOT NULL
  ) WITHOUT ROWID;
`;

/**
 * The schema version of the database, read with plain reads (no transaction, no write lock: in WAL mode
 * it never waits for a writer); 0 when it has no Arbor tables yet.
 *
 * Contract: throws `SqliteSchemaTooNewError` for a newer schema.
 */
export function readSchemaVersion(db: Database.Database, file: string): number {
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'arbor_schema_version'")
    .get();
  if (table === undefined) return 0;
  const row = db.prepare("SELECT version FROM arbor_schema_version").get() as { version: number } | undefined;
  const version = row?.version ?? 0;
  if (version > SQLITE_SCHEMA_VERSION) throw new SqliteSchemaTooNewError(file, version);
  return version;
}

/**
 * Makes the database ready for writing: WAL mode, the schema at {@link SQLITE_SCHEMA_VERSION} and the
 * leases table. Only a store that writes calls it (at its first write), so opening to read never writes.
 *
 * Contract: idempotent and safe when several processes do it at once (the check and each migration run
 * in one `BEGIN IMMEDIATE` transaction); throws `SqliteSchemaTooNewError` for a newer schema.
 */
export function migrateSchema(db: Database.Database, file: string): void {
  if (db.pragma("journal_mode", { simple: true }) !== "wal") db.pragma("journal_mode = WAL");
  const migrate = db.transaction(() => {
    db.exec("CREATE TABLE IF NOT EXISTS arbor_schema_version (version INTEGER NOT NULL)");
    const row = db.prepare("SELECT version FROM arbor_schema_version").get() as
      | { version: number }
      | undefined;
    const version = row?.version ?? 0;
    if (version > SQLITE_SCHEMA_VERSION) throw new SqliteSchemaTooNewError(file, version);
    for (let next = version; next < SQLITE_SCHEMA_VERSION; next++) (MIGRATIONS[next] as Migration)(db);
    if (row === undefined)
      db.prepare("INSERT INTO arbor_schema_version (version) VALUES (?)").run(SQLITE_SCHEMA_VERSION);
    else if (version < SQLITE_SCHEMA_VERSION)
      db.prepare("UPDATE arbor_schema_version SET version = ?").run(SQLITE_SCHEMA_VERSION);
    db.exec(LEASES_TABLE);
  });
  migrate.immediate();
}
