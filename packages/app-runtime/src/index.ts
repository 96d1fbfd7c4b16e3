/**
 * @arbor/app-runtime — what every Arbor front end needs to turn flags, files and the environment into
 * running sessions: {@link createAppRuntime} (provider and store choice, `settings.json`, `models.json`,
 * session references), the session operations, the one command protocol that print/json/rpc modes and a
 * web server share, recovery files and the errors a caller can catch. What a front end's input does (slash
 * commands, the input controller, the editor's text buffer) is `@arbor/app-runtime/input`; the extension
 * host and loader are `@arbor/app-runtime/extensions`. Concrete providers and stores are passed in by the
 * app as factories; nothing here imports a terminal library.
 */

export type {
  AppRuntime,
  ExportFormat,
  ListSessionsOptions,
  SessionExporter,
  SessionExporters,
} from "./app-runtime.js";
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
export type { ExtensionFailure, ExtensionHost, LoadedExtension } from "./extensions/extension-host.js";
export type { McpConnections, McpServerReport, McpServerSettings } from "./extensions/mcp-servers.js";
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
export { type Environment, resolveArborHome } from "./home.js";
export {
  abortOnInterrupt,
  INTERRUPTED,
  type InterruptTwiceOptions,
  type InterruptWatch,
  interruptTwice,
} from "./interrupts/interrupt-twice.js";
export { type KeptWork, watchKeptWork } from "./interrupts/kept-work.js";
export { exitWhenStalled } from "./interrupts/stalled-exit.js";
export type { ModelLimit, ModelLimits } from "./model-limits.js";
export { type CustomProviderEntry, loadModelsFile, type ModelsFile } from "./models-file.js";
export { type ProxySettings, proxySettings, useEnvironmentProxy } from "./network-proxy.js";
export {
  type BranchDiffResult,
  type BranchDiffSideJson,
  branchDiffResult,
} from "./operations/diff-branches.js";
export type { EditResult, StartedRun } from "./operations/edit-message.js";
export type { ForkOptions, ForkResult } from "./operations/fork-session.js";
export type { ImportOptions, ImportSource } from "./operations/import-session.js";
export type { LabelResult } from "./operations/label-entry.js";
export {
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
export type {
  ContextResult,
  EntryItem,
  EntryResult,
  GraphResult,
  SummaryResult,
  TranscriptResult,
} from "./operations/view-queries.js";
export type {
  PermissionAnswer,
  PermissionDecisionEvent,
  PermissionGate,
  PermissionRequest,
} from "./permissions/permission-gate.js";
export {
  createProtocolClient,
  type ProtocolClient,
  ProtocolCommandError,
  type ProtocolResponse,
  type ProtocolTransport,
} from "./protocol/client.js";
export {
  ABORT_REQUESTED,
  dispatchRpcCommand,
  type RpcContext,
  sessionState,
} from "./protocol/command-handlers.js";
export type {
  CommandResult,
  CommandResults,
  PromptResult,
  SessionStateResult,
} from "./protocol/command-results.js";
export {
  assistantText,
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
  chooseProvider,
  DEFAULT_LOCAL_SERVER_URL,
  DEFAULT_MODELS,
  type OpenAIPresetId,
  type ProviderChoice,
  type ProviderChoiceInputs,
  type ProviderFlags,
  type ProviderKind,
  probeLocalServer,
} from "./provider-choice.js";
export { type ProviderSetup, type ProviderSetupOptions, setUpProvider } from "./provider-setup.js";
export { createChosenProvider, type LoadedProvider, type LoadProviderOptions } from "./providers.js";
export {
  type CompactionMeter,
  compactionProgressNotice,
  reportRunNotices,
  responseNotices,
} from "./run-notices.js";
export {
  describeStore,
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
export {
  type DeleteSessionsOptions,
  deleteSessions,
  type PruneQuery,
  parseAge,
  type RefusedDeletion,
  type SessionDeletion,
  sessionsToPrune,
} from "./sessions/delete-sessions.js";
export { type ImportedFile, readSessionFileForImport } from "./sessions/import-file.js";
export { type ImportSessionResult, importReportLines, importSessionFile } from "./sessions/import-session.js";
export { applyPendingRecovery, type RecoverOptions, recoverSessions } from "./sessions/recover-session.js";
export {
  createRecoveryKeeper,
  type FoundRecoveryFile,
  listRecoveryFiles,
  type RecoveryFile,
  type RecoveryHeader,
  RecoveryHeaderSchema,
  type RecoveryKeeperOptions,
  readRecoveryFile,
  recoveryDirectory,
  removeRecoveryFile,
} from "./sessions/recovery-file.js";
export {
  copyBranch,
  type MovedSession,
  movedSessionNotice,
  resumableHere,
  sameDirectory,
} from "./sessions/resume-here.js";
export { type TreeStats, treeStats } from "./sessions/tree-stats.js";
export { type LoadedSettings, loadSettings, type Settings } from "./settings.js";
export { arborCommand, shellWord } from "./shell-words.js";
export { type StoreDriverProblem, StoreDriverUnavailableError } from "./store-driver.js";
export {
  InvalidStoreUrlError,
  type OpenStoreOptions,
  openStore,
  type ParseStoreUrlOptions,
  parseStoreUrl,
  type StoreBackend,
  StoreBackendUnavailableError,
  type StoreLocation,
} from "./store-url.js";
export type { PermissionMode } from "./tool-names.js";
export {
  type SessionHolder,
  saveRetryNotice,
  UnsavedWork,
  type UnsavedWorkWatch,
  type WatchUnsavedWorkOptions,
} from "./unsaved-work.js";
export { VERSION } from "./version.js";
