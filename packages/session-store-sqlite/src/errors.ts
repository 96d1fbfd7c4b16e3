/**
 * Typed errors of {@link SqliteSessionStore}, and the translation of better-sqlite3's and the file
 * system's errors into them. The errors every store shares (`SessionNotFoundError`,
 * `SessionStoreUnavailableError`, …) come from `@arbor/session-store`.
 */
import { ArborError, describeError } from "@arbor/ai-providers";
import { SessionStoreUnavailableError, type SessionStoreUnavailableReason } from "@arbor/session-store";

/** Stable machine-readable error codes of this package (besides the shared `store_unavailable`). */
export type SessionStoreSqliteErrorCode = "sqlite_not_a_database" | "schema_too_new";

/** What to do, by what happened. */
const ADVICE: Readonly<Record<SessionStoreUnavailableReason, string>> = {
  locked: "Try again when it has finished.",
  disk_full: "Free some space and try again.",
  read_only:
    "Sessions can still be listed and shown; to write, check the permissions of the file and its directory.",
  unreachable: "Check that the file's directory exists.",
  connection_lost: "Try again.",
  unusable: "Name a writable database file (sqlite:FILE), in a directory that exists or can be created.",
};

/**
 * The SQLite store cannot be used as asked (code `store_unavailable`, shared by every store): `locked`
 * (another process held a write transaction past the busy timeout: transient), `disk_full`
 * (`SQLITE_FULL`, `ENOSPC`), `read_only` (`SQLITE_READONLY`, `EACCES`, `EROFS`, or a store opened with
 * `readOnly`) and `unusable` (the file cannot be opened or created, e.g. a path through a file). The
 * message is one line naming the file.
 */
export class SqliteUnavailableError extends SessionStoreUnavailableError {
  constructor(
    readonly file: string,
    reason: SessionStoreUnavailableReason,
    detail: string,
    options?: { cause?: unknown },
  ) {
    const what =
      reason === "locked"
        ? `The SQLite session store ${file} is locked by another process (${detail}).`
        : reason === "disk_full"
          ? `Cannot write to the SQLite session store ${file}: the disk is full (${detail}).`
          : reason === "read_only"
            ? `The SQLite session store ${file} is not writable (${detail}).`
            : `Cannot open the SQLite session store ${file}: ${detail}.`;
    super({
      store: file,
      reason,
      transient: reason === "locked",
      message: `${what} ${ADVICE[reason]}`,
      cause: options?.cause,
    });
    this.name = "SqliteUnavailableError";
  }
}

/**
 * The file is not an SQLite database, or is one so damaged that SQLite cannot read it (`SQLITE_NOTADB`,
 * `SQLITE_CORRUPT`). Code `sqlite_not_a_database`; nothing is written to it.
 */
export class SqliteNotADatabaseError extends ArborError {
  constructor(
    readonly file: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      "sqlite_not_a_database",
      `${file} is not an SQLite session database (${detail}). Name another file (sqlite:FILE), or move this ` +
        "one away.",
      options,
    );
    this.name = "SqliteNotADatabaseError";
  }
}

/** better-sqlite3's error codes (extended ones too: `SQLITE_BUSY_SNAPSHOT`) by what they mean here. */
function reasonOfSqliteCode(code: string): SessionStoreUnavailableReason | "not_a_database" | undefined {
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "locked";
  if (code === "SQLITE_FULL" || code === "SQLITE_IOERR_WRITE_FULL") return "disk_full";
  if (code.startsWith("SQLITE_READONLY") || code === "SQLITE_PERM" || code === "SQLITE_AUTH")
    return "read_only";
  if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")) return "not_a_database";
  if (code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_IOERR")) return "unusable";
  return undefined;
}

/** File-system error codes by what they mean here. */
const FILE_SYSTEM_REASONS: Readonly<Record<string, SessionStoreUnavailableReason>> = {
  EACCES: "read_only",
  EPERM: "read_only",
  EROFS: "read_only",
  ENOSPC: "disk_full",
  EDQUOT: "disk_full",
  ENOTDIR: "unusable",
  EISDIR: "unusable",
  ENOTREG: "unusable",
  EEXIST: "unusable",
  ENOENT: "unusable",
  ELOOP: "unusable",
  ENAMETOOLONG: "unusable",
};

/** Where the error came from, for the message of a `locked` error. */
export interface SqliteErrorSource {
  file: string;
  /** The busy timeout of the connection (ms). */
  busyTimeoutMs: number;
}

/**
 * Turns better-sqlite3's and the file system's errors into {@link SqliteUnavailableError} or
 * {@link SqliteNotADatabaseError}; an `ArborError` and anything unknown pass through.
 *
 * Contract: never throws; the result's message is one line.
 */
export function explainSqliteError(error: unknown, context: SqliteErrorSource): unknown {
  if (ArborError.isInstance(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return error;
  const { file } = context;
  const message = describeError(error).replace(/\s+/g, " ");
  // Node's messages start with their code already ("EACCES: permission denied, open '…'").
  const detail = message.startsWith(code) ? message : `${code}: ${message}`;
  const reason = code.startsWith("SQLITE_") ? reasonOfSqliteCode(code) : FILE_SYSTEM_REASONS[code];
  if (reason === undefined) return error;
  if (reason === "not_a_database") return new SqliteNotADatabaseError(file, detail, { cause: error });
  if (reason === "locked") {
    const seconds = Math.round(context.busyTimeoutMs / 100) / 10;
    return new SqliteUnavailableError(
      file,
      "locked",
      `${code}: it held a write transaction for longer than the ${seconds} s busy timeout`,
      { cause: error },
    );
  }
  return new SqliteUnavailableError(file, reason, detail, { cause: error });
}
