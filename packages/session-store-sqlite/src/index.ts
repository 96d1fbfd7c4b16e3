/**
 * @arbor/session-store-sqlite — `SqliteSessionStore`: Arbor sessions in one SQLite database file
 * (better-sqlite3, WAL), shared safely by several processes.
 */
import { createRequire } from "node:module";

export {
  type SessionStoreSqliteErrorCode,
  SqliteNotADatabaseError,
  SqliteUnavailableError,
} from "./errors.js";
export { openSqliteStore } from "./open-sqlite-store.js";
export { SQLITE_SCHEMA_VERSION, SqliteSchemaTooNewError } from "./schema.js";
export type { SqliteOpenMode } from "./sqlite-connection.js";
export { SqliteSessionStore, type SqliteSessionStoreOptions } from "./sqlite-session-store.js";

/** The package version (read from its package.json). */
export const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;
