/**
 * @arbor/session-store-sqlite — `SqliteSessionStore`: Arbor sessions in one SQLite database file
 * (better-sqlite3, WAL), shared safely by several processes.
 */
export {
  type SessionStoreSqliteErrorCode,
  SqliteNotADatabaseError,
  SqliteUnavailableError,
} from "./errors.js";
export { openSqliteStore } from "./open-sqlite-store.js";
export { SQLITE_SCHEMA_VERSION, SqliteSchemaTooNewError } from "./schema.js";
export type { SqliteOpenMode } from "./sqlite-connection.js";
export { SqliteSessionStore, type SqliteSessionStoreOptions } from "./sqlite-session-store.js";
export { VERSION } from "./version.js";
