import { createRequire } from "node:module";

export type { SessionEntry, SessionHeader } from "./entries.js";
export {
  SessionConflictError,
  SessionCorruptError,
  SessionExistsError,
  SessionLockedError,
  SessionNotFoundError,
} from "./errors.js";
export type {
  AppendOptions,
  ListSessionsQuery,
  SessionPage,
  SessionStore,
  SessionSummary,
  StoredEntry,
  StoredSession,
} from "./store.js";

/** The package version (read from its package.json). */
export const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;
