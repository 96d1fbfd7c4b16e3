/**
 * @arbor/session-store-postgres — `PostgresSessionStore`: Arbor sessions in PostgreSQL, shared by many
 * processes and machines, with safe concurrent appends and live followers (`LISTEN`/`NOTIFY`).
 */
import { createRequire } from "node:module";

export {
  describeServer,
  PostgresAuthError,
  PostgresSchemaTooNewError,
  PostgresUnavailableError,
  type ServerAddress,
  type SessionStorePostgresErrorCode,
} from "./errors.js";
export { PostgresSessionStore, type PostgresSessionStoreOptions } from "./postgres-session-store.js";
export { POSTGRES_SCHEMA_VERSION } from "./schema.js";

/** The package version (read from its package.json). */
export const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;
