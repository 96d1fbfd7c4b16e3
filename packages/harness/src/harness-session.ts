import type { Agent, AgentEvent, AgentMessage, AgentTool } from "@arbor/agent-core";
import { type ImageContent, type Model, THINKING_LEVELS, type ThinkingLevel } from "@arbor/ai-providers";
import {
  type CustomMessageInput,
  type Session,
  type SessionEntry,
  SessionEntryNotFoundError,
} from "@arbor/session-store";
import { type BashExecutionInput, bashExecutionMessage } from "./bash-execution.js";
import { type MergeBranchOptions, type MergeBranchResult, mergeBranch } from "./branch-merge.js";
import { type NavigateTreeOptions, type NavigateTreeResult, navigateTree } from "./branch-navigation.js";
import { type ContextUsage, contextUsageOf, estimateTranscriptTokens } from "./context-usage.js";
import {
  HarnessBusyError,
  HarnessClosedError,
  InvalidHarnessOptionsError,
  UnknownToolError,
} from "./errors.js";
import type { HarnessCompactionOutcome, HarnessListener } from "./events.js";
import type { HarnessRuntime } from "./harness-options.js";
import { HookRegistry, HookRunner } from "./hook-registry.js";
import type { HarnessHookHandler, HarnessHookName } from "./hooks.js";
import { userMessage } from "./messages.js";
import { resolveModelReference } from "./models.js";
import { prepareNextTurn } from "./next-turn.js";
import type { PendingWrite } from "./pending-writes.js";
import { type HarnessOperation, type HarnessPhase, INITIAL_PHASE } from "./phase.js";
import { recoverRun } from "./run-recovery.js";
import { reportRunStopped, savePointOf } from "./save-points.js";
import { createSessionAgent } from "./session-agent.js";
import { SessionCompactor } from "./session-compaction.js";
import { SessionContext } from "./session-context.js";
import { SessionEvents } from "./session-events.js";
import type { ExpandedInput, HarnessResources } from "./session-resources.js";
import {
  composeSystemPrompt,
  restoreSessionState,
  type SessionStartState,
  settingsToRecord,
} from "./session-start.js";
import type { HarnessSessionState, PromptOptions } from "./session-types.js";
import { type SessionUsage, sessionUsage } from "./session-usage.js";
import type { SessionWriter } from "./session-writer.js";
import { toolOutputChars } from "./tool-output-budget.js";

/** The open sessions of a harness, by id: a session adds itself when started and removes itself when closed. */
export type OpenSessions = Map<string, HarnessSession>;

interface Operation {
  readonly name: HarnessOperation;
  readonly controller: AbortController;
  readonly done: Promise<void>;
  readonly finish: () => void;
}

/**
 * One session run by a harness: a `Session` (the tree in the store) and an `Agent` (the running transcript)
 * kept in step. Create it with `harness.newSession()` or `harness.openSession(id)`.
 *
 * Structural operations — `prompt`, `continue`, `compact`, `navigateTree`, `mergeBranch`, `fork` — run one at a time: a
 * second one while the first is in flight rejects with `HarnessBusyError`. `steer`, `followUp`, `nextTurn`,
 * `abort` and the settings changes (`setModel`, `setThinkingLevel`, `setActiveTools`, `label`, `setName`,
 * `appendCustom`) are always allowed; during an operation the settings changes are written at its next save
 * point.
 */
export class HarnessSession {
  private readonly agent: Agent;
  private readonly hookRegistry = new HookRegistry();
  private readonly hooks: HookRunner;
  private readonly events: SessionEvents;
  private readonly context: SessionContext;
  private readonly writer: SessionWriter;
  private readonly compactor: SessionCompactor;
  private readonly allTools: readonly AgentTool[];
  private readonly nextTurnQueue: AgentMessage[] = [];
  private readonly startWarnings: readonly string[];
  private operation: Operation | undefined;
  private readonly abortListeners = new Set<(reason: unknown) => void>();
  private phaseValue: HarnessPhase = "idle";
  private closed = false;
  private baseSystemPrompt: string;
  /** The entries a new session starts with (its model and thinking level), held until it is first used. */
  private startWrites: readonly PendingWrite[];

  private constructor(
    private readonly runtime: HarnessRuntime,
    private readonly currentSession: Session,
    /** Context files, skills and prompt templates loaded at session start. */
    readonly resources: HarnessResources,
    start: SessionStartState,
    private readonly openSessions: OpenSessions,
  ) {
    this.startWarnings = start.warnings;
    this.startWrites = start.initialWrites;
    this.allTools = start.tools;
    this.events = new SessionEvents(runtime.onError);
    this.hooks = new HookRunner(
      [runtime.hooks, this.hookRegistry],
      () => ({ sessionId: this.id, signal: this.operation?.controller.signal ?? neverAborted }),
      (hook, error) => this.events.hookFailed(hook, error),
    );
    this.context = new SessionContext(runtime, currentSession, this.hooks, this.events);
    this.writer = this.context.writer;
    this.compactor = new SessionCompactor(this.context);
    const activeTools = this.allTools.filter((tool) => start.activeToolNames.includes(tool.name));
    this.baseSystemPrompt = composeSystemPrompt(runtime, currentSession.cwd, this.resources, activeTools);
    this.agent = createSessionAgent(
      this.context,
      {
        model: start.model,
        thinkingLevel: start.thinkingLevel,
        tools: activeTools,
        systemPrompt: this.baseSystemPrompt,
        messages: currentSession.buildContext().messages as AgentMessage[],
      },
      {
        prepareNextTurn: (turn) =>
          prepareNextTurn(this.context, this.compactor, turn, this.operation?.controller.signal),
        onEvent: (event) => this.onAgentEvent(event),
        fitContext: (messages) => this.compactor.fitForCall(messages),
      },
    );
    this.context.bindAgent(this.agent);
  }

  /** Starts a harness session over a created or opened `Session`. Internal: use the harness. */
  static async start(
    runtime: HarnessRuntime,
    session: Session,
    origin: "new" | "open",
    openSessions: OpenSessions,
    model?: Model,
  ): Promise<HarnessSession> {
    let created: HarnessSession | undefined;
    // A page of recall fits the session's tool-output budget (asked at each call, for the model then in use).
    const recallMaxBytes = () =>
      created === undefined ? undefined : toolOutputChars(created.context.budget().toolOutputTokens);
    const start = await restoreSessionState(runtime, session, origin, recallMaxBytes, model);
    const harness = new HarnessSession(runtime, session, start.resources, start, openSessions);
    created = harness;
    openSessions.set(harness.id, harness);
    return harness;
  }

  // ---------------------------------------------------------------------------------------------- reading

  /** The session id. */
  get id(): string {
    return this.currentSession.id;
  }

  /** The underlying session tree (read it freely; write through this object). */
  get session(): Session {
    return this.currentSession;
  }

  /** What the session is doing (`compaction` while one runs, whatever the operation). */
  get phase(): HarnessPhase {
    return this.compactor.isRunning ? "compaction" : this.phaseValue;
  }

  /** True while a structural operation is in flight. */
  get isBusy(): boolean {
    return this.operation !== undefined;
  }

  /** The system prompt of the next run (without a `before_agent_start` change). */
  get systemPrompt(): string {
    return this.baseSystemPrompt;
  }

  /** The names of every tool the session has, active or not ({@link setActiveTools} chooses among them). */
  get toolNames(): readonly string[] {
    return this.allTools.map((tool) => tool.name);
  }

  /** The tools the next model call sends (the active ones, the recall tool included). */
  get activeTools(): readonly AgentTool[] {
    return this.agent.state.tools;
  }

  /** Problems found at start (resources, unknown tools or models in the entries) and while reading the session. */
  get warnings(): readonly string[] {
    return [
      ...this.resources.warnings,
      ...this.startWarnings,
      ...this.currentSession.warnings,
      ...this.context.warnings,
    ];
  }

  /** A snapshot of the session's state. */
  get state(): HarnessSessionState {
    const agent = this.agent.state;
    return {
      sessionId: this.id,
      phase: this.phase,
      operation: this.operation?.name,
      model: agent.model,
      thinkingLevel: agent.thinkingLevel,
      activeToolNames: agent.tools.map((tool) => tool.name),
      systemPrompt: agent.systemPrompt,
      messages: agent.messages,
      isStreaming: agent.isStreaming,
      streamingMessage: agent.streamingMessage,
      errorMessage: agent.errorMessage,
      leafId: this.currentSession.leafId,
      name: this.currentSession.name,
      queued: {
        steering: this.agent.queuedSteeringMessages,
        followUp: this.agent.queuedFollowUpMessages,
        nextTurn: [...this.nextTurnQueue],
      },
    };
  }

  /** How full the model's window is (the estimate the compaction check uses). O(messages since the last reply). */
  contextUsage(): ContextUsage {
    const estimate = estimateTranscriptTokens(this.agent.state.messages);
    const { context } = this;
    return contextUsageOf(estimate, context.contextWindow(), context.compactionSettings());
  }

  /**
   * What the session's model calls used so far: tokens and cost of every response and summary on every
   * branch, in total and per model. O(entries).
   */
  usage(): SessionUsage {
    return sessionUsage(this.currentSession);
  }

  // ------------------------------------------------------------------------------------------- listening

  /**
   * Registers a listener for every event of this session.
   *
   * Contract: returns a function that removes it; a listener added during an event receives the next one.
   */
  subscribe(listener: HarnessListener): () => void {
    return this.events.subscribe(listener);
  }

  /**
   * Adds a hook handler for this session only (after the harness's handlers of the same hook).
   *
   * Contract: returns a function that removes it.
   */
  on<K extends HarnessHookName>(hook: K, handler: HarnessHookHandler<K>): () => void {
    return this.hookRegistry.on(hook, handler);
  }

  /** Resolves when no operation is in flight (at once when idle). */
  waitForIdle(): Promise<void> {
    return this.operation?.done ?? Promise.resolve();
  }

  // ------------------------------------------------------------------------------------------- running

  /**
   * Runs a prompt: the input is expanded by the `resources` loader (e.g. `/skill:name`, `/template`), queued `nextTurn()` messages go first,
   * `before_agent_start` handlers run, the context is compacted when it is over the threshold, and the agent
   * runs until it stops — compacting before any further model call that would not fit, compacting and
   * retrying once after an overflow, and retrying transient failures with the retry policy.
   *
   * Contract: resolves when the run (and its recovery) has ended and the session is saved; never rejects for
   * model or tool failures (see `state.errorMessage`). Rejects with `HarnessBusyError` while another
   * operation is in flight and `HarnessClosedError` after `close()`, before anything changes.
   */
  async prompt(text: string, options: PromptOptions = {}): Promise<void> {
    const operation = this.begin("prompt");
    try {
      await this.writer.saveFailedFirst(operation.controller.signal);
      const expanded = await this.expandInput(text);
      const images = [...(options.images ?? []), ...(expanded.images ?? [])];
      const following = options.followingText;
      const sent =
        following === undefined || following === "" ? expanded.text : `${expanded.text}\n\n${following}`;
      const prompt = userMessage(sent, images, this.runtime.now().getTime());
      const queued = this.nextTurnQueue.splice(0);
      const messages: AgentMessage[] = [...queued, prompt];
      await this.queueChanged();
      const start = await this.hooks.beforeAgentStart({
        text,
        expanded,
        messages,
        systemPrompt: this.baseSystemPrompt,
      });
      messages.push(...start.messages);
      if (start.systemPrompt !== this.baseSystemPrompt) this.agent.setSystemPrompt(start.systemPrompt);
      await this.compactBeforeCall(messages, operation);
      if (operation.controller.signal.aborted || this.writer.failed) {
        // Stopped before the run started: the queued next-turn messages wait for the next prompt.
        this.nextTurnQueue.unshift(...queued);
        return await this.runStopped();
      }
      await this.runRecovering(operation, () => this.agent.prompt(messages));
    } finally {
      await this.end(operation);
    }
  }

  /**
   * Runs the agent from the current transcript without a new message (e.g. after an error, or after
   * `abort()`), with the same compaction and recovery as {@link prompt}.
   *
   * Contract: as {@link prompt}; rejects with `CannotContinueError` of `@arbor/agent-core` when the transcript
   * does not end with a message the model answers.
   */
  async continue(): Promise<void> {
    const operation = this.begin("continue");
    try {
      await this.writer.saveFailedFirst(operation.controller.signal);
      await this.compactBeforeCall([], operation);
      if (operation.controller.signal.aborted || this.writer.failed) return await this.runStopped();
      await this.runRecovering(operation, () => this.agent.continue());
    } finally {
      await this.end(operation);
    }
  }

  /**
   * Queues a steering message: injected before the next model call of the run in flight (or of the next run).
   *
   * Contract: allowed in every phase; throws only `HarnessClosedError` after `close()`.
   */
  steer(text: string | AgentMessage, images?: readonly ImageContent[]): void {
    this.assertOpen("steer");
    this.agent.steer(typeof text === "string" ? this.textMessage(text, images) : text);
    void this.queueChanged();
  }

  /**
   * Queues a follow-up message: injected when the agent would otherwise stop (it then runs another turn).
   *
   * Contract: as {@link steer}.
   */
  followUp(text: string | AgentMessage, images?: readonly ImageContent[]): void {
    this.assertOpen("followUp");
    this.agent.followUp(typeof text === "string" ? this.textMessage(text, images) : text);
    void this.queueChanged();
  }

  /**
   * Queues a message for the next `prompt()`: it is sent with that prompt (before it), and triggers nothing
   * by itself — for context that should not interrupt the current run nor start one (the pi agent's
   * `deliverAs: "nextTurn"`). `continue()` does not send them.
   *
   * Contract: as {@link steer}.
   */
  nextTurn(text: string | AgentMessage, images?: readonly ImageContent[]): void {
    this.assertOpen("nextTurn");
    this.nextTurnQueue.push(typeof text === "string" ? this.textMessage(text, images) : text);
    void this.queueChanged();
  }

  /**
   * Aborts whatever is in flight: the model call and running tools, a compaction or branch summary (nothing
   * is appended), a wait before a retry. Queued messages stay queued.
   *
   * Contract: allowed in every phase, also after `close()`; a no-op when idle; never throws.
   */
  abort(reason?: unknown): void {
    const busy = this.isBusy;
    this.operation?.controller.abort(reason);
    this.agent.abort(reason);
    if (!busy) return;
    for (const listener of [...this.abortListeners]) {
      try {
        listener(reason);
      } catch {
        // abort() never throws.
      }
    }
  }

  /**
   * Calls `listener` synchronously each time {@link abort} is called while the session is busy, after the
   * operation was aborted — for code that waits on something the operation's signal does not reach (an
   * extension's event handler that never settles). Events cannot tell it: the next event comes only once
   * the run has moved on.
   *
   * Contract: returns the function that removes the listener; a throwing listener is ignored.
   */
  onAbort(listener: (reason: unknown) => void): () => void {
    this.abortListeners.add(listener);
    return () => {
      this.abortListeners.delete(listener);
    };
  }

  /**
   * Compacts the session now (reason `manual`), whatever the threshold and `settings.compaction.enabled`.
   * Asked for, it compacts whenever anything is older than the last turn: when the history fits in the kept
   * tail (`keepRecentTokens`), the tail shrinks to the last turn — which stays whole, tool calls with their
   * results — and everything before it is summarized.
   *
   * Contract: resolves to what happened (`compacted` with the entry id and token counts, `nothing_to_compact`,
   * `cancelled` by a hook, `aborted`, `failed`), each with `message`: the outcome in plain words, to show as
   * is; rejects with `HarnessBusyError` while another operation (in particular another compaction) is in
   * flight.
   */
  async compact(instructions?: string): Promise<HarnessCompactionOutcome> {
    const operation = this.begin("compact");
    try {
      const signal = operation.controller.signal;
      const outcome = await this.compactor.run("manual", this.currentSession.leafId, instructions, signal);
      if (outcome.kind === "compacted") this.context.reloadTranscript();
      return outcome;
    } finally {
      await this.end(operation);
    }
  }

  /**
   * Moves the session to another entry of its tree (docs/reference/harness.md): the branch being left is summarized
   * into a `branch_summary` entry (unless `summarize: false`), the leaf moves, and the next prompt continues
   * from the target, whose context is [earlier summary, path to the target, branch summary]. The current
   * model, thinking level and tools stay (entries record them on the new branch when they differ).
   *
   * Contract: rejects with `SessionEntryNotFoundError` for an unknown entry and `HarnessBusyError` while busy.
   */
  async navigateTree(entryId: string | null, options: NavigateTreeOptions = {}): Promise<NavigateTreeResult> {
    const operation = this.begin("navigateTree");
    try {
      const before = this.currentSession.leafId;
      const result = await navigateTree(this.context, operation.controller.signal, entryId, options);
      if (result.kind === "moved") this.afterMove(result.entries, before);
      return result;
    } finally {
      await this.end(operation);
    }
  }

  /**
   * Folds the conclusion of the branch ending at `sourceLeafId` into the branch of `options.into`, as a
   * `branch_summary` entry after `into` (its `fromId` is `sourceLeafId`); the session then continues from it.
   * Runs like {@link navigateTree}: `session_before_tree` handlers (with `operation: "mergeBranch"`) may cancel
   * it or supply the summary, the phase is `branch_summary`, `branch_summary` and `settled` are emitted, and
   * the current model, thinking level and tools stay. The merged branch's entries stay in the log.
   *
   * Contract: rejects with `SessionEntryNotFoundError` for an unknown entry, `InvalidMergeError` when there is
   * nothing to fold in, and `HarnessBusyError` while busy — all before anything changes; a failing summarizer
   * falls back to a deterministic digest (`fallback` says why).
   */
  async mergeBranch(sourceLeafId: string, options: MergeBranchOptions): Promise<MergeBranchResult> {
    const operation = this.begin("mergeBranch");
    try {
      const before = this.currentSession.leafId;
      const result = await mergeBranch(this.context, operation.controller.signal, sourceLeafId, options);
      if (result.kind === "merged") this.afterMove(result.entries, before);
      return result;
    } finally {
      await this.end(operation);
    }
  }

  /**
   * Copies the path up to an entry into a new session (its header names this one as `parentSession`) and
   * returns it, ready to run. `position: "at"` (default) includes the entry, `"before"` stops at its parent —
   * to ask a question again differently. This session is not changed.
   */
  async fork(entryId: string, position: "at" | "before" = "at"): Promise<HarnessSession> {
    const operation = this.begin("fork");
    try {
      const forked = await this.currentSession.fork(entryId, { position });
      return await this.runtimeOpen(forked);
    } finally {
      await this.end(operation);
    }
  }

  // ------------------------------------------------------------------------------------------ settings

  /**
   * Sets the model (a `Model` or `"provider/model"`): from the next model call, recorded as a `model_change`.
   *
   * Contract: throws `UnresolvedModelError` for a reference that does not resolve. Resolves once written (at
   * once when idle; during an operation, the entry waits for its next save point).
   */
  async setModel(model: Model | string): Promise<void> {
    this.assertOpen("setModel");
    const resolved = resolveModelReference(model, this.runtime.modelSources);
    this.agent.setModel(resolved);
    this.compactor.reset();
    await this.record({ type: "model_change", provider: resolved.provider, modelId: resolved.id });
  }

  /** Sets the thinking level (from the next model call), recorded as a `thinking_level_change`. */
  async setThinkingLevel(level: ThinkingLevel): Promise<void> {
    this.assertOpen("setThinkingLevel");
    if (!THINKING_LEVELS.includes(level)) {
      throw new InvalidHarnessOptionsError(
        `Unknown thinking level ${JSON.stringify(level)}; expected one of ${THINKING_LEVELS.join(", ")}.`,
      );
    }
    this.agent.setThinkingLevel(level);
    await this.record({ type: "thinking_level_change", thinkingLevel: level });
  }

  /**
   * Sets the tools the model may call (by name, from the harness's tools), from the next model call; the
   * system prompt lists them. Recorded as an `active_tools_change`.
   *
   * Contract: throws `UnknownToolError` naming the unknown names, before anything changes.
   */
  async setActiveTools(names: readonly string[]): Promise<void> {
    this.assertOpen("setActiveTools");
    const known = this.allTools.map((tool) => tool.name);
    const unknown = names.filter((name) => !known.includes(name));
    if (unknown.length > 0) throw new UnknownToolError(unknown, known);
    const active = this.allTools.filter((tool) => names.includes(tool.name));
    this.agent.setTools(active);
    this.baseSystemPrompt = composeSystemPrompt(
      this.runtime,
      this.currentSession.cwd,
      this.resources,
      active,
    );
    this.agent.setSystemPrompt(this.baseSystemPrompt);
    await this.record({ type: "active_tools_change", activeToolNames: active.map((tool) => tool.name) });
  }

  /**
   * Sets (or, with `undefined` or `""`, clears) the label of an entry, recorded as a `label` entry.
   *
   * Contract: throws `SessionEntryNotFoundError` for an unknown entry.
   */
  async label(entryId: string, label: string | undefined): Promise<void> {
    this.assertOpen("label");
    if (!this.currentSession.has(entryId)) throw new SessionEntryNotFoundError(this.id, entryId);
    await this.record({ type: "label", targetId: entryId, label });
  }

  /** Sets the session's display name, recorded as a `session_info` entry. */
  async setName(name: string): Promise<void> {
    this.assertOpen("setName");
    await this.record({ type: "session_info", name });
  }

  /** Records application state (a `custom` entry; the model never sees it). */
  async appendCustom(customType: string, data?: unknown): Promise<void> {
    this.assertOpen("appendCustom");
    await this.record({ type: "custom", customType, data });
  }

  /**
   * Adds an application message the model sees as a user message (a `custom_message` entry) to the context.
   *
   * Contract: rejects with `HarnessBusyError` during an operation (send it with `steer()` instead).
   */
  async appendCustomMessage(input: CustomMessageInput): Promise<void> {
    this.assertOpen("appendCustomMessage");
    if (this.operation !== undefined) {
      throw new HarnessBusyError("append a custom message", this.operation.name, this.phase);
    }
    await this.record({ type: "custom_message", input });
    this.context.reloadTranscript();
  }

  /** Records a user's `!command` as a `bashExecution` message, saved on return; busy: `HarnessBusyError`. */
  async appendBashExecution(input: BashExecutionInput) {
    this.assertOpen("appendBashExecution");
    if (this.operation) throw new HarnessBusyError("!command", this.operation.name, this.phase);
    const message = bashExecutionMessage(input, this.runtime.now().getTime());
    this.stageStartWrites();
    this.writer.track([this.currentSession.appendMessage(message)]);
    await this.writer.save("operation");
    this.context.reloadTranscript();
    return message;
  }

  /**
   * Waits for the operation in flight, writes what is pending and closes the session; the harness forgets it.
   * Further calls reject with `HarnessClosedError` (reading stays possible).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.waitForIdle();
    this.closed = true;
    await this.writer.save("operation");
    if (this.openSessions.get(this.id) === this) this.openSessions.delete(this.id);
  }

  // --------------------------------------------------------------------------------------------- internals

  private begin(name: HarnessOperation): Operation {
    this.assertOpen(name);
    if (this.operation !== undefined) throw new HarnessBusyError(name, this.operation.name, this.phase);
    let finish!: () => void;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const operation: Operation = { name, controller: new AbortController(), done, finish };
    this.operation = operation;
    this.stageStartWrites();
    this.phaseValue = INITIAL_PHASE[name];
    return operation;
  }

  private async end(operation: Operation): Promise<void> {
    await this.writer.save("operation");
    if (this.agent.state.systemPrompt !== this.baseSystemPrompt)
      this.agent.setSystemPrompt(this.baseSystemPrompt);
    this.operation = undefined;
    this.phaseValue = "idle";
    operation.finish();
    await this.events.emit({ type: "settled", operation: operation.name });
  }

  private assertOpen(operation: string): void {
    if (this.closed) throw new HarnessClosedError(this.id, operation);
  }

  private setPhase(phase: HarnessPhase): void {
    this.phaseValue = phase;
  }

  /** Runs the agent (phase `turn`); settings changes made meanwhile wait for the save points. */
  private async run(start: () => Promise<void>): Promise<void> {
    this.setPhase("turn");
    await start();
  }

  /**
   * A new session's first entries — its model and thinking level, so that a reopen restores them — join it
   * when it is first used (an operation or a recorded change), not when it starts: a session opened and
   * closed without use writes no entry.
   */
  private stageStartWrites(): void {
    if (this.startWrites.length === 0) return;
    const writes = this.startWrites;
    this.startWrites = [];
    this.writer.stage(writes);
  }

  /** A settings change: written now when idle, at the next save point otherwise. */
  private async record(write: PendingWrite): Promise<void> {
    this.stageStartWrites();
    this.writer.queue(write);
    if (this.operation === undefined) await this.writer.save("operation");
  }

  private async expandInput(text: string): Promise<ExpandedInput> {
    const loader = this.runtime.resources;
    return loader === undefined ? { text, kind: "plain" } : loader.expandInput(text, this.resources);
  }

  private textMessage(text: string, images: readonly ImageContent[] | undefined): AgentMessage {
    return userMessage(text, images ?? [], this.runtime.now().getTime());
  }

  private async runtimeOpen(forked: Session): Promise<HarnessSession> {
    return HarnessSession.start(this.runtime, forked, "open", this.openSessions);
  }

  /**
   * After the leaf moved (navigation, merge): the appended entries join the next save point, the new path
   * records the current model, thinking level and tools where it differs, and the transcript is reloaded.
   */
  private afterMove(entries: readonly SessionEntry[], before: string | null): void {
    this.writer.track(entries);
    if (this.currentSession.leafId === before) return;
    const state = this.agent.state;
    const current = {
      model: state.model,
      thinkingLevel: state.thinkingLevel,
      activeToolNames: state.tools.map((tool) => tool.name),
    };
    const names = this.allTools.map((tool) => tool.name);
    for (const write of settingsToRecord(this.currentSession, current, names)) this.writer.queue(write);
    this.compactor.reset();
    this.context.reloadTranscript();
  }

  private queueChanged(): Promise<void> {
    return this.events.queueChanged(
      this.agent.queuedSteeringMessages,
      this.agent.queuedFollowUpMessages,
      this.nextTurnQueue,
    );
  }

  // --------------------------------------------------------------------------------------- agent wiring

  /**
   * Every event of the agent: messages join the session at `message_end`, and the save points are written —
   * an assistant message that calls tools before they run (so that no tool runs unrecorded), every turn's
   * end and the run's end. After a failed save the wiring blocks the tools and stops the run.
   */
  private async onAgentEvent(event: AgentEvent): Promise<void> {
    if (event.type === "message_end") this.writer.appendMessage(event.message);
    if (event.type === "agent_end") {
      this.context.lastRun = event.messages;
      this.writer.forgetToolOutputs();
    }
    await this.events.emit(event);
    if (event.type === "turn_start" || event.type === "message_start") await this.queueChanged();
    const reason = savePointOf(event);
    if (reason !== undefined) await this.writer.save(reason, this.operation?.controller.signal);
  }

  /** The check before the first model call of a run (the transcript is installed when it compacted). */
  private async compactBeforeCall(pending: readonly AgentMessage[], operation: Operation): Promise<void> {
    const transcript = this.agent.state.messages;
    const compacted = await this.compactor.beforeCall(transcript, pending, operation.controller.signal);
    if (compacted !== undefined) this.agent.replaceMessages(compacted);
  }

  // ------------------------------------------------------------------------------------------- recovery

  /**
   * Runs the agent (`start`), then recovers from the failures worth another attempt (`recoverRun`):
   * compacting after an overflow, retrying transient failures (phase `retry` while waiting).
   */
  private async runRecovering(operation: Operation, start: () => Promise<void>): Promise<void> {
    const signal = operation.controller.signal;
    await this.run(start);
    await recoverRun(this.context, signal, {
      compactAfterOverflow: (failed) => this.compactor.recoverFromOverflow(failed, signal),
      waitToRetry: () => this.setPhase("retry"),
      resume: () => this.resume(operation),
    });
  }

  /** Tells that a run stopped because a save failed (`run_stopped`: what, and where the entries are). */
  private runStopped(): Promise<void> {
    return reportRunStopped(this.events, this.writer);
  }

  /** Runs the agent again from the current transcript, after the check before a call; false when it could not start. */
  private async resume(operation: Operation): Promise<boolean> {
    await this.compactBeforeCall([], operation);
    if (operation.controller.signal.aborted || this.writer.failed) return false;
    try {
      await this.run(() => this.agent.continue());
      return true;
    } catch (error) {
      // The transcript cannot be continued (CannotContinueError): recovery stops here.
      this.events.report(error);
      return false;
    }
  }
}

const neverAborted = new AbortController().signal;
