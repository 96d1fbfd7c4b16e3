/** The SQL of {@link PostgresSessionStore}, for one quoted schema name. */

/** Batches up to this many rows are appended by a prepared multi-row statement of their size. */
export const PREPARED_APPEND_ROWS = 64;

/** Every statement of the store, with the schema name filled in. */
export interface StoreQueries {
  createSession: string;
  /**
   * The append of a batch of `rows` entries in one statement (so one transaction): the compare-and-set
   * on the session row (which also keeps the listing summary), the entry rows, and the notification —
   * only when the session has followers (`watchers > 0`, read under the row lock the append holds, so a
   * follower that registered before is always notified). Returns the first `seq` of the batch, or no
   * row when the session is missing or its last entry is not the expected one. Parameters: see
   * `appendValues`.
   */
  append(rows: number): string;
  sessionState: string;
  header: string;
  /** Every row from `seq` $2 on, bodies included. */
  entriesFrom: string;
  /** Every row's tree columns; the body only for the types in $2. */
  entryTree: string;
  /** The bodies of the rows whose `seq` is in $2. */
  entryBodies: string;
  /**
   * First page / later pages of all sessions or of those of one cwd: parameters `[cwd,] [cursor time,
   * cursor id,] limit`.
   */
  listAll: string;
  listAllAfter: string;
  listCwd: string;
  listCwdAfter: string;
  deleteSession: string;
  /** Registers a follower under the session row's lock; returns the entry count to deliver from. */
  watchStart: string;
  watchEnd: string;
}

/** Parameters before the rows' in {@link StoreQueries.append}. */
const FIXED_PARAMETERS = 12;

/** Builds the statements for `schema` (already quoted). */
export function storeQueries(schema: string): StoreQueries {
  const columns = "id, cwd, created_at, updated_at, message_count, name, parent_session, first_message";
  // The keyset condition as a bound on the index (updated_ms DESC, id): rows at or below the cursor's
  // time, then past its id among rows of that very time.
  const after = (at: number) => `updated_ms <= $${at} AND (updated_ms < $${at} OR id > $${at + 1})`;
  const claim = `UPDATE ${schema}.sessions SET
          entry_count = entry_count + $2,
          last_entry_id = $3,
          message_count = message_count + $4,
          name = CASE WHEN $5::boolean THEN $6 ELSE name END,
          updated_at = COALESCE($7, updated_at),
          updated_ms = COALESCE($8::bigint, updated_ms),
          first_message = COALESCE(first_message, $11)
        WHERE id = $1 AND (NOT $9::boolean OR last_entry_id IS NOT DISTINCT FROM $10)
        RETURNING entry_count - $2 AS first, watchers`;
  const notify = "SELECT first, CASE WHEN watchers > 0 THEN pg_notify($12, $1) END FROM claimed";
  const append = (rows: number): string => {
    if (rows > PREPARED_APPEND_ROWS) {
      // Large batches (imports, copies): four arrays, so the statement stays one size.
      const at = FIXED_PARAMETERS;
      return `WITH claimed AS (${claim}), inserted AS (
          INSERT INTO ${schema}.entries (session_id, seq, id, parent_id, type, body)
          SELECT $1, claimed.first + rows.ordinality - 1, rows.id, rows.parent_id, rows.type, rows.body::json
          FROM claimed, unnest($${at + 1}::text[], $${at + 2}::text[], $${at + 3}::text[], $${at + 4}::text[])
            WITH ORDINALITY AS rows (id, parent_id, type, body, ordinality)
        ) ${notify}`;
    }
    const tuples: string[] = [];
    for (let row = 0; row < rows; row++) {
      const at = FIXED_PARAMETERS + row * 4;
      tuples.push(`(${row}, $${at + 1}::text, $${at + 2}::text, $${at + 3}::text, $${at + 4}::json)`);
    }
    return `WITH claimed AS (${claim}), inserted AS (
        INSERT INTO ${schema}.entries (session_id, seq, id, parent_id, type, body)
        SELECT $1, claimed.first + rows.k, rows.id, rows.parent_id, rows.type, rows.body
        FROM claimed, (VALUES ${tuples.join(", ")}) AS rows (k, id, parent_id, type, body)
      ) ${notify}`;
  };
  return {
    createSession: `INSERT INTO ${schema}.sessions (id, header, cwd, created_at, updated_at, updated_ms, parent_session)
      VALUES ($1, $2::json, $3, $4, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
    append,
    sessionState: `SELECT entry_count, last_entry_id FROM ${schema}.sessions WHERE id = $1`,
    header: `SELECT header::text AS header FROM ${schema}.sessions WHERE id = $1`,
    entriesFrom: `SELECT seq, type, id, parent_id, body::text FROM ${schema}.entries
      WHERE session_id = $1 AND seq >= $2 ORDER BY seq`,
    entryTree: `SELECT seq, type, id, parent_id, CASE WHEN type = ANY($2::text[]) THEN body::text END
      FROM ${schema}.entries WHERE session_id = $1 ORDER BY seq`,
    entryBodies: `SELECT seq, body::text FROM ${schema}.entries WHERE session_id = $1 AND seq = ANY($2::integer[])`,
    listAll: `SELECT ${columns} FROM ${schema}.sessions ORDER BY updated_ms DESC, id LIMIT $1`,
    listAllAfter: `SELECT ${columns} FROM ${schema}.sessions WHERE ${after(1)}
      ORDER BY updated_ms DESC, id LIMIT $3`,
    listCwd: `SELECT ${columns} FROM ${schema}.sessions WHERE cwd = $1 ORDER BY updated_ms DESC, id LIMIT $2`,
    listCwdAfter: `SELECT ${columns} FROM ${schema}.sessions WHERE cwd = $1 AND ${after(2)}
      ORDER BY updated_ms DESC, id LIMIT $4`,
    deleteSession: `DELETE FROM ${schema}.sessions WHERE id = $1`,
    watchStart: `UPDATE ${schema}.sessions SET watchers = watchers + 1 WHERE id = $1 RETURNING entry_count`,
    watchEnd: `UPDATE ${schema}.sessions SET watchers = greatest(watchers - 1, 0) WHERE id = $1`,
  };
}
