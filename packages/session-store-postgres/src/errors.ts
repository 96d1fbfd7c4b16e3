/**
 * Typed errors of {@link PostgresSessionStore}. The errors every store shares (`SessionNotFoundError`,
 * `SessionConflictError`, `SessionStoreUnavailableError`, …) come from `@arbor/session-store`.
 */
import { ArborError } from "@arbor/ai-providers";
import { SessionStoreUnavailableError } from "@arbor/session-store";

/** Stable machine-readable error codes of this package (besides the shared `store_unavailable`). */
export type SessionStorePostgresErrorCode = "postgres_auth_failed" | "schema_too_new";

/** Socket-level failures that mean the server cannot be reached, and whether trying again can help. */
const UNREACHABLE: Readonly<Record<string, boolean>> = {
  ECONNREFUSED: true,
  ETIMEDOUT: true,
  EHOSTUNREACH: true,
  ENETUNREACH: true,
  EAI_AGAIN: true,
  ENOTFOUND: false,
};

/** Socket-level failures of a connection that was open. */
const LOST = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

/**
 * SQLSTATEs of a server that is going away or not accepting connections: admin shutdown (57P01, what a
 * stopped server sends), crash shutdown (57P02), cannot connect now (57P03, starting up or shutting
 * down), too many connections (53300), and class 08 (connection exceptions).
 */
function reasonOfSqlState(code: string): "unreachable" | "connection_lost" | undefined {
  if (code === "57P01" || code === "57P02") return "connection_lost";
  if (code === "57P03" || code === "53300" || code === "08001" || code === "08004") return "unreachable";
  if (code.startsWith("08")) return "connection_lost";
  return undefined;
}

/** Where the store connects, for messages: host, port and database (never a user or password). */
export interface ServerAddress {
  host: string;
  port: number;
  /** The database name, when it is known. */
  database?: string;
}

/** `host:port/database`, as messages name a server. */
export function describeServer(address: ServerAddress): string {
  const server = `${address.host}:${address.port}`;
  return address.database === undefined ? server : `${server}/${address.database}`;
}

/**
 * The PostgreSQL server cannot be reached, or a connection to it broke (code `store_unavailable`,
 * shared by every store): `unreachable` (refused, unknown host, timed out, starting up: 57P03, too many
 * connections) or `connection_lost` (reset, terminated, the server shutting down: 57P01, 57P02, class
 * 08). `transient` is false only for a host name that does not resolve. The message is one line naming
 * `host:port/database`, never credentials.
 */
export class PostgresUnavailableError extends SessionStoreUnavailableError {
  readonly host: string;
  readonly port: number;
  readonly database: string | undefined;

  constructor(
    address: ServerAddress,
    reason: "unreachable" | "connection_lost",
    detail: string,
    options?: { cause?: unknown; transient?: boolean },
  ) {
    const server = describeServer(address);
    super({
      store: server,
      reason,
      transient: options?.transient ?? true,
      message:
        reason === "unreachable"
          ? `Cannot reach PostgreSQL at ${server} (${detail}). Check that the server is running and that ` +
            "the connection URL (e.g. DATABASE_URL) names the right host and port."
          : `The connection to PostgreSQL at ${server} was lost (${detail}). Nothing more was stored; try ` +
            "again once the server is back.",
      cause: options?.cause,
    });
    this.name = "PostgresUnavailableError";
    this.host = address.host;
    this.port = address.port;
    this.database = address.database;
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

/** The first line of a server's or socket's message, shortened (they never hold credentials). */
function firstLine(message: string): string {
  const line = message.split("\n")[0]?.trim() ?? "";
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}

/**
 * Turns a failure to reach the server or a broken connection into {@link PostgresUnavailableError} and
 * refused credentials into {@link PostgresAuthError} (whose cause is left out: pg's message names the
 * user); other errors pass through.
 *
 * Contract: never throws; never puts the connection string, a user name or a password in the message.
 */
export function explainConnectionError(error: unknown, address: ServerAddress): unknown {
  if (ArborError.isInstance(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : "";
  if (typeof code === "string") {
    if (code in UNREACHABLE) {
      return new PostgresUnavailableError(address, "unreachable", code, {
        cause: error,
        transient: UNREACHABLE[code],
      });
    }
    if (LOST.has(code))
      return new PostgresUnavailableError(address, "connection_lost", code, { cause: error });
    if (code.startsWith("28")) return new PostgresAuthError(address.host, address.port, code);
    const reason = reasonOfSqlState(code);
    if (reason !== undefined) {
      return new PostgresUnavailableError(address, reason, `${code}: ${firstLine(message)}`, {
        cause: error,
      });
    }
  }
  if (/Connection terminated|not queryable|timeout expired/i.test(message)) {
    return new PostgresUnavailableError(address, "connection_lost", firstLine(message).toLowerCase(), {
      cause: error,
    });
  }
  return error;
}
