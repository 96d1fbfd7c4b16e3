import type { TSchema } from "@sinclair/typebox";

/**
 * Message vocabulary shared by every Arbor package. The shapes are those of the pi agent's session
 * files (version 3), so a pi session can be loaded and continued without conversion.
 */

/** A piece of plain text. `textSignature` is an opaque provider token kept for the round trip. */
export interface TextContent {
  type: "text";
  text: string;
  textSignature?: string;
}

/**
 * Model reasoning. `thinkingSignature` is the provider's opaque signature (Anthropic) or encrypted
 * reasoning item (OpenAI Responses) that must be sent back unchanged to the same model. `redacted`
 * marks thinking the provider returned only in encrypted form: its `thinking` text is empty and only
 * the signature matters.
 */
export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
  redacted?: boolean;
}

/** An image as base64 data with its MIME type (e.g. `image/png`). */
export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
}

/**
 * A tool call requested by the model. `arguments` is the parsed JSON object; while the call streams it
 * holds the partial object parsed so far.
 */
export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Opaque provider token attached to the call (e.g. Gemini thought signatures). */
  thoughtSignature?: string;
}

/** Any content block. */
export type ContentBlock = TextContent | ThinkingContent | ImageContent | ToolCall;

/** Cost in US dollars, split like {@link Usage}. */
export interface UsageCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

/**
 * Token usage of one assistant response. `input` excludes cached tokens: the prompt size the model
 * saw is `input + cacheRead + cacheWrite`. `totalTokens` is the sum of all four counters.
 */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: UsageCost;
}

/**
 * Why an assistant message ended. `stop`: the model finished; `length`: it hit the output limit;
 * `toolUse`: it wants tool results; `error`: the request or stream failed (see `errorMessage`);
 * `aborted`: the caller's signal fired.
 */
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/** Reasoning effort requested from a model; providers map it to budgets or efforts. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

/** All thinking levels, lowest first. */
export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** Wire protocols Arbor knows; any other string is allowed for third-party providers. */
export type KnownApi = "anthropic-messages" | "openai-responses" | "openai-completions" | "scripted";

/** The wire protocol a model is reached through. */
export type Api = KnownApi | (string & {});

/** A message written by the user (or injected on the user's behalf). `timestamp` is epoch ms. */
export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
}

/** A message produced by a model. `timestamp` is epoch ms. */
export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api: Api;
  provider: string;
  model: string;
  /** The provider's id for the response, when it gives one. */
  responseId?: string;
  usage: Usage;
  stopReason: StopReason;
  /** Set when `stopReason` is `error` or `aborted`: what happened, in words a user can act on. */
  errorMessage?: string;
  /**
   * Parts of the response the provider received but could not read (a content type it does not know),
   * each named in words a user can act on. Never sent to a model; front ends show them beside the answer.
   * Absent when everything was read.
   */
  notices?: string[];
  timestamp: number;
}

/** The result of one tool call, sent back to the model. `timestamp` is epoch ms. */
export interface ToolResultMessage<TDetails = unknown> {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  /** Structured data for UIs and hooks; never sent to the model. */
  details?: TDetails;
  isError: boolean;
  timestamp: number;
}

/** A message a model can see. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** Price in US dollars per million tokens. */
export interface ModelCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * A model as plain data: everything a provider, the compaction planner and a UI need to know.
 * Catalogs are arrays of these; nothing here is behaviour.
 */
export interface Model {
  /** The provider's model id, e.g. `claude-sonnet-4-5`. */
  id: string;
  /** A human-readable name. */
  name: string;
  /** The id of the provider that serves it (a {@link Provider} `id`). */
  provider: string;
  api: Api;
  baseUrl?: string;
  /** Whether the model supports thinking / reasoning effort. */
  reasoning: boolean;
  /** Input modalities. */
  input: ("text" | "image")[];
  cost: ModelCost;
  /** Context window in tokens (input + output). */
  contextWindow: number;
  /** Largest output the model may produce, in tokens. */
  maxTokens: number;
  /** Extra HTTP headers to send with every request. */
  headers?: Record<string, string>;
  /** Provider-specific compatibility switches (plain data). */
  compat?: Record<string, unknown>;
}

/**
 * A JSON Schema as plain data (what `JSON.parse` gives), e.g. `{ type: "object", properties: { … } }`. A
 * TypeBox schema is one too, with TypeBox's kind symbols added.
 */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * A tool the model may call. `parameters` is the JSON Schema of its arguments, an object schema: a TypeBox
 * schema or a plain {@link JsonSchema}; providers send it to the model as it is. (agent-core's `AgentTool`
 * also takes a Standard Schema, and hands providers its JSON Schema.)
 */
export interface Tool<TParameters extends TSchema | JsonSchema = TSchema | JsonSchema> {
  name: string;
  description: string;
  parameters: TParameters;
}

/** Everything sent to a model for one response. */
export interface Context {
  systemPrompt?: string;
  messages: Message[];
  tools?: Tool[];
}
