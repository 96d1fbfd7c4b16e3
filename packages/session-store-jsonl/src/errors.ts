/**
 * Typed errors for misuse of a {@link JsonlSessionStore}. The errors every store shares
 * (`SessionNotFoundError`, `SessionLockedError`, …) come from `@arbor/session-store`.
 */
import { ArborError } from "@arbor/ai-providers";

/** Stable machine-readable error codes of this package. */
export type SessionStoreJsonlErrorCode = "session_read_only" | "invalid_argument";

/** A write was attempted through a store opened with `{ readOnly: true }`. */
export class SessionReadOnlyError extends ArborError {
  constructor(
    readonly sessionId: string,
    operation: string,
  ) {
    super(
      "session_read_only",
      `Cannot ${operation} session "${sessionId}": this JsonlSessionStore was opened read-only.`,
    );
    this.name = "SessionReadOnlyError";
  }
}

/**
 * An argument this store cannot take: a session id that cannot name a file (empty, a path separator, a
 * NUL byte, `..`, over 200 characters), a header without a string `cwd`, an entry without a string
 * `type` and `id` and a `parentId` (string or null) or that is not JSON data, a bad listing cursor or
 * limit. Its code, `invalid_argument`, is the one `MemorySessionStore` uses for the same mistakes.
 */
export class InvalidStoreArgumentError extends ArborError {
  constructor(message: string) {
    super("invalid_argument", message);
    this.name = "InvalidStoreArgumentError";
  }
}
