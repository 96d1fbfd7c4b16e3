/**
 * The prepared statements of {@link SqliteSessionStore}: those that read (prepared once the schema
 * exists) and those that write (prepared after the first write migrated it).
 */
import type Database from "better-sqlite3";

/** Columns of the listing: the summary, and the body of the first user message (one indexed lookup). */
const LISTING_COLUMNS = `id, cwd, created_at, updated_at, message_count, name, parent_session,
  (SELECT body FROM arbor_entries e WHERE e.session_id = arbor_sessions.id AND e.type = 'message'
    AND json_valid(e.body) AND json_extract(e.body, '$.message.role') = 'user' ORDER BY e.seq LIMIT 1) AS first_user`;

const AFTER_CURSOR =
  "(@afterMs IS NULL OR updated_ms < @afterMs OR (updated_ms = @afterMs AND id > @afterId))";

type Statement = Database.Statement;

/** The statements that only read. */
export interface ReadStatements {
  sessionState: Statement;
  header: Statement;
  /** Rows as arrays (`raw()`): no object per row. */
  entries: Statement;
  listAll: Statement;
  listCwd: Statement;
}

/** The statements that write. */
export interface WriteStatements {
  createSession: Statement;
  insertEntry: Statement;
  updateSummary: Statement;
  deleteSession: Statement;
  deleteEntries: Statement;
}

/** Prepares the statements that only read. */
export function readStatements(db: Database.Database): ReadStatements {
  return {
    sessionState: db.prepare("SELECT entry_count, last_entry_id FROM arbor_sessions WHERE id = ?"),
    header: db.prepare("SELECT header FROM arbor_sessions WHERE id = ?"),
    entries: db
      .prepare(
        `SELECT seq, type, id, parent_id, body, json_valid(body) AS valid FROM arbor_entries
       WHERE session_id = ? AND seq >= ? ORDER BY seq`,
      )
      .raw(),
    listAll: db.prepare(
      `SELECT ${LISTING_COLUMNS} FROM arbor_sessions WHERE ${AFTER_CURSOR}
       ORDER BY updated_ms DESC, id LIMIT @limit`,
    ),
    listCwd: db.prepare(
      `SELECT ${LISTING_COLUMNS} FROM arbor_sessions WHERE cwd = @cwd AND ${AFTER_CURSOR}
       ORDER BY updated_ms DESC, id LIMIT @limit`,
    ),
  };
}

/** Prepares the statements that write. */
export function writeStatements(db: Database.Database): WriteStatements {
  return {
    createSession: db.prepare(
      `INSERT INTO arbor_sessions (id, header, cwd, created_at, updated_at, updated_ms, parent_session)
       VALUES (@id, @header, @cwd, @created, @created, @updatedMs, @parent) ON CONFLICT (id) DO NOTHING`,
    ),
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
    deleteSession: db.prepare("DELETE FROM arbor_sessions WHERE id = ?"),
    deleteEntries: db.prepare("DELETE FROM arbor_entries WHERE session_id = ?"),
  };
}
