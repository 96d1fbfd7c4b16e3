/**
 * @arbor/session-store/schema — the TypeBox schemas of the session format (header, every entry type,
 * messages and content blocks), `checkSchema` (compiled checks with readable issues) and
 * `sessionFormatJsonSchema()` (the JSON Schema generated from them). The entry and message types are in
 * the package root.
 */
export {
  ActiveToolsChangeEntrySchema,
  BranchSummaryEntrySchema,
  CompactionEntrySchema,
  CustomEntrySchema,
  CustomMessageEntrySchema,
  ENTRY_SCHEMAS,
  LabelEntrySchema,
  LeafEntrySchema,
  MessageEntrySchema,
  ModelChangeEntrySchema,
  PruneEntrySchema,
  SessionEntrySchema,
  SessionHeaderSchema,
  SessionInfoEntrySchema,
  ThinkingLevelChangeEntrySchema,
  UnknownSessionEntrySchema,
} from "./entries.js";
export { sessionFormatJsonSchema } from "./json-schema.js";
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
export { checkSchema, type SchemaIssue } from "./schema-issues.js";
