import { type Agent, type AgentMessage, modelTools } from "@arbor/agent-core";
import type { AssistantMessage, Model, ProviderResponseInfo } from "@arbor/ai-providers";
import type { CompactionSettings, ContextBudget } from "@arbor/compaction";
import type { Session } from "@arbor/session-store";
import { type FixedPartFit, fitFixedPart } from "./fixed-part.js";
import type { HarnessRuntime } from "./harness-options.js";
import type { HookRunner } from "./hook-registry.js";
import type { SessionEvents } from "./session-events.js";
import { SessionWindow } from "./session-window.js";
import { SessionWriter } from "./session-writer.js";

/**
 * What the parts of one harness session share: the runtime, the session tree, its hooks, events and writer,
 * its agent, and the window its context must fit. `HarnessSession` creates it once and hands it to the
 * compactor, the recovery loop, navigation and merge; none of them changes the session's phase — only
 * `HarnessSession` does. Internal: not exported from the package.
 */
export class SessionContext {
  /** The pending writes and save points of the session. */
  readonly writer: SessionWriter;
  /** The window in effect per model, and the compaction settings for it. */
  readonly window: SessionWindow;
  /** The messages of the last run (`agent_end`). */
  lastRun: readonly AgentMessage[] = [];
  /** What the provider reported about the latest response (status, headers), for the retry decision. */
  lastProviderResponse: ProviderResponseInfo | undefined;
  private boundAgent: Agent | undefined;
  private fixedCache:
    | { systemPrompt: string; tools: readonly unknown[]; budgetTokens: number; fit: FixedPartFit }
    | undefined;

  constructor(
    readonly runtime: HarnessRuntime,
    readonly session: Session,
    readonly hooks: HookRunner,
    readonly events: SessionEvents,
  ) {
    this.writer = new SessionWriter(session, events, runtime);
    this.window = new SessionWindow(runtime.settings.compaction, runtime.settings.configuredBudget, session);
  }

  /**
   * Binds the session's agent, once: it is created after the context (its context fitting needs the
   * compactor, which needs the context).
   */
  bindAgent(agent: Agent): void {
    if (this.boundAgent !== undefined) throw new Error("SessionContext: the agent is already bound.");
    this.boundAgent = agent;
  }

  /** The session's agent. */
  get agent(): Agent {
    const agent = this.boundAgent;
    if (agent === undefined) throw new Error("SessionContext: no agent bound yet.");
    return agent;
  }

  /** The model of the next call. */
  get model(): Model {
    return this.agent.state.model;
  }

  /** The window the context must fit: the model's, or a smaller one learned from an overflow error. */
  contextWindow(): number {
    return this.window.of(this.model);
  }

  /**
   * The budget of the next call (`contextBudget` of `@arbor/compaction`): window in effect, reserve, kept
   * tail, tool-output budget, fixed part (the system prompt and tools as sent), threshold and target.
   */
  budget(): ContextBudget {
    return this.window.budget(this.model, this.overheadTokens());
  }

  /** The compaction settings in effect for the model's window (derived or clamped; see `SessionWindow.settings`). */
  compactionSettings(): CompactionSettings {
    return this.window.settings(this.model);
  }

  /** The warnings about settings that cannot work for the current model's window. */
  get warnings(): readonly string[] {
    this.compactionSettings();
    return this.window.warnings;
  }

  /**
   * The fixed part of the next call (`fitFixedPart`): the system prompt and the tools as they are sent —
   * shortened, or fewer, when they take more than their share of the window. Cached until the prompt, the
   * tools or the window change.
   */
  fixedPart(): FixedPartFit {
    const { systemPrompt, tools } = this.agent.state;
    const budgetTokens = this.fixedBudgetTokens();
    const cached = this.fixedCache;
    if (
      cached !== undefined &&
      cached.systemPrompt === systemPrompt &&
      cached.tools === tools &&
      cached.budgetTokens === budgetTokens
    ) {
      return cached.fit;
    }
    const fit = fitFixedPart(systemPrompt, modelTools(tools), budgetTokens);
    this.fixedCache = { systemPrompt, tools, budgetTokens, fit };
    return fit;
  }

  /** The share of the window the fixed part of a request may take (`ContextBudget.fixedBudgetTokens`). */
  fixedBudgetTokens(): number {
    return this.window.budget(this.model).fixedBudgetTokens;
  }

  /** Estimated tokens of the fixed part as sent: what every call carries besides the messages. */
  overheadTokens(): number {
    return this.fixedPart().tokens;
  }

  /** Replaces the agent's transcript with the session's context (after a compaction, a move, an append). */
  reloadTranscript(): void {
    this.agent.replaceMessages(this.session.buildContext().messages as AgentMessage[]);
  }

  /** The entry a message (a failed response) follows: where the session continues without it. */
  parentOf(message: AgentMessage): string | null {
    const entryId = this.writer.entryIdOf(message);
    if (entryId === undefined) return this.session.leafId;
    return this.session.getEntry(entryId)?.parentId ?? null;
  }

  /** Takes a failed response out of the model's context: a `leaf` entry moves back to its parent. */
  async dropFailedResponse(failed: AssistantMessage): Promise<void> {
    const target = this.parentOf(failed);
    if (this.session.leafId !== target) {
      this.writer.track(this.session.moveTo(target).entries);
      await this.writer.save("operation");
    }
    this.reloadTranscript();
  }

  /** The final assistant message of the last run when it failed (`stopReason: "error"`). */
  lastRunFailure(): AssistantMessage | undefined {
    for (let index = this.lastRun.length - 1; index >= 0; index--) {
      const message = this.lastRun[index]!;
      if (message.role !== "assistant") continue;
      return message.stopReason === "error" ? message : undefined;
    }
    return undefined;
  }
}
