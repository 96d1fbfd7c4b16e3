/**
 * @arbor/harness — the composition root of Arbor: `createHarness()` turns a stream function, a session store,
 * tools and settings into running sessions (`HarnessSession`): the session tree and the agent kept in step,
 * hooks at every memory-management boundary, pending writes flushed at save points, compaction before every
 * model call that would not fit, overflow recovery, retries, tree navigation with branch summaries, forks, the
 * system prompt with `AGENTS.md`, skills and prompt templates, and the `recall` tool. It never imports a
 * concrete provider or store.
 */

import { createRequire } from "node:module";

export type { NavigateTreeOptions, NavigateTreeResult } from "./branch-navigation.js";
export { compactionBranch, type HarnessCompactionDetails } from "./compaction-runner.js";
export {
  CONTEXT_FILE_NAMES,
  contextFileDirectories,
  DEFAULT_MAX_CONTEXT_FILE_BYTES,
  type LoadContextFilesOptions,
  type LoadedContextFiles,
  loadContextFiles,
} from "./context-files.js";
export { type ContextUsage, contextUsageOf, estimateTranscriptTokens } from "./context-usage.js";
export {
  HarnessBusyError,
  HarnessClosedError,
  type HarnessErrorCode,
  HarnessHookError,
  HarnessListenerError,
  InvalidHarnessOptionsError,
  UnknownToolError,
  UnresolvedModelError,
} from "./errors.js";
export type { HarnessCompactionOutcome, HarnessEvent, HarnessEventType, HarnessListener } from "./events.js";
export { AgentHarness, createHarness, type NewSessionOptions } from "./harness.js";
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
export {
  type ExpandedInput,
  expandInput,
  formatSkillInvocation,
  parseSlashCommand,
  SKILL_COMMAND_PREFIX,
  type SlashCommand,
} from "./input-expansion.js";
export { convertSessionMessageToLlm, createSessionMessageConverter } from "./messages.js";
export { modelReference, resolveModelReference } from "./models.js";
export type { PendingWrite } from "./pending-writes.js";
export type { HarnessOperation, HarnessPhase } from "./phase.js";
export {
  expandPromptTemplate,
  type LoadedPromptTemplates,
  type LoadPromptTemplatesOptions,
  loadPromptTemplates,
  PROMPT_TEMPLATE_NAME_PATTERN,
  parseCommandArguments,
} from "./prompt-templates.js";
export {
  createRecallTool,
  DEFAULT_RECALL_MAX_BYTES,
  RECALL_TOOL_NAME,
  type RecallToolArguments,
  type RecallToolDetails,
  type RecallToolOptions,
  RecallToolParameters,
} from "./recall-tool.js";
export {
  type ContextFile,
  emptyHarnessResources,
  type HarnessResources,
  type LoadHarnessResourcesOptions,
  loadHarnessResources,
  type PromptTemplate,
  resolveArborHome,
  type Skill,
} from "./resources.js";
export type { HarnessSessionState, PromptOptions } from "./session-types.js";
export {
  type HarnessRetrySettings,
  type HarnessSettings,
  type ResolvedHarnessSettings,
  resolveHarnessSettings,
} from "./settings.js";

export {
  isValidSkillName,
  type LoadedSkills,
  type LoadSkillsOptions,
  loadSkills,
  MAX_SKILL_DESCRIPTION_LENGTH,
  MAX_SKILL_NAME_LENGTH,
  parseFrontmatter,
  SKILL_FILE_NAME,
} from "./skills.js";
export {
  buildSystemPrompt,
  defaultGuidelines,
  formatPromptDate,
  formatSkillList,
  formatToolList,
  ROLE_STATEMENT,
  type SystemPromptOptions,
} from "./system-prompt.js";

/** The package version (read from its package.json). */
export const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;
