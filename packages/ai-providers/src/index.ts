/**
 * @arbor/ai-providers — the provider spec: message vocabulary, the streaming event protocol, the
 * Provider interface and registry, cost, retry policy, context-overflow detection, cross-provider
 * message transforms and streaming tool-argument parsing. Test doubles live in `./testing`; record and
 * replay (which reads and writes files) in `./recording`, so this entry reaches no Node built-in.
 */

export { Kind, type Static, type TSchema, Type } from "@sinclair/typebox";
export {
  type AssistantStream,
  type AssistantStreamController,
  createAssistantStream,
} from "./assistant-stream.js";
export { complete } from "./complete.js";
export { parseContextLimit, parseRequestedTokens } from "./context-limit.js";
export { addUsage, calculateCost, emptyUsage } from "./cost.js";
export { emptyAssistantMessage } from "./empty-assistant.js";
export {
  type AiProvidersErrorCode,
  ArborError,
  DuplicateProviderError,
  InvalidArgumentError,
  InvalidModelReferenceError,
  StreamAlreadyIteratedError,
  StreamProtocolError,
  UnknownModelError,
  UnknownProviderError,
} from "./errors.js";
export { type AssistantEvent, type AssistantEventType, isTerminalEvent } from "./events.js";
export {
  isContextOverflow,
  isContextOverflowText,
  OVERFLOW_PATTERNS,
  type OverflowPattern,
} from "./overflow.js";
export {
  escapeControlCharactersInStrings,
  type JsonParseResult,
  parsePartialJson,
  StreamingJsonParser,
} from "./partial-json.js";
export type {
  CacheRetention,
  ModelDiscoveryResult,
  Provider,
  ProviderCredentials,
  ProviderResponseInfo,
  StreamFn,
  StreamOptions,
} from "./provider.js";
export { createProviderRegistry, type ProviderRegistry } from "./registry.js";
export {
  DEFAULT_RETRY_POLICY,
  decideRetry,
  type FailureInfo,
  isTransientFailure,
  parseRetryAfter,
  type RetryDecision,
  RetryGaveUpError,
  type RetryPolicy,
  type RetryWithPolicyOptions,
  resolveRetryPolicy,
  retryWithPolicy,
  sleep,
} from "./retry.js";
export {
  checkIdleTimeout,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  idleTimeoutFetch,
  StreamStalledError,
} from "./stream-idle.js";
export {
  AssistantStreamWriter,
  abortMessage,
  createProviderStream,
  describeError,
  type ProducerInput,
  type UsageUpdate,
} from "./stream-writer.js";
export {
  MISSING_TOOL_RESULT_TEXT,
  type PairedToolCall,
  ToolPairing,
  type ToolPairingHooks,
  type ToolPairingOptions,
} from "./tool-pairing.js";
export {
  normalizeToolCallId,
  OMITTED_IMAGE_TEXT,
  type TransformMessagesOptions,
  transformMessages,
} from "./transform-messages.js";
export {
  type Api,
  type AssistantMessage,
  type ContentBlock,
  type Context,
  type ImageContent,
  type JsonSchema,
  type KnownApi,
  type Message,
  type Model,
  type ModelCost,
  type StopReason,
  type TextContent,
  THINKING_LEVELS,
  type ThinkingContent,
  type ThinkingLevel,
  type Tool,
  type ToolCall,
  type ToolResultMessage,
  type Usage,
  type UsageCost,
  type UserMessage,
} from "./types.js";
export {
  type ValidationIssue,
  type ValidationResult,
  validateToolArguments,
  validationFailure,
} from "./validate.js";
export { VERSION } from "./version.js";
