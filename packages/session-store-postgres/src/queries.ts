/** The SQL of {@link PostgresSessionStore}, for one quoted schema name. */

/** Every statement of the store, with the schema name filled in. */
export interface StoreQueries {
  createSession: string;
  /**
   * The append in one statement (so one transaction): the compare-and-set on the session row, the
   * entry rows and the notification. Returns the first `seq` of the batch, or no row when the session
   * is missing or its last entry is not the expected one.
   */
  append: string;
  sessionState: string;
  header: string;
  entriesFrom: string;
  listAll: string;
  listCwd: string;
  deleteSession: string;
}

/** Builds the statements for `schema` (already quoted) and the notification channel. */
export function storeQueries(schema: string): StoreQueries {
  // The body of the first user message: one lookup along the (session_id, seq) primary key.
  const columns = `id, cwd, created_at, updated_at, message_count, name, parent_session,
    (SELECT e.body::text FROM ${schema}.entries e WHERE e.session_id = ${schema}.sessions.id
      AND e.type = 'message' AND e.body->'message'->>'role' = 'user' ORDER BY e.seq LIMIT 1) AS first_user`;
  const after = "($2::bigint IS NULL OR updated_ms < $2 OR (updated_ms = $2 AND id > $3))";
  return {
    createSession: `INSERT INTO ${schema}.sessions (id, header, cwd, created_at, updated_at, updated_ms, parent_session)
      VALUES ($1, $2::json, $3, $4, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
    append: `WITH claimed AS (
        UPDATE ${schema}.sessions SET
          entry_count = entry_count + $2,
          last_entry_id = $3,
          message_count = message_count + $4,
          name = CASE WHEN $5::boolean THEN $6 ELSE name END,
          updated_at = COALESCE($7, updated_at),
          updated_ms = COALESCE($8::bigint, updated_ms)
        WHERE id = $1 AND (NOT $9::boolean OR last_entry_id IS NOT DISTINCT FROM $10)
        RETURNING entry_count - $2 AS first
      ), inserted AS (
        INSERT INTO ${schema}.entries (session_id, seq, id, parent_id, type, body)
        SELECT $1, claimed.first + rows.ordinality - 1, rows.id, rows.parent_id, rows.type, rows.body::json
        FROM claimed, unnest($11::text[], $12::text[], $13::text[], $14::text[])
          WITH ORDINALITY AS rows (id, parent_id, type, body, ordinality)
        RETURNING 1
      )
      SELECT first, pg_notify($15, $1), (SELECT count(*) FROM inserted) AS rows FROM claimed`,
    sessionState: `SELECT entry_count, last_entry_id FROM ${schema}.sessions WHERE id = $1`,
    header: `SELECT header::text AS header FROM ${schema}.sessions WHERE id = $1`,
    entriesFrom: `SELECT seq, type, id, parent_id, body::text FROM ${schema}.entries
      WHERE session_id = $1 AND seq >= $2 ORDER BY seq`,
    listAll: `SELECT ${columns} FROM ${schema}.sessions WHERE $1::text IS NULL AND ${after}
      ORDER BY updated_ms DESC, id LIMIT $4`,
    listCwd: `SELECT ${columns} FROM ${schema}.sessions WHERE cwd = $1 AND ${after}
      ORDER BY updated_ms DESC, id LIMIT $4`,
    deleteSession: `DELETE FROM ${schema}.sessions WHERE id = $1`,
  };
}
