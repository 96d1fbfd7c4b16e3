/**
 * @arbor/app-runtime — what every Arbor front end needs to turn flags, files and the environment into
 * running sessions: {@link createAppRuntime} (provider and store choice, `settings.json`, `models.json`,
 * session references), the RPC protocol that print/json/rpc modes and a web server share, and what a front
 * end's input does: the slash-command registry (`/name args` run against the session and the app runtime,
 * answered with notices and pickers the front end draws), the input controller and the editor's text
 * buffer. Concrete providers and stores are passed in by the app as factories; nothing here imports a
 * terminal library.
 */

export type {
  AppRuntime,
  ExportFormat,
  ListSessionsOptions,
  SessionExporter,
  SessionExporters,
} from "./app-runtime.js";
export {
  type ControllerOptions,
  type ControllerUi,
  InteractiveController,
  type MentionSupport,
  type SubmitKind,
} from "./commands/controller.js";
export {
  browseHistory,
  createEditorBuffer,
  cursorPosition,
  deleteBackward,
  deleteForward,
  deleteToLineEnd,
  deleteToLineStart,
  deleteWordBackward,
  type EditorBuffer,
  expandPastes,
  HISTORY_LIMIT,
  insertText,
  moveCursor,
  moveLine,
  moveToLineEnd,
  moveToLineStart,
  PASTE_COLLAPSE_CHARS,
  PASTE_COLLAPSE_LINES,
  replaceText,
  submitted,
} from "./commands/editor-buffer.js";
export {
  type AttachedPrompt,
  completeMention,
  createFileMentions,
  type FileMentions,
  fileMentions,
} from "./commands/file-mentions.js";
export { runUserShellCommand } from "./commands/shell-command.js";
export {
  type CommandExtensionInfo,
  type CommandExtensions,
  type CommandHost,
  type CommandRuntime,
  CommandUsageError,
  type Picker,
  type PickerItem,
  type SlashCommandSpec,
} from "./commands/slash/command-types.js";
export { contextCommand, costCommand, hotkeysCommand, KEY_HELP } from "./commands/slash/info-commands.js";
export {
  compactCommand,
  modelCommand,
  thinkingCommand,
  toolsCommand,
} from "./commands/slash/model-commands.js";
export {
  exportArguments,
  exportCommand,
  forkCommand,
  labelCommand,
  nameCommand,
  newCommand,
  resumeCommand,
  sessionCommand,
  treeCommand,
} from "./commands/slash/session-commands.js";
export {
  commandMenu,
  commandNames,
  completeCommand,
  parseCommandLine,
  runSlashCommand,
  SLASH_COMMANDS,
  suggestCommands,
} from "./commands/slash/slash-commands.js";
export { readJsonFile, validateConfig } from "./config-file.js";
export { type AppRuntimeOptions, createAppRuntime } from "./create-app-runtime.js";
export { ArborUserError, type ArborUserErrorCode } from "./errors.js";
export type {
  CustomProjector,
  DeliverAs,
  ExtensionApi,
  ExtensionCommand,
  ExtensionCommandInfo,
  ExtensionContext,
  ExtensionEventHandler,
  ExtensionEventName,
  ExtensionEventOf,
  ExtensionFactory,
  ExtensionLifecycleEvents,
  ExtensionNotice,
  ExtensionNoticeLevel,
} from "./extensions/extension-api.js";
export {
  type ExtensionBinding,
  type ExtensionFailure,
  ExtensionHost,
  type ExtensionHostOptions,
  type LoadedExtension,
} from "./extensions/extension-host.js";
export {
  type CompiledExtension,
  compileExtension,
  discoverExtensions,
  type ExtensionOrigin,
  type ExtensionSource,
  evaluateExtension,
  importExtension,
} from "./extensions/extension-loader.js";
export {
  DEFAULT_EXTENSION_TIMEOUTS,
  type ExtensionTimeoutSettings,
  type ExtensionTimeouts,
  ExtensionTimeoutsSchema,
  extensionName,
  extensionTimeoutsFor,
  SUMMARY_HOOKS,
} from "./extensions/extension-timeouts.js";
export {
  describeExtensionFailure,
  extensionProviderChoice,
  loadRuntimeExtensions,
  type RuntimeExtensionOptions,
  startMcpServers,
} from "./extensions/runtime-extensions.js";
export type {
  AnthropicProviderFactorySettings,
  AnthropicProviderModule,
  JsonlStoreModule,
  OpenAIProviderFactorySettings,
  OpenAIProviderModule,
  PostgresStoreLocation,
  ProviderFactories,
  ScriptedProviderModule,
  SqliteStoreLocation,
  StoreFactories,
} from "./factories.js";
export {
  checkWritableDirectory,
  describeArborHome,
  type Environment,
  resolveArborHome,
  userHome,
} from "./home.js";
export {
  abortOnInterrupt,
  INTERRUPTED,
  type InterruptTwiceOptions,
  type InterruptWatch,
  interruptTwice,
} from "./interrupts/interrupt-twice.js";
export { type KeptWork, watchKeptWork } from "./interrupts/kept-work.js";
export { exitWhenStalled } from "./interrupts/stalled-exit.js";
export {
  type AcceptAnyModelOptions,
  acceptAnyModel,
  applyLimits,
  limitsFor,
  type ModelLimit,
  ModelLimitSchema,
  type ModelLimits,
  ModelLimitsSchema,
  unlistedModelNotice,
} from "./model-limits.js";
export {
  CUSTOM_CONTEXT_WINDOW,
  CUSTOM_MAX_TOKENS,
  type CustomProviderEntry,
  customModels,
  loadModelsFile,
  type ModelsFile,
  ModelsFileSchema,
  modelsFilePath,
} from "./models-file.js";
export {
  type BranchDiffResult,
  type BranchDiffSideJson,
  branchDiffResult,
  MAX_DIFF_ITEMS,
} from "./operations/diff-branches.js";
export type { EditResult, StartedRun } from "./operations/edit-message.js";
export type { ForkOptions, ForkResult } from "./operations/fork-session.js";
export type { ImportOptions, ImportSource } from "./operations/import-session.js";
export type { LabelResult } from "./operations/label-entry.js";
export {
  DEFAULT_PAGE_SIZE,
  listSessionPage,
  type SessionListItem,
  type SessionPage,
  type SessionPageOptions,
  sessionListItem,
} from "./operations/list-sessions.js";
export type { MergeOptions, MergeResult } from "./operations/merge-branch.js";
export type { NavigateOptions, NavigateResult } from "./operations/navigate-tree.js";
export { type OperationRefusal, OperationRefusedError } from "./operations/operation-error.js";
export type { OperationHost } from "./operations/operation-host.js";
export {
  type CompactResult,
  createSessionOperations,
  type OpenedSessionResult,
  type SessionOperations,
} from "./operations/session-operations.js";
export {
  type ContextResult,
  type EntryItem,
  type EntryResult,
  type GraphResult,
  MAX_LISTED_ENTRIES,
  type SummaryResult,
  TRANSCRIPT_ENTRIES,
  type TranscriptResult,
} from "./operations/view-queries.js";
export {
  createProtocolClient,
  type ProtocolClient,
  ProtocolCommandError,
  type ProtocolResponse,
  type ProtocolTransport,
} from "./protocol/client.js";
export { dispatchRpcCommand, type RpcContext, sessionState } from "./protocol/command-handlers.js";
export type {
  CommandResult,
  CommandResults,
  PromptResult,
  SessionStateResult,
} from "./protocol/command-results.js";
export {
  assistantText,
  DEFAULT_COALESCE_MS,
  JSON_EVENT_SCHEMA_VERSION,
  JsonEventWriter,
  type JsonEventWriterOptions,
  type JsonRecord,
  lastAssistantMessage,
  PROTOCOL_EVENT_SCHEMAS,
  type ProtocolEvent,
  type ProtocolEventOf,
  ProtocolEventSchema,
  type ProtocolEventType,
  sessionRecord,
} from "./protocol/json-events.js";
export {
  createLineTransport,
  type LineTransport,
  type LineTransportOptions,
} from "./protocol/line-transport.js";
export { protocolJsonSchema } from "./protocol/protocol-schema.js";
export {
  type ParsedRpcCommand,
  parseRpcCommand,
  RPC_COMMAND_SCHEMAS,
  type RpcCommand,
  type RpcCommandOf,
  RpcCommandSchema,
  type RpcCommandType,
} from "./protocol/rpc-commands.js";
export { createRpcServer, type RpcServer } from "./protocol/rpc-server.js";
export {
  builtInProviderNames,
  chooseProvider,
  DEFAULT_LOCAL_SERVER_URL,
  DEFAULT_MODELS,
  noProviderMessage,
  OPENAI_PRESET_NAMES,
  type OpenAIPresetId,
  type ProviderChoice,
  type ProviderChoiceInputs,
  type ProviderFlags,
  type ProviderKind,
  probeLocalServer,
} from "./provider-choice.js";
export {
  mergedModelLimits,
  type ProviderSetup,
  type ProviderSetupOptions,
  setUpProvider,
} from "./provider-setup.js";
export {
  checkCredentials,
  createChosenProvider,
  type LoadedProvider,
  type LoadProviderOptions,
  loadProvider,
  prepareProvider,
} from "./providers.js";
export {
  type CompactionMeter,
  compactionProgressNotice,
  reportRunNotices,
  responseNotices,
  retryNotice,
} from "./run-notices.js";
export {
  copyBranch,
  outsideStoreError,
  resolveForResume,
  type SessionChoice,
  type SessionChoiceInput,
  startSession,
} from "./session-choice.js";
export {
  describeStore,
  jsonlPathOf,
  looksLikePath,
  type ResolvedSession,
  type ResolveSessionOptions,
  resolveEntryReference,
  resolveSessionReference,
  SessionReferenceError,
} from "./session-reference.js";
export {
  type ApplyRecoveryOptions,
  applyRecoveryFile,
  type RecoveryOutcome,
  recoveryOutcomeLines,
} from "./sessions/apply-recovery.js";
export { type ImportedFile, readSessionFileForImport } from "./sessions/import-file.js";
export { type ImportSessionResult, importReportLines, importSessionFile } from "./sessions/import-session.js";
export {
  applyPendingRecovery,
  type RecoverOptions,
  recoverSessions,
  recoverySessionsNamed,
} from "./sessions/recover-session.js";
export {
  createRecoveryKeeper,
  defaultHowToApply,
  type FoundRecoveryFile,
  listRecoveryFiles,
  type RecoveryFile,
  type RecoveryHeader,
  RecoveryHeaderSchema,
  type RecoveryKeeperOptions,
  readRecoveryFile,
  recoveryDirectories,
  recoveryDirectory,
  recoveryFileText,
  removeRecoveryFile,
} from "./sessions/recovery-file.js";
export { type TreeStats, treeStats } from "./sessions/tree-stats.js";
export {
  type LoadedSettings,
  loadSettings,
  readSettingsFile,
  type Settings,
  SettingsSchema,
  settingsFiles,
} from "./settings.js";
export {
  checkJsonlDirectory,
  describeStoreLocation,
  InvalidStoreUrlError,
  type OpenStoreOptions,
  openStore,
  type ParseStoreUrlOptions,
  parseStoreUrl,
  redactStoreUrl,
  type StoreBackend,
  StoreBackendUnavailableError,
  type StoreLocation,
  SUPPORTED_STORE_URLS,
} from "./store-url.js";
export { keyVariableNames, PROVIDER_KEY_VARIABLES, withoutVariables } from "./tool-environment.js";
export {
  type SessionHolder,
  saveRetryNotice,
  UnsavedWork,
  type UnsavedWorkWatch,
  type WatchUnsavedWorkOptions,
} from "./unsaved-work.js";
export { VERSION } from "./version.js";
