/**
 * Opening the database file of a {@link SqliteSessionStore} without writing to it: a reader never waits
 * for a writer and never needs write permission. A missing file is created (with its directory) only
 * when the store may write; a file that is not writable — by its mode, its directory's or the mount's —
 * is opened read-only, and a WAL database in a directory where SQLite cannot create its `-shm` file is
 * opened `immutable` (the only way SQLite reads it there).
 */
import { closeSync, constants, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";

/** How a connection was opened. */
export type SqliteOpenMode = "read-write" | "read-only" | "immutable" | "empty";

/** What {@link openConnection} opened. */
export interface SqliteConnection {
  db: Database.Database;
  /**
   * `read-write`: SQLite may still have opened the file read-only (no write permission: its first write
   * then fails with `SQLITE_READONLY`); `read-only`: opened with `readonly`; `immutable`: read-only with
   * no locking, for a directory SQLite cannot write; `empty`: a read-only store over a missing file (an
   * empty in-memory database, nothing created on disk).
   */
  mode: SqliteOpenMode;
}

let addonLoaded = false;

/**
 * `new Database()`, the first time with URI file names enabled: better-sqlite3 reads `SQLITE_USE_URI`
 * once, when its addon loads (at the first construction), and `immutable=1` is only reachable through a
 * URI. The variable is set for that call only and never changes what a plain path means.
 */
function newDatabase(path: string, options?: Database.Options): Database.Database {
  if (addonLoaded) return new Database(path, options);
  addonLoaded = true;
  const before = process.env.SQLITE_USE_URI;
  if (before === undefined) process.env.SQLITE_USE_URI = "1";
  try {
    return new Database(path, options);
  } finally {
    if (before === undefined) delete process.env.SQLITE_USE_URI;
  }
}

/** Reads something, so that SQLite opens the file now (a non-database or an unreadable WAL fails here). */
function probe(db: Database.Database): void {
  db.prepare("SELECT count(*) FROM sqlite_master").get();
}

/** SQLite could not open its `-shm` / `-wal` files next to the database (a directory it cannot write). */
function cannotOpenWalFiles(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_READONLY_DIRECTORY" || code === "SQLITE_CANTOPEN";
}

function openChecked(path: string, options?: Database.Options): Database.Database {
  const db = newDatabase(path, options);
  try {
    probe(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Opens an existing file read-only, `immutable` when its directory keeps SQLite from reading it otherwise. */
function openReadOnly(file: string): SqliteConnection {
  try {
    return { db: openChecked(file, { readonly: true, fileMustExist: true }), mode: "read-only" };
  } catch (error) {
    if (!cannotOpenWalFiles(error)) throw error;
    try {
      const uri = `${pathToFileURL(file).href}?immutable=1`;
      return { db: openChecked(uri, { readonly: true }), mode: "immutable" };
    } catch {
      throw error;
    }
  }
}

/** Refuses a directory, FIFO or device where the database file should be (SQLite would misreport it). */
function assertRegularFile(file: string): void {
  let kind: string | undefined;
  try {
    const stat = statSync(file);
    if (stat.isFile()) return;
    kind = stat.isDirectory() ? "a directory" : "not a regular file";
  } catch {
    return; // Missing (created below, or an empty store) or unreadable (SQLite says why).
  }
  const error = new Error(`${file} is ${kind}, not a database file`) as NodeJS.ErrnoException;
  error.code = kind === "a directory" ? "EISDIR" : "ENOTREG";
  throw error;
}

/**
 * Opens `file` (`":memory:"` included). With `readOnly` nothing on disk is created or written; without
 * it a missing file is created (mode 0600, its directory 0700) and an existing one that cannot be
 * written is opened read-only.
 *
 * Contract: sets no pragma and takes no write lock; throws better-sqlite3's or the file system's error
 * (translated by the caller) when the file cannot be opened or is not a database.
 */
export function openConnection(file: string, readOnly: boolean): SqliteConnection {
  if (file === ":memory:") return { db: newDatabase(file), mode: "read-write" };
  assertRegularFile(file);
  if (readOnly) {
    if (!existsSync(file)) return { db: newDatabase(":memory:"), mode: "empty" };
    return openReadOnly(file);
  }
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // A new database file is private whatever the umask (SQLite gives its -wal and -shm files the same
    // mode); an existing one keeps the mode its owner chose.
    closeSync(openSync(file, constants.O_RDWR | constants.O_CREAT, 0o600));
  }
  try {
    return { db: openChecked(file), mode: "read-write" };
  } catch (error) {
    if (!cannotOpenWalFiles(error)) throw error;
    return openReadOnly(file);
  }
}
