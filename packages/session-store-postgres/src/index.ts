/**
 * @arbor/session-store-postgres — `PostgresSessionStore`: Arbor sessions in PostgreSQL, shared by many
 * processes and machines, with safe concurrent appends and live followers (`LISTEN`/`NOTIFY`).
 */
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
export { VERSION } from "./version.js";
