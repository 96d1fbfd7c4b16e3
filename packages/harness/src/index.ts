/**
 * @arbor/harness — the composition root of Arbor: `createHarness()` turns a stream function, a session store,
 * tools and settings into running sessions (`HarnessSession`): the session tree and the agent kept in step,
 * hooks at every memory-management boundary, pending writes flushed at save points, compaction before every
 * model call that would not fit, overflow recovery, retries, tree navigation with branch summaries, forks, the
 * system prompt (built by the `systemPrompt` option) and the `recall` tool. Context files, skills, prompt
 * templates and Arbor's coding prompt live in `@arbor/harness/resources`. It never imports a concrete
 * provider or store.
 */

export { type BashExecutionInput, bashExecutionMessage } from "./bash-execution.js";
export type { MergeBranchOptions, MergeBranchResult, MergeDetails } from "./branch-merge.js";
export type { NavigateTreeOptions, NavigateTreeResult } from "./branch-navigation.js";
export { compactionBranch } from "./compaction-branch.js";
export { type ContextUsage, contextUsageOf, estimateTranscriptTokens } from "./context-usage.js";
export {
  HarnessBusyError,
  HarnessClosedError,
  type HarnessErrorCode,
  HarnessHookError,
  HarnessListenerError,
  InvalidHarnessOptionsError,
  InvalidMergeError,
  SessionUnsavedError,
  UnknownToolError,
  UnresolvedModelError,
} from "./errors.js";
export type {
  HarnessCompactionOutcome,
  HarnessEvent,
  HarnessEventType,
  HarnessListener,
  SaveReason,
} from "./events.js";
export { AgentHarness, createHarness, type NewSessionOptions, type OpenSessionOptions } from "./harness.js";
export type { HarnessOptions, SummarizerOptions } from "./harness-options.js";
export { HarnessSession } from "./harness-session.js";
export { HookRegistry, isHookName } from "./hook-registry.js";
export type {
  AfterProviderResponseEvent,
  BeforeAgentStartEvent,
  BeforeAgentStartResult,
  BeforeProviderPayloadEvent,
  BeforeProviderPayloadResult,
  BeforeProviderRequestEvent,
  BeforeProviderRequestResult,
  CompactionReason,
  ContextEvent,
  ContextResult,
  CustomCompaction,
  HarnessHookHandler,
  HarnessHookMap,
  HarnessHookName,
  HarnessHooks,
  HookContext,
  SessionBeforeCompactEvent,
  SessionBeforeCompactResult,
  SessionBeforeTreeEvent,
  SessionBeforeTreeResult,
} from "./hooks.js";
export { convertSessionMessageToLlm, createSessionMessageConverter } from "./messages.js";
export { modelReference, resolveModelReference } from "./models.js";
export type { PendingWrite } from "./pending-writes.js";
export type { HarnessOperation, HarnessPhase } from "./phase.js";
export { DEFAULT_RECALL_SEARCH_CHARS } from "./recall-index.js";
export {
  type RecallToolArguments,
  type RecallToolDetails,
  RecallToolParameters,
} from "./recall-parameters.js";
export {
  createRecallTool,
  DEFAULT_RECALL_MAX_BYTES,
  RECALL_TOOL_NAME,
  type RecallToolOptions,
} from "./recall-tool.js";
export type { SaveFailure } from "./save-failure.js";
export {
  DEFAULT_SAVE_RETRY,
  isRetryableSaveError,
  type ResolvedSaveRetry,
  resolveSaveRetry,
  type SaveRetrySettings,
  saveRetryDelay,
} from "./save-retry.js";
export type { HarnessCompactionDetails } from "./session-compaction.js";
export {
  type ContextFile,
  type ExpandedInput,
  emptyHarnessResources,
  type HarnessResourceLoader,
  type HarnessResources,
  type PromptTemplate,
  type Skill,
  type SystemPromptBuilder,
  type SystemPromptInput,
} from "./session-resources.js";
export type { HarnessSessionState, PromptOptions } from "./session-types.js";
export type { SessionUsage, UsageTotal } from "./session-usage.js";
export {
  type HarnessRetrySettings,
  type HarnessSettings,
  type ResolvedHarnessSettings,
  resolveHarnessSettings,
} from "./settings.js";
export {
  type LimitedToolOutput,
  limitToolOutput,
  readToolOutputRecord,
  TOOL_OUTPUT_ENTRY,
  TOOL_OUTPUT_HEAD_SHARE,
  type ToolOutputCut,
  type ToolOutputLimit,
  type ToolOutputRecord,
  toolOutputChars,
} from "./tool-output-budget.js";
export type { KeptEntries, UnsavedEntries, UnsavedEntriesKeeper } from "./unsaved-entries.js";
export { VERSION } from "./version.js";
