/**
 * The prepared statements of {@link SqliteSessionStore}: those that read (prepared once the schema
 * exists, for the version found: a reader keeps reading a database no writer has migrated yet) and those
 * that write (prepared after the first write migrated it).
 */
import type Database from "better-sqlite3";
import { FIRST_USER_BODY } from "./schema.js";

/** Columns of the listing: the summary (version 1: the first user message's body, one indexed lookup). */
function listingColumns(version: number): string {
  const first = version >= 2 ? "first_message" : `(${FIRST_USER_BODY}) AS first_user`;
  return `id, cwd, created_at, updated_at, message_count, name, parent_session, ${first}`;
}

/**
 * After the cursor in the listing order (`updated_ms DESC, id`), written so that `updated_ms <= @afterMs`
 * bounds the index range: a page costs the same at any depth.
 */
const AFTER_CURSOR = "updated_ms <= @afterMs AND (updated_ms < @afterMs OR id > @afterId)";

type Statement = Database.Statement;

/**
 * The entry types the tree query returns as a number (their index here): a JavaScript string made once
 * instead of one per row, so a 60k-entry session's index compares and hashes the same few strings.
 */
export const ENTRY_TYPES = [
  "message",
  "compaction",
  "branch_summary",
  "custom_message",
  "custom",
  "model_change",
  "thinking_level_change",
  "active_tools_change",
  "label",
  "session_info",
  "leaf",
  "prune",
] as const;

/** `type` as its index in {@link ENTRY_TYPES}, or as text for any other type. */
const TYPE_CODE = `CASE type ${ENTRY_TYPES.map((type, index) => `WHEN '${type}' THEN ${index}`).join(" ")} ELSE type END`;

/** The statements that only read. */
export interface ReadStatements {
  sessionState: Statement;
  header: Statement;
  /** Rows as arrays (`raw()`): no object per row; with their bodies (what a watch delivers). */
  entries: Statement;
  /** The highest `seq` of a session (`pluck()`), or null. */
  lastSeq: Statement;
  /**
   * The tree columns of the rows `seq BETWEEN ? AND ?`, in `seq` order (`raw()`): `type` (see
   * {@link ENTRY_TYPES}), `id`, `parent_id`; no body.
   */
  tree: Statement;
  /** The same with `seq` first, for a session whose rows are not numbered `0…entry_count - 1`. */
  treeWithSeq: Statement;
  /** `[seq, body]` of the rows `seq BETWEEN ? AND ?` (`raw()`). */
  bodies: Statement;
  /** `[seq, body]` of the rows whose `seq` is in a JSON array (`raw()`). */
  bodiesAt: Statement;
  /** The first page, and the pages after a cursor; each of all sessions and of one `cwd` (`raw()`). */
  listAll: Statement;
  listAllAfter: Statement;
  listCwd: Statement;
  listCwdAfter: Statement;
}

/** Rows a single INSERT of an append takes at most (a larger batch takes several). */
export const MAX_ROWS_PER_INSERT = 32;

/** The statements that write. */
export interface WriteStatements {
  /** `entry_count, last_entry_id` and whether the first user message is still to be found (`needs_first`). */
  appendState: Statement;
  createSession: Statement;
  /** Inserts `count` rows (1 to {@link MAX_ROWS_PER_INSERT}) in one statement: 6 values a row. */
  insertEntries(count: number): Statement;
  updateSummary: Statement;
  deleteSession: Statement;
  deleteEntries: Statement;
}

/** Prepares the statements that only read, for a database at schema `version` (1 or later). */
export function readStatements(db: Database.Database, version: number): ReadStatements {
  const columns = listingColumns(version);
  const list = (where: string) =>
    db
      .prepare(`SELECT ${columns} FROM arbor_sessions ${where} ORDER BY updated_ms DESC, id LIMIT @limit`)
      .raw();
  return {
    sessionState: db.prepare("SELECT entry_count, last_entry_id FROM arbor_sessions WHERE id = ?"),
    header: db.prepare("SELECT header, entry_count FROM arbor_sessions WHERE id = ?"),
    entries: db
      .prepare(
        `SELECT seq, type, id, parent_id, body, json_valid(body) AS valid FROM arbor_entries
       WHERE session_id = ? AND seq >= ? ORDER BY seq`,
      )
      .raw(),
    lastSeq: db.prepare("SELECT max(seq) FROM arbor_entries WHERE session_id = ?").pluck(),
    tree: db
      .prepare(
        `SELECT ${TYPE_CODE}, id, parent_id FROM arbor_entries WHERE session_id = ? AND seq BETWEEN ? AND ?
         ORDER BY seq`,
      )
      .raw(),
    treeWithSeq: db
      .prepare(`SELECT seq, ${TYPE_CODE}, id, parent_id FROM arbor_entries WHERE session_id = ? ORDER BY seq`)
      .raw(),
    bodies: db
      .prepare(
        "SELECT seq, body FROM arbor_entries WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
      )
      .raw(),
    bodiesAt: db
      .prepare(
        "SELECT seq, body FROM arbor_entries WHERE session_id = ? AND seq IN (SELECT value FROM json_each(?))",
      )
      .raw(),
    listAll: list(""),
    listAllAfter: list(`WHERE ${AFTER_CURSOR}`),
    listCwd: list("WHERE cwd = @cwd"),
    listCwdAfter: list(`WHERE cwd = @cwd AND ${AFTER_CURSOR}`),
  };
}

/** Prepares the statements that write (the schema is at this package's version). */
export function writeStatements(db: Database.Database): WriteStatements {
  const inserts: Statement[] = [];
  return {
    appendState: db.prepare(
      `SELECT entry_count, last_entry_id, first_message IS NULL AS needs_first FROM arbor_sessions
       WHERE id = ?`,
    ),
    createSession: db.prepare(
      `INSERT INTO arbor_sessions (id, header, cwd, created_at, updated_at, updated_ms, parent_session)
       VALUES (@id, @header, @cwd, @created, @created, @updatedMs, @parent) ON CONFLICT (id) DO NOTHING`,
    ),
    insertEntries: (count) => {
      let statement = inserts[count];
      if (statement === undefined) {
        const values = Array.from({ length: count }, () => "(?, ?, ?, ?, ?, ?)").join(", ");
        statement = db.prepare(
          `INSERT INTO arbor_entries (session_id, seq, id, parent_id, type, body) VALUES ${values}`,
        );
        inserts[count] = statement;
      }
      return statement;
    },
    updateSummary: db.prepare(
      `UPDATE arbor_sessions SET
         entry_count = entry_count + @count,
         last_entry_id = @last,
         message_count = message_count + @messages,
         name = CASE WHEN @nameChanged = 1 THEN @name ELSE name END,
         updated_at = COALESCE(@updated, updated_at),
         updated_ms = COALESCE(@updatedMs, updated_ms),
         first_message = COALESCE(first_message, @firstMessage)
       WHERE id = @id`,
    ),
    deleteSession: db.prepare("DELETE FROM arbor_sessions WHERE id = ?"),
    deleteEntries: db.prepare("DELETE FROM arbor_entries WHERE session_id = ?"),
  };
}
