import { ArborError } from "@arbor/ai-providers";

/** No session with this id exists in the store. */
export class SessionNotFoundError extends ArborError {
  constructor(readonly sessionId: string) {
    super("session_not_found", `Session "${sessionId}" does not exist.`);
    this.name = "SessionNotFoundError";
  }
}

/** A session with this id already exists. */
export class SessionExistsError extends ArborError {
  constructor(readonly sessionId: string) {
    super("session_exists", `Session "${sessionId}" already exists.`);
    this.name = "SessionExistsError";
  }
}

/** Another writer appended since the caller last read: its `expectedLastEntryId` is stale. */
export class SessionConflictError extends ArborError {
  constructor(
    readonly sessionId: string,
    readonly expectedLastEntryId: string | null,
    readonly actualLastEntryId: string | null,
  ) {
    super(
      "session_conflict",
      `Session "${sessionId}" changed underneath: expected last entry ${JSON.stringify(expectedLastEntryId)}, ` +
        `found ${JSON.stringify(actualLastEntryId)}. Another writer appended; reopen the session and retry.`,
    );
    this.name = "SessionConflictError";
  }
}

/** The stored data cannot be read as a session (e.g. an unreadable header). */
export class SessionCorruptError extends ArborError {
  constructor(
    readonly sessionId: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super("session_corrupt", `Session "${sessionId}" is corrupt: ${detail}`, options);
    this.name = "SessionCorruptError";
  }
}

/**
 * Another process (or another store instance) holds the session's write lock or writer lease. `holder`
 * says who, as `pid 123@host since 2026-…` when the backend knows.
 */
export class SessionLockedError extends ArborError {
  constructor(
    readonly sessionId: string,
    readonly holder: string,
  ) {
    super(
      "session_locked",
      `Session "${sessionId}" is open for writing by ${holder}. Close it there, or open this one read-only.`,
    );
    this.name = "SessionLockedError";
  }
}

const UNAVAILABLE = Symbol.for("arbor.session-store.unavailable");

/**
 * What made a store unavailable: `locked` (another process holds the database's write lock past the
 * busy timeout), `disk_full`, `read_only` (the file, its directory or the mount is not writable, or the
 * store was opened read-only), `unreachable` (the server refuses connections, cannot be found, or is
 * starting up), `connection_lost` (a connection broke: reset, terminated, the server shutting down), and
 * `unusable` (anything else that keeps the store from opening, e.g. a path through a file).
 */
export type SessionStoreUnavailableReason =
  | "locked"
  | "disk_full"
  | "read_only"
  | "unreachable"
  | "connection_lost"
  | "unusable";

/** What {@link SessionStoreUnavailableError} is made of. */
export interface SessionStoreUnavailableDetails {
  /** Where the store is, safe to print: a database file, or `host:port/database` (never credentials). */
  store: string;
  reason: SessionStoreUnavailableReason;
  /** True when the same operation may succeed if tried again soon, with nothing changed by the user. */
  transient: boolean;
  /** One line for the user: what happened, naming the store, and what to do. */
  message: string;
  cause?: unknown;
}

/**
 * The store's medium failed — it is locked, full, not writable, unreachable or shutting down — so the
 * operation did nothing. Code `store_unavailable` for every backend; `reason` says what happened and
 * `transient` whether retrying soon can help (a save point retries a transient failure, and never a
 * `SessionConflictError`). Backends throw subclasses (`SqliteUnavailableError`,
 * `PostgresUnavailableError`); {@link SessionStoreUnavailableError.isInstance} recognizes them all, across
 * duplicate installs.
 */
export class SessionStoreUnavailableError extends ArborError {
  readonly store: string;
  readonly reason: SessionStoreUnavailableReason;
  readonly transient: boolean;
  readonly [UNAVAILABLE] = true;

  constructor(details: SessionStoreUnavailableDetails) {
    super(
      "store_unavailable",
      details.message,
      details.cause === undefined ? undefined : { cause: details.cause },
    );
    this.name = "SessionStoreUnavailableError";
    this.store = details.store;
    this.reason = details.reason;
    this.transient = details.transient;
  }

  /** True for this error and its subclasses, whichever copy of the package created it. */
  static override isInstance(error: unknown): error is SessionStoreUnavailableError {
    return (
      typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[UNAVAILABLE] === true
    );
  }
}

/** A session operation named an entry id the session does not hold. */
export class SessionEntryNotFoundError extends ArborError {
  constructor(
    readonly sessionId: string,
    readonly entryId: string,
  ) {
    super("entry_not_found", `Session "${sessionId}" has no entry "${entryId}".`);
    this.name = "SessionEntryNotFoundError";
  }
}

/**
 * A session's format version cannot be opened as is: version 1 and 2 sessions must be migrated first
 * (`migrateSessionLines()`; the JSONL store does it on open).
 */
export class UnsupportedSessionVersionError extends ArborError {
  constructor(
    readonly sessionId: string,
    readonly version: unknown,
  ) {
    super(
      "unsupported_session_version",
      `Session "${sessionId}" has format version ${JSON.stringify(version)}; this version of Arbor opens version 3. ` +
        "Migrate it first with migrateSessionLines() (the JSONL store migrates older files when it opens them).",
    );
    this.name = "UnsupportedSessionVersionError";
  }
}

/**
 * An entry's body was asked for before it was loaded: the session was opened with `bodies: "context"`
 * (`Session.open`), which reads the tree and only the bodies its context needs, from a store that can
 * leave bodies out (`readSession` with `deferBodies`). Load them first with `await session.loadEntries()`
 * (every entry, or the ids named), or open the session with the default `bodies: "all"`.
 */
export class EntryNotLoadedError extends ArborError {
  constructor(
    readonly sessionId: string,
    readonly entryId: string,
  ) {
    super(
      "entry_not_loaded",
      `Entry "${entryId}" of session "${sessionId}" was opened without its body (Session.open with ` +
        `bodies: "context"); call await session.loadEntries() before reading it.`,
    );
    this.name = "EntryNotLoadedError";
  }
}
