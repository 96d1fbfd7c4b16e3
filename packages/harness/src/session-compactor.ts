import type { AgentMessage } from "@arbor/agent-core";
import type { Model } from "@arbor/ai-providers";
import { shouldCompact } from "@arbor/compaction";
import type { Session } from "@arbor/session-store";
import type { NavigationDependencies } from "./branch-navigation.js";
import { runCompaction } from "./compaction-runner.js";
import { estimateTranscriptTokens, withPendingMessages } from "./context-usage.js";
import type { HarnessCompactionOutcome } from "./events.js";
import type { HarnessRuntime } from "./harness-options.js";
import type { HookRunner } from "./hook-registry.js";
import type { CompactionReason } from "./hooks.js";
import type { HarnessPhase } from "./phase.js";
import type { SessionEvents } from "./session-events.js";
import type { SessionWriter } from "./session-writer.js";

/** What the compactor needs from its harness session. Internal. */
export interface CompactorHost {
  readonly runtime: HarnessRuntime;
  readonly session: Session;
  readonly hooks: HookRunner;
  readonly writer: SessionWriter;
  readonly events: SessionEvents;
  /** The model of the next call. */
  model(): Model;
  phase(): HarnessPhase;
  setPhase(phase: HarnessPhase): void;
}

/**
 * The compactions of one harness session: the check before every model call (seed 000 sections 4 and 5.1),
 * compaction on demand and after an overflow — never two at once. Internal.
 */
export class SessionCompactor {
  private running = false;
  /** After a threshold compaction that could not help: the size the context must pass before the next try. */
  private retryAbove: number | undefined;

  constructor(private readonly host: CompactorHost) {}

  /** Forgets a failed threshold attempt (the context or the model changed). */
  reset(): void {
    this.retryAbove = undefined;
  }

  /**
   * The check before a model call: estimate the transcript plus the messages about to be sent (O(messages
   * since the last reply), see `estimateTranscriptTokens`) and compact when it passes `contextWindow -
   * reserveTokens`. Returns the session's new context when it compacted. After a compaction that could not
   * help (nothing to compact, cancelled, failed), the next attempt waits until the context has grown by an
   * eighth of `keepRecentTokens`, so that a session stuck over the threshold is not re-planned at every call.
   */
  async beforeCall(
    transcript: readonly AgentMessage[],
    pending: readonly AgentMessage[],
    signal: AbortSignal,
  ): Promise<AgentMessage[] | undefined> {
    const settings = this.host.runtime.settings.compaction;
    if (!settings.enabled) return undefined;
    const tokens = withPendingMessages(estimateTranscriptTokens(transcript), pending).tokens;
    if (!shouldCompact(tokens, this.host.model().contextWindow, settings)) return undefined;
    if (this.retryAbove !== undefined && tokens <= this.retryAbove) return undefined;
    const outcome = await this.run("threshold", this.host.session.leafId, undefined, signal);
    if (outcome.kind !== "compacted") {
      this.retryAbove = tokens + Math.max(1, Math.floor(settings.keepRecentTokens / 8));
      return undefined;
    }
    return this.host.session.buildContext().messages as AgentMessage[];
  }

  /**
   * Runs one compaction of the branch ending at `leafId` (phase `compaction`), after writing what is pending.
   * A call while another compaction runs resolves to `failed` at once — the phases already forbid it; this is
   * the last guard.
   */
  async run(
    reason: CompactionReason,
    leafId: string | null,
    instructions: string | undefined,
    signal: AbortSignal,
  ): Promise<HarnessCompactionOutcome> {
    if (this.running) return { kind: "failed", message: "Another compaction of this session is running." };
    this.running = true;
    const host = this.host;
    const previous = host.phase();
    host.setPhase("compaction");
    try {
      await host.writer.save("operation");
      const outcome = await runCompaction(
        {
          ...this.summaryDependencies(),
          strategy: host.runtime.strategy,
          save: async (entries) => {
            host.writer.track(entries);
            await host.writer.save("operation");
          },
        },
        { reason, leafId, instructions, signal },
      );
      if (outcome.kind === "compacted") this.retryAbove = undefined;
      return outcome;
    } finally {
      this.running = false;
      host.setPhase(previous);
    }
  }

  /** What compaction and branch summaries share: the session, the summarizer, the settings, the hooks. */
  summaryDependencies(): Omit<NavigationDependencies, "onSummarizing" | "signal"> {
    const { runtime, session, hooks, events } = this.host;
    return {
      session,
      model: this.host.model(),
      streamFn: runtime.streamFn,
      summarizer: runtime.summarizer,
      settings: runtime.settings.compaction,
      hooks,
      streamOptions: runtime.settings.streamOptions,
      emit: (event) => events.emit(event),
    };
  }
}
