/**
 * @arbor/session-store — sessions as trees of append-only entries: the entry types, the `SessionStore`
 * interface and its in-memory reference `MemorySessionStore`, `Session` (the tree view with
 * `buildContext()`), `diffBranches`, context repair and the errors. The TypeBox schemas are in
 * `@arbor/session-store/schema`; what store backends need (listing cursors, migrations, validation) in
 * `@arbor/session-store/backend`.
 */

export {
  type BranchDiff,
  type BranchDiffSide,
  type BranchDiffSideResult,
  diffBranches,
  sameJson,
} from "./branch-diff.js";
export {
  buildSessionContext,
  type ContextModel,
  type SessionContext,
  type SessionSettings,
  sessionSettings,
} from "./build-context.js";
export {
  type BashExecutionMessage,
  BRANCH_SUMMARY_PREFIX,
  BRANCH_SUMMARY_SUFFIX,
  type BranchSummaryMessage,
  bashExecutionText,
  COMPACTION_SUMMARY_PREFIX,
  COMPACTION_SUMMARY_SUFFIX,
  type CompactionSummaryMessage,
  type CustomMessage,
  convertSessionMessagesToLlm,
  type SessionCustomMessages,
  type SessionMessage,
} from "./context-messages.js";
export { type ContextRepair, repairToolPairs, type SourcedMessage } from "./context-repair.js";
export { type CopySessionsOptions, type CopySessionsResult, copySessions } from "./copy-sessions.js";
export {
  type ActiveToolsChangeEntry,
  type BranchSummaryEntry,
  type CompactionEntry,
  CURRENT_SESSION_VERSION,
  type CustomEntry,
  type CustomMessageEntry,
  isKnownEntryType,
  KNOWN_ENTRY_TYPES,
  type KnownEntryType,
  type LabelEntry,
  type LeafEntry,
  type MessageEntry,
  type ModelChangeEntry,
  type PruneEntry,
  type SessionEntry,
  type SessionHeader,
  type SessionInfoEntry,
  type ThinkingLevelChangeEntry,
  type UnknownSessionEntry,
} from "./entries.js";
export { compactionSummaryMessage, entryMessage } from "./entry-message.js";
export {
  EntryNotLoadedError,
  SessionConflictError,
  SessionCorruptError,
  SessionEntryNotFoundError,
  SessionExistsError,
  SessionLockedError,
  SessionNotFoundError,
  type SessionStoreUnavailableDetails,
  SessionStoreUnavailableError,
  type SessionStoreUnavailableReason,
  UnsupportedSessionVersionError,
} from "./errors.js";
export { generateEntryId, generateSessionId } from "./ids.js";
export {
  type MemoryEntryRecord,
  type MemorySessionRecord,
  MemorySessionStore,
} from "./memory-store.js";
export {
  isPrunedToolResult,
  type PrunedToolResultDetails,
  prunedToolResult,
  prunedToolResultText,
} from "./pruned-tool-result.js";
export { Session } from "./session.js";
export {
  countSessionNotices,
  filledFieldNotice,
  type SessionNotice,
  type SessionNoticeLevel,
  storeNotice,
  summarizeSessionNotices,
} from "./session-notices.js";
export type {
  AppendableMessage,
  BranchSummaryInput,
  CompactionInput,
  CreateSessionOptions,
  CustomMessageInput,
  ForkOptions,
  MoveResult,
  PruneInput,
  SessionOptions,
} from "./session-options.js";
export type { SessionEntryRef, SessionTreeNode } from "./session-tree.js";
export {
  type AppendOptions,
  EAGER_BODY_TYPES,
  type ListSessionsQuery,
  type ReadSessionOptions,
  type SessionAppendListener,
  type SessionPage,
  type SessionStore,
  type SessionSummary,
  type SessionWatch,
  type SessionWriterLease,
  type StoredEntry,
  type StoredSession,
} from "./store.js";
export { VERSION } from "./version.js";
