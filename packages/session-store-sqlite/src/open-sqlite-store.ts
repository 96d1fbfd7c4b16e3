/** The one call an application makes to open a SQLite store from its settings. */
import { SqliteSessionStore, type SqliteSessionStoreOptions } from "./sqlite-session-store.js";

/**
 * Opens a {@link SqliteSessionStore} on `file` (created when missing). The same as
 * `new SqliteSessionStore(options)`; `SqliteSessionStore.fromUrl("sqlite:FILE")` takes a URL instead.
 *
 * Contract: throws `InvalidArgumentError` without a `file`, `SqliteSchemaTooNewError` for a database of
 * a newer package version, `SqliteNotADatabaseError` for a file that is not one, and
 * `SqliteUnavailableError` when it cannot be opened. Opening writes nothing; with `readOnly` nothing on
 * disk is created either.
 */
export function openSqliteStore(options: SqliteSessionStoreOptions): SqliteSessionStore {
  return new SqliteSessionStore(options);
}
