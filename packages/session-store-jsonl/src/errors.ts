/**
 * Typed errors for misuse of a {@link JsonlSessionStore}. The errors every store shares
 * (`SessionNotFoundError`, `SessionLockedError`, …) come from `@arbor/session-store`.
 */
import { ArborError } from "@arbor/ai-providers";

/** Stable machine-readable error codes of this package. */
export type SessionStoreJsonlErrorCode = "session_read_only" | "invalid_argument" | "not_a_regular_file";

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

/**
 * A path where a session file (or its `.torn` sidecar) should be is not a regular file: a directory, a
 * FIFO, a socket, a device, or a symbolic link that loops or leads nowhere readable. Nothing is read from
 * it or written to it (a FIFO is never waited on).
 */
export class NotARegularFileError extends ArborError {
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(
      "not_a_regular_file",
      `${path} is ${kind}, not a regular file: a session is stored in a regular file. Move it away (or ` +
        "delete it) and try again.",
    );
    this.name = "NotARegularFileError";
  }
}
