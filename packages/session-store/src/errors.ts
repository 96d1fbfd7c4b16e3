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
