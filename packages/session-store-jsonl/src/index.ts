/**
 * @arbor/session-store-jsonl — `JsonlSessionStore`, Arbor's embedded default session store: one
 * append-only JSONL file per session, in the pi agent's version-3 format.
 */
export {
  InvalidStoreArgumentError,
  NotARegularFileError,
  SessionReadOnlyError,
  type SessionStoreJsonlErrorCode,
} from "./errors.js";
export {
  type JsonlOpenFileOptions,
  type JsonlSessionFile,
  JsonlSessionStore,
  type JsonlSessionStoreOptions,
} from "./jsonl-session-store.js";
export { encodeCwd } from "./layout.js";
export { VERSION } from "./version.js";
