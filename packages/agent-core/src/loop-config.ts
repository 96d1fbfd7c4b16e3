import type {
  AssistantMessage,
  ImageContent,
  Message,
  Model,
  StreamFn,
  StreamOptions,
  TextContent,
  ThinkingLevel,
  ToolResultMessage,
} from "@arbor/ai-providers";
import type { AgentToolCall, ToolExecutionMode } from "./agent-tool.js";
import type { MessageToLlmConverter } from "./convert-messages.js";
import type { AgentContext, AgentMessage } from "./types.js";

/** Request options the loop passes to every `StreamFn` call; the loop sets `signal` and `reasoning` itself. */
export type AgentStreamOptions = Omit<StreamOptions, "signal" | "reasoning">;

/** What `beforeToolCall` sees: a call whose tool exists and whose arguments are valid. */
export interface BeforeToolCallContext {
  /** The assistant message that made the call. */
  assistantMessage: AssistantMessage;
  /** The call as the model sent it. */
  toolCall: AgentToolCall;
  /** The validated (and repaired) arguments `execute` would receive. */
  args: Record<string, unknown>;
  /** The run's context (its transcript includes the results of earlier calls in sequential mode). */
  context: AgentContext;
}

/** Returned by `beforeToolCall` to stop a call. */
export interface BeforeToolCallResult {
  /** `true`: the tool is not executed; its result is an error carrying `reason`. */
  block?: boolean;
  /** Shown to the model as the tool result. Default: `Tool call "<name>" was blocked.` */
  reason?: string;
}

/** What `afterToolCall` sees: an executed call and its result. */
export interface AfterToolCallContext extends BeforeToolCallContext {
  /** The result as the tool returned it (or as the loop made it from a throw or an abort). */
  result: AgentToolResultLike;
  isError: boolean;
}

/** A tool result's fields a hook can see and replace. */
export interface AgentToolResultLike {
  content: (TextContent | ImageContent)[];
  details?: unknown;
  isError?: boolean;
  terminate?: boolean;
}

/**
 * Returned by `afterToolCall`: each field given replaces the executed result's field as a whole (no
 * deep merge); omitted fields keep their value.
 */
export interface AfterToolCallResult {
  content?: (TextContent | ImageContent)[];
  details?: unknown;
  isError?: boolean;
  /** `true` ends the run after the current turn (see {@link AgentToolResultLike.terminate}). */
  terminate?: boolean;
}

/** What `shouldStopAfterTurn` and `prepareNextTurn` see: the turn that just ended. */
export interface AgentTurnContext {
  /** The turn's assistant message. */
  message: AssistantMessage;
  /** Its tool results, in call order. */
  toolResults: ToolResultMessage[];
  /** The run's context after the turn (assistant message and results appended). */
  context: AgentContext;
  /** Every message the run added so far. */
  newMessages: AgentMessage[];
  /** The model and thinking level the turn used. */
  model: Model;
  thinkingLevel: ThinkingLevel | undefined;
}

/** What `prepareNextTurn` may replace for the next model call and the rest of the run. */
export interface AgentTurnUpdate {
  /** A new context: its messages become the transcript the loop appends to (e.g. after compaction). */
  context?: AgentContext;
  model?: Model;
  thinkingLevel?: ThinkingLevel;
}

/** Configuration of one run of {@link runAgentLoop}. Only `model` and `streamFn` are required. */
export interface AgentLoopConfig {
  /** The model of the first call (later calls: see `prepareNextTurn`). */
  model: Model;
  /** Streams one model response; the loop never imports a provider. */
  streamFn: StreamFn;
  /** Reasoning effort, passed to the `StreamFn` as `reasoning`. */
  thinkingLevel?: ThinkingLevel;
  /** Further request options (`apiKey`, `maxTokens`, `sessionId`, `headers`, `onPayload`, …). */
  streamOptions?: AgentStreamOptions;
  /**
   * Resolves the API key before every model call (for short-lived tokens).
   *
   * Contract: returns the key or `undefined` (then `streamOptions.apiKey` is used); may be async. A
   * throw ends the run with a synthetic assistant error message.
   */
  getApiKey?: (provider: string) => string | undefined | Promise<string | undefined>;
  /**
   * Turns the transcript into the messages the model sees, before every model call. Default
   * {@link defaultConvertToLlm}: keeps `user`, `assistant` and `toolResult` messages, drops custom ones.
   * The loop then passes the result through `transformMessages()` for the target model, so a converter
   * need not care about tool-call ids, unanswered calls or other models' thinking. It is called over
   * the whole transcript before every model call; when each message converts on its own, prefer
   * `convertMessageToLlm`, which the loop applies incrementally.
   *
   * Contract: pure; must not mutate its input; may be async. A throw ends the run with a synthetic
   * assistant error message.
   */
  convertToLlm?: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  /**
   * Turns one transcript message into the messages the model sees for it (`[message]` to keep it, `[]`
   * to drop it, or new messages, e.g. a summary as a user message) — the per-message alternative to
   * `convertToLlm`, for converters that look at each message alone. The loop converts the run's
   * transcript incrementally: each message once, when it is appended, so a turn costs O(new messages)
   * however long the conversation is (a custom `convertToLlm` must be called over the whole transcript
   * at every model call). Results other than `[message]` are cached by message identity. What the
   * model sees equals `convertToLlm: (messages) => messages.flatMap(convertMessageToLlm)`.
   * Ignored when `convertToLlm` is set (it has full control).
   *
   * Contract: pure — the same message always gives the same result, whatever surrounds it; must not
   * mutate the message nor change the returned array later; synchronous; returns an array. A throw
   * (or a result that is not an array) ends the run with a synthetic assistant error message.
   */
  convertMessageToLlm?: MessageToLlmConverter;
  /**
   * Rewrites the transcript before `convertToLlm`, before every model call (prune, inject context).
   * The result is used for this call only; the transcript itself is unchanged. Returning the input
   * array itself (nothing to change) keeps the loop's incremental conversion; any other array is
   * converted whole.
   *
   * Contract: must not mutate its input (return a new array); may be async; should honour `signal`. A
   * throw ends the run with a synthetic assistant error message.
   */
  transformContext?: (
    messages: AgentMessage[],
    signal: AbortSignal,
  ) => AgentMessage[] | Promise<AgentMessage[]>;
  /**
   * Steering: messages to inject before the next model call, polled at the start of the run and
   * after every turn (once all tool results are in).
   *
   * Contract: returns the messages to inject now (often `[]`) and removes them from its queue; may be
   * async. A throw ends the run with a synthetic assistant error message.
   */
  getSteeringMessages?: () => AgentMessage[] | Promise<AgentMessage[]>;
  /**
   * Follow-ups: polled only when the agent would otherwise stop (no tool calls, no steering). When it
   * returns messages, they start another turn.
   *
   * Contract: as `getSteeringMessages`.
   */
  getFollowUpMessages?: () => AgentMessage[] | Promise<AgentMessage[]>;
  /**
   * Runs before each tool call whose tool exists and whose arguments are valid.
   *
   * Contract: returns `{ block: true, reason }` to skip the tool (its result is an error with
   * `reason`), or `undefined`; may be async; should honour `signal`. A throw blocks the call with the
   * error's message.
   */
  beforeToolCall?: (
    context: BeforeToolCallContext,
    signal: AbortSignal,
  ) => BeforeToolCallResult | undefined | Promise<BeforeToolCallResult | undefined>;
  /**
   * Runs after each executed tool call (not after blocked, unknown or invalid calls), before
   * `tool_execution_end`.
   *
   * Contract: returns fields to replace (see {@link AfterToolCallResult}) or `undefined`; may be async.
   * A throw turns the result into an error naming the hook.
   */
  afterToolCall?: (
    context: AfterToolCallContext,
    signal: AbortSignal,
  ) => AfterToolCallResult | undefined | Promise<AfterToolCallResult | undefined>;
  /**
   * Called after `turn_end` (and `shouldStopAfterTurn`) when the loop is about to make another model
   * call: may replace the context, the model or the thinking level for that call and the rest of the
   * run.
   *
   * Contract: returns an update or `undefined`; may be async (e.g. compaction). A throw ends the run
   * with a synthetic assistant error message.
   */
  prepareNextTurn?: (
    turn: AgentTurnContext,
  ) => AgentTurnUpdate | undefined | Promise<AgentTurnUpdate | undefined>;
  /**
   * Called after every `turn_end`: `true` ends the run there (`agent_end`, no further model call;
   * queued steering and follow-up messages stay queued).
   *
   * Contract: may be async. A throw ends the run with a synthetic assistant error message.
   */
  shouldStopAfterTurn?: (turn: AgentTurnContext) => boolean | Promise<boolean>;
  /**
   * Default `parallel` (see {@link ToolExecutionMode} for the event order of each mode); a tool with
   * `executionMode: "sequential"` makes the calls of any message that calls it sequential.
   */
  toolExecution?: ToolExecutionMode;
}
