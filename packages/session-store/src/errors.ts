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

/** Another process holds the session's write lock. */
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
