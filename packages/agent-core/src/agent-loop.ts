import {
  type AssistantMessage,
  type Context,
  describeError,
  InvalidArgumentError,
  type Message,
  type Model,
  type StreamOptions,
  type ThinkingLevel,
} from "@arbor/ai-providers";
import type { AgentToolCall } from "./agent-tool.js";
import { assertCanContinue } from "./continue-check.js";
import { convertEachMessage, LlmMessageConverter } from "./convert-messages.js";
import { defaultConvertToLlm } from "./convert-to-llm.js";
import type { AgentEvent, AgentEventSink } from "./events.js";
import type { AgentLoopConfig, AgentTurnContext } from "./loop-config.js";
import { LlmMessagePreparer } from "./prepare-llm-messages.js";
import { RunEmitter } from "./run-emitter.js";
import { errorAssistantMessage, streamAssistantResponse } from "./stream-response.js";
import { runToolCalls, type ToolRunEnvironment } from "./tool-execution.js";
import { errorOutcome, toolResultMessage, toolResultText } from "./tool-outcome.js";
import { checkToolSchema, modelTools } from "./tool-schema.js";
import type { AgentContext, AgentMessage } from "./types.js";

/**
 * Runs the agent loop for new prompt messages: emits `agent_start`, `turn_start` and each prompt's
 * `message_start`/`message_end`, then turns (model call, tool calls, `turn_end`) until the model stops
 * calling tools and no steering or follow-up message is queued, then `agent_end`.
 *
 * The loop copies `context.messages` once and appends to its copy; the caller's array is never
 * changed. Each event is awaited (`emit` may be async) before the loop goes on.
 *
 * Contract: never rejects once the run has started — provider failures, tool failures and aborts are
 * messages and events, and an internal failure (a hook or `emit` throwing) ends the run with a
 * synthetic assistant error message, `turn_end` and `agent_end`. Resolves with every message the run
 * added. Rejects with `InvalidArgumentError`, before any event, when `config` lacks `model` or
 * `streamFn`, and with `InvalidToolSchemaError` when a tool's `parameters` is no usable schema.
 */
export async function runAgentLoop(
  prompts: readonly AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal?: AbortSignal,
): Promise<AgentMessage[]> {
  checkConfig(config);
  for (const tool of context.tools ?? []) checkToolSchema(tool);
  const run = new LoopRun(context, config, emit, signal);
  return run.execute(async () => {
    await run.emit({ type: "agent_start" });
    await run.emit({ type: "turn_start" });
    for (const message of prompts) {
      await run.emit({ type: "message_start", message });
      await run.emit({ type: "message_end", message });
    }
    await run.runTurns();
  });
}

/**
 * Continues the conversation without a new prompt (e.g. after tool results were added by hand, or to
 * retry after an error): `agent_start`, `turn_start`, then the same turns as {@link runAgentLoop}.
 *
 * Contract: as {@link runAgentLoop}; additionally rejects with `CannotContinueError` (code
 * `cannot_continue`), before any event, when the conversation does not end with a `user` or
 * `toolResult` message or its last assistant message has unanswered tool calls (see
 * `assertCanContinue`).
 */
export async function runAgentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal?: AbortSignal,
): Promise<AgentMessage[]> {
  checkConfig(config);
  for (const tool of context.tools ?? []) checkToolSchema(tool);
  await assertCanContinue(context.messages, converterOf(config));
  const run = new LoopRun(context, config, emit, signal);
  return run.execute(async () => {
    await run.emit({ type: "agent_start" });
    await run.emit({ type: "turn_start" });
    await run.runTurns();
  });
}

/** The whole-transcript converter a config amounts to (`convertToLlm` wins over `convertMessageToLlm`). */
function converterOf(config: AgentLoopConfig): (messages: AgentMessage[]) => Message[] | Promise<Message[]> {
  if (config.convertToLlm !== undefined) return config.convertToLlm;
  if (config.convertMessageToLlm !== undefined) return convertEachMessage(config.convertMessageToLlm);
  return defaultConvertToLlm;
}

function checkConfig(config: AgentLoopConfig): void {
  if (typeof config?.streamFn !== "function") {
    throw new InvalidArgumentError(
      "AgentLoopConfig.streamFn must be a StreamFn (model, context, options) => stream.",
    );
  }
  if (typeof config.model !== "object" || config.model === null) {
    throw new InvalidArgumentError("AgentLoopConfig.model must be a Model.");
  }
}

/** One run of the loop: its context, model, signal and event bookkeeping. */
class LoopRun {
  private readonly config: AgentLoopConfig;
  private readonly emitter: RunEmitter;
  private readonly controller = new AbortController();
  private readonly preparer = new LlmMessagePreparer();
  private readonly converter: LlmMessageConverter;
  private readonly detachSignal: () => void;
  private context: AgentContext;
  private model: Model;
  private thinkingLevel: ThinkingLevel | undefined;
  private lastTurn: AgentTurnContext | undefined;

  constructor(
    context: AgentContext,
    config: AgentLoopConfig,
    sink: AgentEventSink,
    signal: AbortSignal | undefined,
  ) {
    this.config = config;
    this.converter = new LlmMessageConverter(config.convertMessageToLlm);
    this.model = config.model;
    this.thinkingLevel = config.thinkingLevel;
    const messages = context.messages.slice();
    this.context = { ...context, messages };
    this.emitter = new RunEmitter(sink, messages, []);
    this.detachSignal = linkSignal(signal, this.controller);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  emit(event: AgentEvent): Promise<void> {
    return this.emitter.emit(event);
  }

  /** Runs `body`; an internal failure closes the run instead of propagating. */
  async execute(body: () => Promise<void>): Promise<AgentMessage[]> {
    try {
      await body();
    } catch (error) {
      await this.closeFailedRun(error);
    } finally {
      this.detachSignal();
    }
    return this.emitter.newMessages;
  }

  /** The inner loop (turns while there are tool results or steering messages) and the outer loop (follow-ups). */
  async runTurns(): Promise<void> {
    const { config } = this;
    let pending = (await config.getSteeringMessages?.()) ?? [];
    let firstTurn = true;
    for (;;) {
      let needsResponse = true;
      while (needsResponse || pending.length > 0) {
        if (!firstTurn) {
          await this.prepareNextTurn();
          // Preparing may take long (compaction): pick up steering that arrived meanwhile.
          if (pending.length === 0) pending = (await config.getSteeringMessages?.()) ?? [];
          await this.emit({ type: "turn_start" });
        }
        firstTurn = false;
        for (const message of pending) {
          await this.emit({ type: "message_start", message });
          await this.emit({ type: "message_end", message });
        }
        pending = [];
        const message = await this.respond();
        const batch = await runToolCalls(this.toolEnvironment(), message);
        await this.emit({ type: "turn_end", message, toolResults: batch.results });
        const turn: AgentTurnContext = {
          message,
          toolResults: batch.results,
          context: this.context,
          newMessages: this.emitter.newMessages,
          model: this.model,
          thinkingLevel: this.thinkingLevel,
        };
        this.lastTurn = turn;
        if (message.stopReason === "error" || message.stopReason === "aborted") return this.end();
        if (batch.terminate || this.signal.aborted) return this.end();
        if ((await config.shouldStopAfterTurn?.(turn)) === true) return this.end();
        needsResponse = batch.results.length > 0;
        pending = (await config.getSteeringMessages?.()) ?? [];
      }
      if (this.signal.aborted) return this.end();
      const followUps = (await config.getFollowUpMessages?.()) ?? [];
      if (followUps.length === 0) return this.end();
      pending = followUps;
    }
  }

  private end(): Promise<void> {
    return this.emit({ type: "agent_end", messages: this.emitter.newMessages });
  }

  private async prepareNextTurn(): Promise<void> {
    const hook = this.config.prepareNextTurn;
    if (hook === undefined || this.lastTurn === undefined) return;
    const update = await hook(this.lastTurn);
    if (update === undefined || update === null) return;
    if (update.context !== undefined) {
      // The run's own transcript stays as it is (no copy, and the conversion stays incremental); any
      // other list is copied, since the loop appends to it.
      const current = this.context.messages;
      const messages = update.context.messages === current ? current : update.context.messages.slice();
      this.context = { ...update.context, messages };
      this.emitter.transcript = messages;
    }
    if (update.model !== undefined) this.model = update.model;
    if (update.thinkingLevel !== undefined) this.thinkingLevel = update.thinkingLevel;
  }

  /**
   * `transformContext` → `convertToLlm` (or `convertMessageToLlm`, or the default) → `transformMessages`
   * → `StreamFn`. Without `convertToLlm`, over the run's own transcript (no `transformContext`, or one
   * that returned its input), the conversion and transform are incremental over the append-only
   * transcript (see {@link LlmMessageConverter} and {@link LlmMessagePreparer}), so a turn costs
   * O(new messages) plus one pointer copy of the list.
   */
  private async respond(): Promise<AssistantMessage> {
    const { config, context, model, preparer, converter } = this;
    const messages =
      config.transformContext === undefined
        ? context.messages
        : await config.transformContext(context.messages, this.signal);
    let llmMessages: Message[];
    if (config.convertToLlm !== undefined) {
      llmMessages = preparer.prepare(await config.convertToLlm(messages), model, false);
    } else if (messages === context.messages) {
      llmMessages = preparer.prepare(converter.appendOnly(messages), model, true);
    } else {
      llmMessages = preparer.prepare(converter.all(messages), model, false);
    }
    const llmContext: Context = { messages: llmMessages };
    if (context.systemPrompt !== undefined) llmContext.systemPrompt = context.systemPrompt;
    // Providers get each tool's JSON Schema (a Standard Schema's converted, once per tool).
    if (context.tools !== undefined && context.tools.length > 0) llmContext.tools = modelTools(context.tools);
    const options: StreamOptions = { ...config.streamOptions, signal: this.signal };
    if (this.thinkingLevel !== undefined) options.reasoning = this.thinkingLevel;
    if (config.getApiKey !== undefined) {
      const apiKey = await config.getApiKey(model.provider);
      if (apiKey !== undefined) options.apiKey = apiKey;
    }
    return streamAssistantResponse(this.emitter, {
      streamFn: config.streamFn,
      model,
      context: llmContext,
      options,
    });
  }

  private toolEnvironment(): ToolRunEnvironment {
    return {
      emitter: this.emitter,
      config: this.config,
      context: this.context,
      signal: this.signal,
      abortRun: (reason) => this.controller.abort(reason),
    };
  }

  /**
   * Ends a run interrupted by an internal failure so that the event sequence stays well formed: the
   * open message is ended (an open assistant message becomes the error message), every tool call of
   * the open turn gets a result, the turn ends, a synthetic assistant error message is added (in a
   * turn of its own when needed), then `agent_end`. Each event is emitted on a best-effort basis.
   */
  private async closeFailedRun(error: unknown): Promise<void> {
    const emitter = this.emitter;
    if (emitter.agentEnded) return;
    const text = `Agent loop failed: ${describeError(error)}`;
    if (!this.controller.signal.aborted) this.controller.abort(new Error(text));
    const safeEmit = async (event: AgentEvent) => {
      try {
        await emitter.emit(event);
      } catch {
        // The sink is what failed: nothing more to do than to go on closing the run.
      }
    };
    if (!emitter.agentStarted) await safeEmit({ type: "agent_start" });
    let errorMessage: AssistantMessage | undefined;
    const open = emitter.openMessage;
    if (open !== undefined) {
      if ((open as { role?: unknown }).role === "assistant") {
        const partial = open as AssistantMessage;
        errorMessage = { ...partial, content: [...partial.content], stopReason: "error", errorMessage: text };
        await safeEmit({ type: "message_end", message: errorMessage });
      } else {
        await safeEmit({ type: "message_end", message: open });
      }
    }
    if (!emitter.turnOpen) await safeEmit({ type: "turn_start" });
    const assistant = emitter.turnAssistant;
    if (assistant !== undefined) {
      for (const call of assistant.content) {
        if (call.type !== "toolCall" || emitter.answeredCalls.has(call.id)) continue;
        await this.answerAfterFailure(call, error, safeEmit);
      }
      await safeEmit({ type: "turn_end", message: assistant, toolResults: [...emitter.turnResults] });
      if (errorMessage === undefined) await safeEmit({ type: "turn_start" });
    }
    if (errorMessage === undefined) {
      errorMessage = errorAssistantMessage(this.model, text);
      await safeEmit({ type: "message_start", message: errorMessage });
      await safeEmit({ type: "message_end", message: errorMessage });
      await safeEmit({ type: "turn_end", message: errorMessage, toolResults: [] });
    }
    await safeEmit({ type: "agent_end", messages: emitter.newMessages });
  }

  private async answerAfterFailure(
    call: AgentToolCall,
    error: unknown,
    safeEmit: (event: AgentEvent) => Promise<void>,
  ): Promise<void> {
    const emitter = this.emitter;
    const started = emitter.startedCalls.has(call.id);
    const executing = emitter.executingCalls.has(call.id);
    const outcome = errorOutcome(toolResultText.loopFailed(call.name, error));
    if (!started) {
      await safeEmit({
        type: "tool_execution_start",
        toolCallId: call.id,
        toolName: call.name,
        args: call.arguments,
      });
    }
    if (!started || executing) {
      await safeEmit({
        type: "tool_execution_end",
        toolCallId: call.id,
        toolName: call.name,
        result: outcome.result,
        isError: true,
      });
    }
    const message = toolResultMessage(call, outcome);
    await safeEmit({ type: "message_start", message });
    await safeEmit({ type: "message_end", message });
  }
}

/** Makes `controller` follow `signal`; returns the function that detaches it. */
function linkSignal(signal: AbortSignal | undefined, controller: AbortController): () => void {
  if (signal === undefined) return () => {};
  if (signal.aborted) {
    controller.abort(signal.reason);
    return () => {};
  }
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}
