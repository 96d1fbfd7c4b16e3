import type { ImageContent, Model, StreamFn, ThinkingLevel } from "@arbor/ai-providers";
import { runAgentLoop, runAgentLoopContinue } from "./agent-loop.js";
import { type AgentState, applyAgentEvent, type MutableAgentState } from "./agent-state.js";
import type { AgentTool } from "./agent-tool.js";
import { AgentBusyError, AgentListenerError } from "./errors.js";
import type { AgentEvent, AgentEventSink } from "./events.js";
import type { AgentLoopConfig, AgentTurnContext, AgentTurnUpdate } from "./loop-config.js";
import { MessageQueue } from "./message-queue.js";
import { normalizePromptInput, type PromptInput } from "./prompt-input.js";
import { checkToolSchema } from "./tool-schema.js";
import type { AgentContext, AgentMessage, QueueMode } from "./types.js";

/**
 * Receives every event of every run, with the run's abort signal. Listeners run one after another in
 * subscription order, each awaited, and the run waits for them.
 *
 * Contract: may be async. A throw (or rejection) does not stop the run: it is reported to
 * `onListenerError` as an {@link AgentListenerError} and the next listener runs.
 */
export type AgentListener = (event: AgentEvent, signal: AbortSignal) => void | Promise<void>;

/** The loop hooks an agent passes to each run (read when the run starts). */
export type AgentHooks = Pick<
  AgentLoopConfig,
  | "convertToLlm"
  | "convertMessageToLlm"
  | "transformContext"
  | "getApiKey"
  | "beforeToolCall"
  | "afterToolCall"
  | "prepareNextTurn"
  | "shouldStopAfterTurn"
>;

/** Options of {@link Agent}. Only `model` and `streamFn` are required. */
export interface AgentOptions extends AgentHooks {
  model: Model;
  streamFn: StreamFn;
  systemPrompt?: string;
  /** Default `off`. */
  thinkingLevel?: ThinkingLevel;
  tools?: readonly AgentTool[];
  /** The transcript to start from (copied). */
  messages?: readonly AgentMessage[];
  toolExecution?: AgentLoopConfig["toolExecution"];
  streamOptions?: AgentLoopConfig["streamOptions"];
  /** Default `one-at-a-time`. */
  steeringMode?: QueueMode;
  /** Default `one-at-a-time`. */
  followUpMode?: QueueMode;
  /**
   * Receives listener failures. Default: `console.error`.
   *
   * Contract: should not throw; a throw is ignored.
   */
  onListenerError?: (error: AgentListenerError) => void;
}

interface ActiveRun {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * A stateful agent: a transcript, a model, tools, and the loop that runs them (docs/reference/agent-core.md). `prompt()` and `continue()` start a run and resolve when it has ended; while a run is in
 * flight, `steer()` and `followUp()` queue messages, `abort()` stops it, and the setters of model,
 * thinking level, tools and system prompt apply from the next model call.
 */
export class Agent {
  /** Loop hooks, read when each run starts (assign to change them for the next run). */
  hooks: AgentHooks;
  private readonly streamFn: StreamFn;
  private readonly toolExecution: AgentLoopConfig["toolExecution"];
  private readonly streamOptions: AgentLoopConfig["streamOptions"];
  private readonly onListenerError: (error: AgentListenerError) => void;
  private readonly mutableState: MutableAgentState;
  private readonly steeringQueue: MessageQueue;
  private readonly followUpQueue: MessageQueue;
  private listeners: readonly AgentListener[] = [];
  private activeRun: ActiveRun | undefined;

  constructor(options: AgentOptions) {
    const {
      model,
      streamFn,
      systemPrompt,
      thinkingLevel,
      tools,
      messages,
      toolExecution,
      streamOptions,
      steeringMode,
      followUpMode,
      onListenerError,
      ...hooks
    } = options;
    this.hooks = hooks;
    this.streamFn = streamFn;
    this.toolExecution = toolExecution;
    this.streamOptions = streamOptions;
    this.onListenerError = onListenerError ?? ((error) => console.error(error));
    this.mutableState = {
      systemPrompt: systemPrompt ?? "",
      model,
      thinkingLevel: thinkingLevel ?? "off",
      tools: checkedTools(tools ?? []),
      messages: [...(messages ?? [])],
      isStreaming: false,
      streamingMessage: undefined,
      pendingToolCalls: new Set(),
      errorMessage: undefined,
    };
    this.steeringQueue = new MessageQueue(steeringMode);
    this.followUpQueue = new MessageQueue(followUpMode);
  }

  /** The current state (a live view; see {@link AgentState}). */
  get state(): AgentState {
    return this.mutableState;
  }

  /** The abort signal of the run in flight, if any. */
  get signal(): AbortSignal | undefined {
    return this.activeRun?.controller.signal;
  }

  /** How many steering messages one drain injects. */
  get steeringMode(): QueueMode {
    return this.steeringQueue.mode;
  }

  set steeringMode(mode: QueueMode) {
    this.steeringQueue.mode = mode;
  }

  /** How many follow-up messages one drain injects. */
  get followUpMode(): QueueMode {
    return this.followUpQueue.mode;
  }

  set followUpMode(mode: QueueMode) {
    this.followUpQueue.mode = mode;
  }

  /**
   * Adds the input to the transcript and runs the loop until the agent stops.
   *
   * Contract: resolves when the run has ended and its `agent_end` listeners have settled; never rejects
   * for failures of the model or tools (see `state.errorMessage` and the transcript). Rejects with
   * {@link AgentBusyError} (code `agent_busy`) while a run is in flight and with `InvalidPromptError`
   * for input that is not a prompt — in both cases before anything changes.
   */
  async prompt(input: PromptInput, images?: readonly ImageContent[]): Promise<void> {
    if (this.activeRun !== undefined) throw new AgentBusyError("prompt");
    const messages = normalizePromptInput(input, images);
    await this.run((context, config, emit, signal) => runAgentLoop(messages, context, config, emit, signal));
  }

  /**
   * Runs the loop from the current transcript without a new message (e.g. to retry after an error, or
   * after appending tool results).
   *
   * Contract: as {@link prompt}; rejects with `CannotContinueError` (code `cannot_continue`), before
   * any event, when the transcript does not end with a `user` or `toolResult` message or ends with an
   * assistant message whose tool calls have no results.
   */
  async continue(): Promise<void> {
    if (this.activeRun !== undefined) throw new AgentBusyError("continue");
    await this.run((context, config, emit, signal) => runAgentLoopContinue(context, config, emit, signal));
  }

  /**
   * Queues a steering message: injected before the next model call of the run in flight (after the
   * current turn's tool results), or at the start of the next run.
   */
  steer(input: PromptInput, images?: readonly ImageContent[]): void {
    this.steeringQueue.enqueue(...normalizePromptInput(input, images));
  }

  /** Queues a follow-up message: injected when the agent would otherwise stop. */
  followUp(input: PromptInput, images?: readonly ImageContent[]): void {
    this.followUpQueue.enqueue(...normalizePromptInput(input, images));
  }

  /** The queued steering messages, oldest first. */
  get queuedSteeringMessages(): readonly AgentMessage[] {
    return this.steeringQueue.peek();
  }

  /** The queued follow-up messages, oldest first. */
  get queuedFollowUpMessages(): readonly AgentMessage[] {
    return this.followUpQueue.peek();
  }

  /** Empties the steering queue and returns what it held. */
  clearSteeringQueue(): AgentMessage[] {
    return this.steeringQueue.clear();
  }

  /** Empties the follow-up queue and returns what it held. */
  clearFollowUpQueue(): AgentMessage[] {
    return this.followUpQueue.clear();
  }

  /**
   * Aborts the run in flight (no-op when idle): the model call and running tools see the signal, every
   * pending tool call is answered with an error, and the run ends with `agent_end`. Queued messages
   * stay queued.
   */
  abort(reason?: unknown): void {
    this.activeRun?.controller.abort(reason);
  }

  /** Resolves when no run is in flight (at once when idle). */
  waitForIdle(): Promise<void> {
    return this.activeRun?.done ?? Promise.resolve();
  }

  /**
   * Registers a listener for every event of every run.
   *
   * Contract: returns a function that removes it. A listener added or removed during an event takes
   * effect from the next event.
   */
  subscribe(listener: AgentListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((candidate) => candidate !== listener);
    };
  }

  /** Sets the model; during a run, from the next model call. */
  setModel(model: Model): void {
    this.mutableState.model = model;
  }

  /** Sets the thinking level; during a run, from the next model call. */
  setThinkingLevel(level: ThinkingLevel): void {
    this.mutableState.thinkingLevel = level;
  }

  /**
   * Replaces the tools (copied); during a run, from the next model call. Throws `InvalidToolSchemaError`
   * (code `invalid_tool_schema`) for a tool whose `parameters` is no usable schema (see `checkToolSchema`),
   * keeping the tools as they were.
   */
  setTools(tools: readonly AgentTool[]): void {
    this.mutableState.tools = checkedTools(tools);
  }

  /** Sets the system prompt; during a run, from the next model call. */
  setSystemPrompt(systemPrompt: string): void {
    this.mutableState.systemPrompt = systemPrompt;
  }

  /**
   * Replaces the transcript (copied), e.g. with a session's context.
   *
   * Contract: throws {@link AgentBusyError} while a run is in flight (use the `prepareNextTurn` hook to
   * replace the context mid-run).
   */
  replaceMessages(messages: readonly AgentMessage[]): void {
    if (this.activeRun !== undefined) throw new AgentBusyError("replace the messages");
    this.mutableState.messages = [...messages];
  }

  /**
   * Appends one message to the transcript without running the loop (e.g. a tool result added by hand).
   *
   * Contract: throws {@link AgentBusyError} while a run is in flight.
   */
  appendMessage(message: AgentMessage): void {
    if (this.activeRun !== undefined) throw new AgentBusyError("append a message");
    this.mutableState.messages.push(message);
  }

  /**
   * Clears the transcript, the error, and both queues; keeps model, tools, system prompt and hooks.
   *
   * Contract: throws {@link AgentBusyError} while a run is in flight (`abort()` and `await waitForIdle()` first).
   */
  reset(): void {
    if (this.activeRun !== undefined) throw new AgentBusyError("reset");
    const state = this.mutableState;
    state.messages = [];
    state.errorMessage = undefined;
    state.streamingMessage = undefined;
    state.pendingToolCalls = new Set();
    this.steeringQueue.clear();
    this.followUpQueue.clear();
  }

  /** The run lifecycle: busy from the first synchronous step, idle once the loop has returned. */
  private async run(
    start: (
      context: AgentContext,
      config: AgentLoopConfig,
      emit: AgentEventSink,
      signal: AbortSignal,
    ) => Promise<unknown>,
  ): Promise<void> {
    const controller = new AbortController();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    this.activeRun = { controller, done };
    const state = this.mutableState;
    state.isStreaming = true;
    const signal = controller.signal;
    try {
      const context: AgentContext = {
        systemPrompt: state.systemPrompt,
        messages: state.messages,
        tools: state.tools,
      };
      await start(context, this.loopConfig(), (event) => this.dispatch(event, signal), signal);
    } finally {
      state.isStreaming = false;
      state.streamingMessage = undefined;
      if (state.pendingToolCalls.size > 0) state.pendingToolCalls = new Set();
      this.activeRun = undefined;
      finish();
    }
  }

  private loopConfig(): AgentLoopConfig {
    const state = this.mutableState;
    const { prepareNextTurn, ...hooks } = this.hooks;
    return {
      ...hooks,
      model: state.model,
      thinkingLevel: state.thinkingLevel,
      streamFn: this.streamFn,
      streamOptions: this.streamOptions,
      toolExecution: this.toolExecution,
      getSteeringMessages: () => this.steeringQueue.drain(),
      getFollowUpMessages: () => this.followUpQueue.drain(),
      prepareNextTurn: (turn) => this.prepareNextTurn(turn, prepareNextTurn),
    };
  }

  /**
   * Between two turns: runs the user's `prepareNextTurn`, mirrors what it replaced into the state, and
   * carries setter changes made during the run (model, thinking level, tools, system prompt) to the loop.
   */
  private async prepareNextTurn(
    turn: AgentTurnContext,
    hook: AgentHooks["prepareNextTurn"],
  ): Promise<AgentTurnUpdate | undefined> {
    const state = this.mutableState;
    const update: AgentTurnUpdate = { ...(await hook?.(turn)) };
    if (update.context !== undefined) {
      state.messages = [...update.context.messages];
      if (update.context.systemPrompt !== undefined) state.systemPrompt = update.context.systemPrompt;
      if (update.context.tools !== undefined) state.tools = checkedTools(update.context.tools);
    }
    if (update.model !== undefined) state.model = update.model;
    if (update.thinkingLevel !== undefined) state.thinkingLevel = update.thinkingLevel;
    if (state.model !== turn.model) update.model = state.model;
    if (state.thinkingLevel !== turn.thinkingLevel) update.thinkingLevel = state.thinkingLevel;
    const context = update.context ?? turn.context;
    if (context.systemPrompt !== state.systemPrompt || context.tools !== state.tools) {
      update.context = { ...context, systemPrompt: state.systemPrompt, tools: state.tools };
    }
    return update;
  }

  private async dispatch(event: AgentEvent, signal: AbortSignal): Promise<void> {
    applyAgentEvent(this.mutableState, event);
    for (const listener of this.listeners) {
      try {
        await listener(event, signal);
      } catch (error) {
        try {
          this.onListenerError(new AgentListenerError(event, error));
        } catch {
          // The reporter failed too; the run goes on regardless.
        }
      }
    }
  }
}

/** A copy of `tools`, each checked by `checkToolSchema` (which throws `InvalidToolSchemaError`). */
function checkedTools(tools: readonly AgentTool[]): AgentTool[] {
  for (const tool of tools) checkToolSchema(tool);
  return [...tools];
}
