/**
 * The database schema of {@link SqliteSessionStore}, versioned: `arbor_schema_version` holds the
 * version, and each migration moves it one step up inside one transaction.
 */

import { ArborError } from "@arbor/ai-providers";
import type Database from "better-sqlite3";

/** Migrations in order: index 0 takes an empty database to version 1. */
const MIGRATIONS: readonly string[] = [
  `
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
  `,
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
 * Brings the database to {@link SQLITE_SCHEMA_VERSION}.
 *
 * Contract: idempotent and safe when several processes open the file at once (the check and each
 * migration run in one `BEGIN IMMEDIATE` transaction); throws `SqliteSchemaTooNewError` for a newer
 * schema.
 */
export function migrateSchema(db: Database.Database, file: string): void {
  db.exec("CREATE TABLE IF NOT EXISTS arbor_schema_version (version INTEGER NOT NULL)");
  const migrate = db.transaction(() => {
    const row = db.prepare("SELECT version FROM arbor_schema_version").get() as
      | { version: number }
      | undefined;
    const version = row?.version ?? 0;
    if (version > SQLITE_SCHEMA_VERSION) throw new SqliteSchemaTooNewError(file, version);
    for (let next = version; next < SQLITE_SCHEMA_VERSION; next++) db.exec(MIGRATIONS[next] as string);
    if (row === undefined)
      db.prepare("INSERT INTO arbor_schema_version (version) VALUES (?)").run(SQLITE_SCHEMA_VERSION);
    else if (version < SQLITE_SCHEMA_VERSION)
      db.prepare("UPDATE arbor_schema_version SET version = ?").run(SQLITE_SCHEMA_VERSION);
  });
  migrate.immediate();
}
