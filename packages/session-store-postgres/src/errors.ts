/**
 * Typed errors of {@link PostgresSessionStore}. The errors every store shares (`SessionNotFoundError`,
 * `SessionConflictError`, …) come from `@arbor/session-store`.
 */
import { ArborError } from "@arbor/ai-providers";

/** Socket-level failures that mean the server cannot be reached. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** The PostgreSQL server cannot be reached. The message names host and port, never credentials. */
export class PostgresUnavailableError extends ArborError {
  constructor(
    readonly host: string,
    readonly port: number,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      "postgres_unavailable",
      `Cannot reach PostgreSQL at ${host}:${port} (${reason}). Check that the server is running and that ` +
        "the connection URL (e.g. DATABASE_URL) names the right host and port.",
      options,
    );
    this.name = "PostgresUnavailableError";
  }
}

/** The server refused the credentials (SQLSTATE class 28). The message names neither user nor password. */
export class PostgresAuthError extends ArborError {
  constructor(
    readonly host: string,
    readonly port: number,
    readonly sqlState: string,
    options?: { cause?: unknown },
  ) {
    super(
      "postgres_auth_failed",
      `PostgreSQL at ${host}:${port} refused the credentials (SQLSTATE ${sqlState}). Check the user and ` +
        "password of the connection URL (e.g. DATABASE_URL) or the PGUSER / PGPASSWORD variables.",
      options,
    );
    this.name = "PostgresAuthError";
  }
}

/** The database schema was written by a newer version of this package. */
export class PostgresSchemaTooNewError extends ArborError {
  constructor(
    readonly schema: string,
    readonly version: number,
    readonly supported: number,
  ) {
    super(
      "schema_too_new",
      `The PostgreSQL schema "${schema}" has version ${version}; this version of ` +
        `@arbor/session-store-postgres reads up to ${supported}. Upgrade the package.`,
    );
    this.name = "PostgresSchemaTooNewError";
  }
}

/** Where the store connects, for error messages: host and port only. */
export interface ServerAddress {
  host: string;
  port: number;
}

/**
 * Turns a connection failure into {@link PostgresUnavailableError} and refused credentials into
 * {@link PostgresAuthError} (whose cause is left out: pg's message names the user); other errors pass
 * through.
 *
 * Contract: never puts the connection string, a user name or a password in the message.
 */
export function explainConnectionError(error: unknown, address: ServerAddress): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : "";
  if (typeof code === "string" && UNREACHABLE.has(code)) {
    return new PostgresUnavailableError(address.host, address.port, code, { cause: error });
  }
  if (typeof code === "string" && code.startsWith("28")) {
    return new PostgresAuthError(address.host, address.port, code);
  }
  if (/Connection terminated|timeout expired/i.test(message)) {
    return new PostgresUnavailableError(address.host, address.port, message.toLowerCase(), { cause: error });
  }
  return error;
}
