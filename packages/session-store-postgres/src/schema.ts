/**
 * The database schema of {@link PostgresSessionStore}, created and migrated by the package: a
 * `schema_version` table holds the version, and every start takes a transaction-level advisory lock
 * before looking, so processes starting at once migrate one after the other.
 */
import { storedMessageText } from "@arbor/session-store/backend";
import type pg from "pg";
import { PostgresSchemaTooNewError } from "./errors.js";

/**
 * One migration: SQL with `$S` standing for the quoted schema name, or a function given the client and
 * that name.
 */
type Migration = string | ((client: pg.ClientBase, schema: string) => Promise<void>);

/**
 * Version 2: the listing's first message kept in the session row (the text, `''` for a first user
 * message without text, NULL before any), filled in from the entries of existing sessions; and the
 * number of live followers, which decides whether an append notifies.
 */
async function summaryColumns(client: pg.ClientBase, schema: string): Promise<void> {
  await client.query(
    `ALTER TABLE ${schema}.sessions ADD COLUMN first_message text, ADD COLUMN watchers integer NOT NULL DEFAULT 0`,
  );
  const { rows } = await client.query<{ session_id: string; body: string }>(
    `SELECT DISTINCT ON (session_id) session_id, body::text AS body FROM ${schema}.entries
      WHERE type = 'message' AND body->'message'->>'role' = 'user' ORDER BY session_id, seq`,
  );
  if (rows.length === 0) return;
  await client.query(
    `UPDATE ${schema}.sessions s SET first_message = f.text
      FROM unnest($1::text[], $2::text[]) AS f (id, text) WHERE s.id = f.id`,
    [rows.map((row) => row.session_id), rows.map((row) => storedMessageText(row.body) ?? "")],
  );
}

/** Migrations in order: index 0 takes the schema to version 1. */
const MIGRATIONS: readonly Migration[] = [
  `
  CREATE TABLE $S.sessions (
    id text COLLATE "C" PRIMARY KEY,
    header json NOT NULL,
    cwd text NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    updated_ms bigint NOT NULL,
    message_count integer NOT NULL DEFAULT 0,
    entry_count integer NOT NULL DEFAULT 0,
    last_entry_id text,
    name text,
    parent_session text
  );
  CREATE INDEX sessions_by_activity ON $S.sessions (updated_ms DESC, id);
  CREATE INDEX sessions_by_cwd ON $S.sessions (cwd, updated_ms DESC, id);
  CREATE TABLE $S.entries (
    session_id text COLLATE "C" NOT NULL REFERENCES $S.sessions (id) ON DELETE CASCADE,
    seq integer NOT NULL,
    id text NOT NULL,
    parent_id text,
    type text NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  CREATE INDEX entries_by_id ON $S.entries (session_id, id);
  CREATE INDEX entries_by_parent ON $S.entries (session_id, parent_id);
  `,
  summaryColumns,
];

/**
 * Who holds each writer lease (the lock itself is a session-level advisory lock). Not part of the
 * versioned schema: created with `IF NOT EXISTS` on every start, and ignored by versions that do not know
 * it (raising the version would make them refuse the whole schema).
 */
const LEASES_TABLE = `
  CREATE TABLE IF NOT EXISTS $S.leases (
    session_id text COLLATE "C" PRIMARY KEY,
    pid integer NOT NULL,
    host text NOT NULL,
    since text NOT NULL,
    backend_pid integer NOT NULL
  )
`;

/** The schema version this package writes. */
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

/** A quoted SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Creates or migrates the schema to {@link POSTGRES_SCHEMA_VERSION} (and the leases table) in one
 * transaction under `pg_advisory_xact_lock`.
 *
 * Contract: idempotent, safe when many processes start at once; throws `PostgresSchemaTooNewError`
 * for a newer schema (changing nothing).
 */
export async function migrateSchema(client: pg.ClientBase, schema: string): Promise<void> {
  const quoted = quoteIdentifier(schema);
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`arbor-session-store:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoted}.schema_version (version integer NOT NULL)`);
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${quoted}.schema_version`);
    const version = rows[0]?.version ?? 0;
    if (version > POSTGRES_SCHEMA_VERSION) {
      throw new PostgresSchemaTooNewError(schema, version, POSTGRES_SCHEMA_VERSION);
    }
    for (let next = version; next < POSTGRES_SCHEMA_VERSION; next++) {
      const migration = MIGRATIONS[next] as Migration;
      if (typeof migration === "string") await client.query(migration.replaceAll("$S", quoted));
      else await migration(client, quoted);
    }
    if (rows.length === 0) {
      await client.query(`INSERT INTO ${quoted}.schema_version (version) VALUES ($1)`, [
        POSTGRES_SCHEMA_VERSION,
      ]);
    } else if (version < POSTGRES_SCHEMA_VERSION) {
      await client.query(`UPDATE ${quoted}.schema_version SET version = $1`, [POSTGRES_SCHEMA_VERSION]);
    }
    await client.query(LEASES_TABLE.replaceAll("$S", quoted));
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
