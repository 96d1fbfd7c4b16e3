/**
 * @arbor/agent-core — the agent of Arbor: the `Agent` class (state, queues, listeners), the agent
 * loop (`runAgentLoop`), tools (`AgentTool`) and events (`AgentEvent`). It receives a `StreamFn` and
 * never imports a provider. The vocabulary a tool needs (TypeBox, content blocks) is re-exported, so
 * a tool package can depend on this package alone.
 */

export {
  type Api,
  type AssistantEvent,
  type AssistantMessage,
  type ContentBlock,
  type Context,
  type ImageContent,
  type JsonSchema,
  type Message,
  type Model,
  type Static,
  type StopReason,
  type StreamFn,
  type StreamOptions,
  type TextContent,
  type ThinkingContent,
  type ThinkingLevel,
  type Tool,
  type ToolCall,
  type ToolResultMessage,
  type TSchema,
  Type,
  type Usage,
  type UserMessage,
  type ValidationIssue,
  type ValidationResult,
} from "@arbor/ai-providers";
export { Agent, type AgentHooks, type AgentListener, type AgentOptions } from "./agent.js";
export { runAgentLoop, runAgentLoopContinue } from "./agent-loop.js";
export { type AgentState, applyAgentEvent, type MutableAgentState } from "./agent-state.js";
export {
  type AgentTool,
  type AgentToolCall,
  type AgentToolExecuteContext,
  type AgentToolResult,
  type AgentToolUpdate,
  defineTool,
  type ToolExecutionMode,
} from "./agent-tool.js";
export { assertCanContinue, findUnansweredToolCalls } from "./continue-check.js";
export { convertEachMessage, type MessageToLlmConverter } from "./convert-messages.js";
export { defaultConvertToLlm, isLlmMessage } from "./convert-to-llm.js";
export {
  AgentBusyError,
  type AgentCoreErrorCode,
  AgentListenerError,
  CannotContinueError,
  type CannotContinueReason,
  InvalidPromptError,
  InvalidToolSchemaError,
} from "./errors.js";
export type { AgentEvent, AgentEventSink, AgentEventType } from "./events.js";
export {
  compileJsonSchemaValidator,
  JSON_SCHEMA_VALIDATION_OPTIONS,
  type JsonSchemaCheck,
  type JsonSchemaValidator,
} from "./json-schema-validator.js";
export type {
  AfterToolCallContext,
  AfterToolCallResult,
  AgentLoopConfig,
  AgentStreamOptions,
  AgentToolResultLike,
  AgentTurnContext,
  AgentTurnUpdate,
  BeforeToolCallContext,
  BeforeToolCallResult,
} from "./loop-config.js";
export { MessageQueue } from "./message-queue.js";
export { normalizePromptInput, type PromptInput } from "./prompt-input.js";
export type { StandardJSONSchemaV1, StandardSchemaV1, StandardTypedV1 } from "./standard-schema.js";
export {
  checkToolSchema,
  modelTool,
  modelTools,
  type ToolArguments,
  type ToolParameters,
  type ToolSchemaKind,
  toolSchemaKind,
  validateAgentToolArguments,
  withJsonSchema,
} from "./tool-schema.js";
export type { AgentContext, AgentMessage, CustomAgentMessages, QueueMode } from "./types.js";

export { ABORTED, untilAborted } from "./until-aborted.js";
export { VERSION } from "./version.js";
