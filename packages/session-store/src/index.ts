/**
 * @arbor/session-store — sessions as trees of append-only entries: the entry schemas (TypeBox), the
 * `SessionStore` interface and its in-memory reference `MemorySessionStore`, `Session` (the tree view
 * with `buildContext()`), context repair, format migrations and the errors.
 */

import { createRequire } from "node:module";

export { ArborError, InvalidArgumentError } from "@arbor/ai-providers";
export {
  type BranchDiff,
  type BranchDiffSide,
  type BranchDiffSideResult,
  diffBranches,
  sameJson,
} from "./branch-diff.js";
export { buildSessionContext, type ContextModel, type SessionContext } from "./build-context.js";
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
export {
  type ActiveToolsChangeEntry,
  ActiveToolsChangeEntrySchema,
  type BranchSummaryEntry,
  BranchSummaryEntrySchema,
  type CompactionEntry,
  CompactionEntrySchema,
  CURRENT_SESSION_VERSION,
  type CustomEntry,
  CustomEntrySchema,
  type CustomMessageEntry,
  CustomMessageEntrySchema,
  ENTRY_SCHEMAS,
  isKnownEntryType,
  KNOWN_ENTRY_TYPES,
  type KnownEntryType,
  type LabelEntry,
  LabelEntrySchema,
  type LeafEntry,
  LeafEntrySchema,
  type MessageEntry,
  MessageEntrySchema,
  type ModelChangeEntry,
  ModelChangeEntrySchema,
  type SessionEntry,
  SessionEntrySchema,
  type SessionHeader,
  SessionHeaderSchema,
  type SessionInfoEntry,
  SessionInfoEntrySchema,
  type ThinkingLevelChangeEntry,
  ThinkingLevelChangeEntrySchema,
  type UnknownSessionEntry,
  UnknownSessionEntrySchema,
} from "./entries.js";
/** Re-exported so store backends (which may import only this package) share one error base. */
export { compactionSummaryMessage, entryMessage } from "./entry-message.js";
export {
  SessionConflictError,
  SessionCorruptError,
  SessionEntryNotFoundError,
  SessionExistsError,
  SessionLockedError,
  SessionNotFoundError,
  UnsupportedSessionVersionError,
} from "./errors.js";
export { generateEntryId, generateSessionId } from "./ids.js";
export { sessionFormatJsonSchema } from "./json-schema.js";
export {
  compareListing,
  decodeListingCursor,
  encodeListingCursor,
  type ListingCursor,
} from "./listing-order.js";
export {
  type MemoryEntryRecord,
  type MemorySessionRecord,
  MemorySessionStore,
} from "./memory-store.js";
export {
  AssistantContentBlockSchema,
  AssistantMessageSchema,
  BashExecutionMessageSchema,
  CustomMessageSchema,
  ImageContentSchema,
  KNOWN_MESSAGE_ROLES,
  OtherRoleMessageSchema,
  StopReasonSchema,
  type StoredBashExecutionMessage,
  type StoredCustomMessage,
  type StoredMessage,
  StoredMessageSchema,
  TextContentSchema,
  ThinkingContentSchema,
  ToolCallSchema,
  ToolResultMessageSchema,
  UsageCostSchema,
  UsageSchema,
  UserContentBlockSchema,
  UserMessageSchema,
} from "./message-schemas.js";
export {
  migrateSessionLines,
  needsMigration,
  type SessionMigration,
  sessionVersionOf,
} from "./migrations.js";
export { checkSchema, type SchemaIssue } from "./schema-issues.js";
export { Session } from "./session.js";
export type {
  AppendableMessage,
  BranchSummaryInput,
  CompactionInput,
  CreateSessionOptions,
  CustomMessageInput,
  ForkOptions,
  MoveResult,
  SessionOptions,
} from "./session-options.js";
export type { SessionEntryRef, SessionTreeNode } from "./session-tree.js";
export type {
  AppendOptions,
  ListSessionsQuery,
  SessionPage,
  SessionStore,
  SessionSummary,
  StoredEntry,
  StoredSession,
} from "./store.js";
export { type SessionValidationResult, validateSessionEntry, validateSessionHeader } from "./validate.js";

/** The package version (read from its package.json). */
export const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;
