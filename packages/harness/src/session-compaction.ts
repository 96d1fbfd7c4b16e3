import type { AgentMessage } from "@arbor/agent-core";
import {
  describeError,
  type Model,
  parseContextLimit,
  type StreamFn,
  type StreamOptions,
  type Usage,
} from "@arbor/ai-providers";
import {
  type CompactionSettingAdjustment,
  type CompactionSettings,
  type CompactionStrategy,
  effectiveCompactionSettings,
  type SummarizerTarget,
  shouldCompact,
  tokensOfChars,
} from "@arbor/compaction";
import type { Session, SessionEntry } from "@arbor/session-store";
import type { NavigationDependencies } from "./branch-navigation.js";
import { fitContextToWindow } from "./context-fit.js";
import { estimateTranscriptTokens, withPendingMessages } from "./context-usage.js";
import type { HarnessCompactionOutcome, HarnessEvent } from "./events.js";
import type { HarnessRuntime } from "./harness-options.js";
import type { HookRunner } from "./hook-registry.js";
import type { CompactionReason, CustomCompaction } from "./hooks.js";
import type { SessionEvents } from "./session-events.js";
import type { SessionWriter } from "./session-writer.js";

/**
 * Compaction in the harness: the check before every model call, compaction on demand and after an
 * overflow ({@link SessionCompactor}), and one compaction planned, summarized and appended
 * ({@link runCompaction}). The estimate it checks is `estimateTranscriptTokens` (context-usage.ts).
 */

/** The `customType` of the entry that records a window learned from an overflow error. */
export const CONTEXT_WINDOW_ENTRY = "arbor.context_window";

/** The `data` of a {@link CONTEXT_WINDOW_ENTRY} entry. */
export interface ContextWindowRecord {
  provider: string;
  modelId: string;
  /** The window the provider's overflow error stated, in tokens. */
  contextWindow: number;
}

/** The smallest kept tail an overflow compaction halves down to. */
export const MIN_OVERFLOW_KEEP_TOKENS = 64;

/** A configured value that could not work at all for the window (not just one larger than the clamp). */
function cannotWork(
  adjustment: CompactionSettingAdjustment,
  contextWindow: number,
  effective: CompactionSettings,
): boolean {
  if (adjustment.setting === "reserveTokens") return adjustment.configured >= contextWindow;
  return adjustment.configured >= contextWindow - effective.reserveTokens;
}

function windowKey(model: Model): string {
  return `${model.provider}/${model.id}`;
}

/** What a compaction needs from its session. Internal. */
export interface CompactionDependencies {
  session: Session;
  /** The session's model (its window sets the kept tail; it summarizes unless `summarizer` is given). */
  model: Model;
  streamFn: StreamFn;
  summarizer: SummarizerTarget | undefined;
  settings: CompactionSettings;
  strategy: CompactionStrategy;
  hooks: HookRunner;
  streamOptions: Omit<StreamOptions, "signal" | "maxTokens"> | undefined;
  emit: (event: HarnessEvent) => Promise<void>;
  /** The window the context must fit, when smaller than the model's (one learned from an overflow error). */
  contextWindow?: number;
  /** Writes what the session holds in memory, naming the entries this compaction appended (never throws). */
  save: (entries: readonly SessionEntry[]) => Promise<void>;
}

/** One compaction to run. */
export interface CompactionRequest {
  reason: CompactionReason;
  /** The leaf of the branch to compact. The compaction entry is appended there (the leaf is moved if needed). */
  leafId: string | null;
  instructions: string | undefined;
  signal: AbortSignal;
}

/** The `details` the harness adds to every compaction entry, next to those of `compact()`. */
export interface HarnessCompactionDetails {
  /** Estimated context size after the compaction (the entry's `tokensBefore` is the size before). */
  tokensAfter: number;
  reason: CompactionReason;
  /** The summarizer's usage (absent when a hook supplied the summary). */
  usage?: Usage;
}

/**
 * The entries a compaction plan needs: the path from the latest compaction's kept part (or the root) to the
 * leaf. Earlier entries are never parsed.
 */
export function compactionBranch(session: Session, leafId: string | null): SessionEntry[] {
  const path = session.getPath(leafId);
  let start = 0;
  for (let index = path.length - 1; index >= 0; index--) {
    const ref = path[index]!;
    if (ref.type !== "compaction") continue;
    start = index;
    const entry = ref.entry();
    const firstKept = entry?.type === "compaction" ? entry.firstKeptEntryId : undefined;
    for (let kept = index - 1; kept >= 0; kept--) {
      if (path[kept]!.id === firstKept) {
        start = kept;
        break;
      }
    }
    break;
  }
  const entries: SessionEntry[] = [];
  for (let index = start; index < path.length; index++) {
    const entry = path[index]!.entry();
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}

/**
 * Plans, summarizes (or takes a hook's summary) and appends one compaction; emits `compaction_start` and
 * `compaction_end`. The caller guarantees that no other compaction of the session is running.
 *
 * Contract: never throws — a failing strategy or store becomes `{ kind: "failed" }`, an abort
 * `{ kind: "aborted" }`; nothing is appended unless the outcome is `compacted`.
 */
export async function runCompaction(
  dependencies: CompactionDependencies,
  request: CompactionRequest,
): Promise<HarnessCompactionOutcome> {
  const { session, settings, strategy, hooks, emit } = dependencies;
  const { reason, signal } = request;
  const branchEntries = compactionBranch(session, request.leafId);
  const contextWindow = dependencies.contextWindow ?? dependencies.model.contextWindow;
  const plan = strategy.prepare(branchEntries, settings, { contextWindow });
  const tokensBefore = plan.tokensBefore;
  await emit({ type: "compaction_start", reason, tokensBefore });
  const finish = async (outcome: HarnessCompactionOutcome): Promise<HarnessCompactionOutcome> => {
    const tokensAfter = outcome.kind === "compacted" ? outcome.tokensAfter : tokensBefore;
    await emit({ type: "compaction_end", reason, outcome, tokensBefore, tokensAfter });
    return outcome;
  };
  if (plan.kind === "nothing_to_compact") {
    return finish({ kind: "nothing_to_compact", reason: plan.reason, tokensBefore });
  }

  const decision = await hooks.first(
    "session_before_compact",
    { reason, preparation: plan, branchEntries, customInstructions: request.instructions, signal },
    (result) => result.cancel === true || result.compaction !== undefined,
  );
  if (decision?.cancel === true) return finish({ kind: "cancelled" });

  let summary: string;
  let firstKeptEntryId: string;
  let tokensAfter: number;
  let details: Record<string, unknown>;
  const custom: CustomCompaction | undefined = decision?.compaction;
  if (custom !== undefined) {
    summary = custom.summary;
    firstKeptEntryId = custom.firstKeptEntryId ?? plan.firstKeptEntryId;
    const freed = plan.summarizedTokens - tokensOfChars(summary.length);
    tokensAfter = Math.max(0, plan.tokensBefore - freed);
    details = {
      readFiles: plan.fileOperations.readFiles,
      modifiedFiles: plan.fileOperations.modifiedFiles,
      covered: plan.covered,
      ...custom.details,
      tokensAfter,
      reason,
    };
  } else {
    try {
      const outcome = await strategy.compact(plan, {
        stream: dependencies.streamFn,
        model: dependencies.model,
        summarizer: dependencies.summarizer,
        signal,
        customInstructions: request.instructions,
        streamOptions: dependencies.streamOptions,
      });
      if (outcome.kind === "aborted") return finish({ kind: "aborted" });
      summary = outcome.summary;
      firstKeptEntryId = outcome.firstKeptEntryId;
      tokensAfter = outcome.tokensAfter;
      const extra: HarnessCompactionDetails = { tokensAfter, reason, usage: outcome.usage };
      details = { ...outcome.details, ...extra };
    } catch (error) {
      return finish({ kind: "failed", message: `Compaction failed: ${describeError(error)}` });
    }
  }
  if (signal.aborted) return finish({ kind: "aborted" });

  let entryId: string;
  const appended: SessionEntry[] = [];
  try {
    if (session.leafId !== request.leafId) appended.push(...session.moveTo(request.leafId).entries);
    const entry = session.appendCompaction({
      summary,
      firstKeptEntryId,
      tokensBefore,
      details,
      fromHook: custom !== undefined ? true : undefined,
    });
    entryId = entry.id;
    appended.push(entry);
  } catch (error) {
    return finish({ kind: "failed", message: `Compaction could not be recorded: ${describeError(error)}` });
  }
  await dependencies.save(appended);
  return finish({
    kind: "compacted",
    entryId,
    summary,
    firstKeptEntryId,
    tokensBefore,
    tokensAfter,
    fromHook: custom !== undefined,
  });
}

/** What the compactor needs from its harness session. Internal. */
export interface CompactorHost {
  readonly runtime: HarnessRuntime;
  readonly session: Session;
  readonly hooks: HookRunner;
  readonly writer: SessionWriter;
  readonly events: SessionEvents;
  /** The model of the next call. */
  model(): Model;
  /** Estimated tokens of what every call sends besides the messages: the system prompt and the tools. */
  overheadTokens(): number;
}

/**
 * The compactions of one harness session: the check before every model call (docs/reference/harness.md),
 * compaction on demand and after an overflow — never two at once. Internal.
 */
export class SessionCompactor {
  private running = false;
  /** After a threshold compaction that could not help: the size the context must pass before the next try. */
  private retryAbove: number | undefined;
  /** Once a call was elided, the provider's usage no longer vouches for the whole transcript. */
  private elidedBefore = false;
  /** Windows stated by overflow errors, per `provider/modelId`. */
  private learned: Map<string, number> | undefined;
  /** The adjustments of the configured settings already warned about (once each per session). */
  private readonly warned = new Set<string>();
  private readonly warningList: string[] = [];

  constructor(private readonly host: CompactorHost) {}

  /** The warnings about settings that cannot work for the model's window (each once). */
  get warnings(): readonly string[] {
    this.settings();
    return this.warningList;
  }

  /**
   * The window the context must fit: the model's, or the smaller one a provider's overflow error stated
   * for this model (recorded as a `custom` entry {@link CONTEXT_WINDOW_ENTRY}, read back on open).
   */
  contextWindow(): number {
    const model = this.host.model();
    const learned = this.learnedWindows().get(windowKey(model));
    return learned !== undefined && learned < model.contextWindow ? learned : model.contextWindow;
  }

  /**
   * After an overflow error that states the limit (`parseContextLimit`): when it is below the window in
   * effect, it becomes the session's window for this model. Returns what to record, or undefined.
   */
  private learnWindow(errorMessage: string): ContextWindowRecord | undefined {
    const limit = parseContextLimit(errorMessage);
    if (limit === undefined || limit >= this.contextWindow()) return undefined;
    const model = this.host.model();
    this.learnedWindows().set(windowKey(model), limit);
    this.retryAbove = undefined;
    return { provider: model.provider, modelId: model.id, contextWindow: limit };
  }

  /** The windows learned so far, per model; read from the session's path at first use. O(path) once. */
  private learnedWindows(): Map<string, number> {
    if (this.learned !== undefined) return this.learned;
    const learned = new Map<string, number>();
    for (const ref of this.host.session.getPath()) {
      if (ref.type !== "custom") continue;
      const entry = ref.entry();
      if (entry?.type !== "custom" || entry.customType !== CONTEXT_WINDOW_ENTRY) continue;
      const data = entry.data as Partial<ContextWindowRecord> | undefined;
      if (typeof data?.contextWindow !== "number" || !(data.contextWindow > 0)) continue;
      learned.set(`${data.provider}/${data.modelId}`, data.contextWindow);
    }
    this.learned = learned;
    return learned;
  }

  /**
   * The compaction settings in effect for the model's window (`effectiveCompactionSettings`): a reserve or a
   * kept tail too large for the window is clamped. A value that cannot work at all — a reserve at or above
   * the window, a kept tail at or above what the reserve leaves — also becomes a warning, once per session.
   */
  settings(): CompactionSettings {
    const window = this.contextWindow();
    const effective = effectiveCompactionSettings(this.host.runtime.settings.compaction, window);
    for (const adjustment of effective.adjustments) {
      if (!cannotWork(adjustment, window, effective.settings) || this.warned.has(adjustment.message))
        continue;
      this.warned.add(adjustment.message);
      this.warningList.push(adjustment.message);
    }
    return effective.settings;
  }

  /**
   * The messages of one model call, fitted to `contextWindow - reserveTokens` less the system prompt and
   * the tools: when they still do not fit
   * after compaction, the largest ones (never the newest user prompt) are elided for this call only, with a
   * marker naming the entry and how to `recall` it (`fitContextToWindow`). The session's entries stay whole.
   */
  fitForCall(messages: AgentMessage[]): AgentMessage[] {
    const budgetTokens = this.contextWindow() - this.settings().reserveTokens - this.host.overheadTokens();
    let lookup: Map<object, string> | undefined;
    const entryIdOf = (message: AgentMessage): string | undefined => {
      const known = this.host.writer.entryIdOf(message);
      if (known !== undefined) return known;
      lookup ??= this.contextEntryIds();
      return lookup.get(message);
    };
    // After an elision or with a learned window, the usage a provider reported does not vouch for the
    // whole transcript: estimate every message.
    const fullEstimate = this.elidedBefore || this.contextWindow() < this.host.model().contextWindow;
    const fit = fitContextToWindow(messages, { budgetTokens, entryIdOf, fullEstimate });
    if (fit.elided.length > 0) this.elidedBefore = true;
    return fit.messages;
  }

  /** The entry id of every message of the session's context (by identity). O(context); elision only. */
  private contextEntryIds(): Map<object, string> {
    const context = this.host.session.buildContext();
    const ids = new Map<object, string>();
    context.messages.forEach((message, index) => {
      const id = context.entryIds[index];
      if (id !== undefined) ids.set(message, id);
    });
    return ids;
  }

  /** True while a compaction runs: the session's phase is then `compaction`. */
  get isRunning(): boolean {
    return this.running;
  }

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
    const settings = this.settings();
    if (!settings.enabled) return undefined;
    const tokens = withPendingMessages(estimateTranscriptTokens(transcript), pending).tokens;
    if (!shouldCompact(tokens, this.contextWindow(), settings)) return undefined;
    if (this.retryAbove !== undefined && tokens <= this.retryAbove) return undefined;
    const outcome = await this.run("threshold", this.host.session.leafId, undefined, signal);
    if (outcome.kind !== "compacted") {
      this.retryAbove = tokens + Math.max(1, Math.floor(settings.keepRecentTokens / 8));
      return undefined;
    }
    return this.host.session.buildContext().messages as AgentMessage[];
  }

  /**
   * Runs one compaction of the branch ending at `leafId` (the session is in phase `compaction` meanwhile), after
   * writing what is pending.
   * A call while another compaction runs resolves to `failed` at once — the phases already forbid it; this is
   * the last guard.
   */
  async run(
    reason: CompactionReason,
    leafId: string | null,
    instructions: string | undefined,
    signal: AbortSignal,
    keepRecentTokens?: number,
  ): Promise<HarnessCompactionOutcome> {
    if (this.running) return { kind: "failed", message: "Another compaction of this session is running." };
    this.running = true;
    const host = this.host;
    try {
      await host.writer.save("operation");
      const dependencies = this.summaryDependencies();
      if (keepRecentTokens !== undefined) {
        dependencies.settings = { ...dependencies.settings, keepRecentTokens };
      }
      const outcome = await runCompaction(
        {
          ...dependencies,
          contextWindow: this.contextWindow(),
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
    }
  }

  /**
   * The compaction after an overflow (reason `overflow`) of the branch ending at `leafId`. A limit the
   * error states below the window in effect becomes the session's window for this model, recorded as a
   * {@link CONTEXT_WINDOW_ENTRY} entry at the next save point. When the compaction finds nothing to compact
   * because the kept tail covers everything (`fits_in_kept_tail`), the tail is halved and the compaction
   * tried again, down to {@link MIN_OVERFLOW_KEEP_TOKENS}, before giving up. `windowLearned` says whether
   * the window shrank: then the next call fits even without a compaction (the check before it elides).
   */
  async compactAfterOverflow(
    leafId: string | null,
    errorMessage: string,
    signal: AbortSignal,
  ): Promise<{ outcome: HarnessCompactionOutcome; windowLearned: boolean }> {
    const learned = this.learnWindow(errorMessage);
    try {
      const outcome = await this.compactWithShrinkingTail(leafId, signal);
      return { outcome, windowLearned: learned !== undefined };
    } finally {
      // Queued after the compaction moved the leaf, so that the record stays on the session's path.
      if (learned !== undefined) {
        this.host.writer.queue({ type: "custom", customType: CONTEXT_WINDOW_ENTRY, data: learned });
      }
    }
  }

  private async compactWithShrinkingTail(
    leafId: string | null,
    signal: AbortSignal,
  ): Promise<HarnessCompactionOutcome> {
    const settings = this.settings();
    const usable = Math.max(0, this.contextWindow() - settings.reserveTokens);
    let keep = Math.min(settings.keepRecentTokens, Math.floor(usable / 2));
    let outcome = await this.run("overflow", leafId, undefined, signal);
    while (
      outcome.kind === "nothing_to_compact" &&
      outcome.reason === "fits_in_kept_tail" &&
      keep > MIN_OVERFLOW_KEEP_TOKENS &&
      !signal.aborted
    ) {
      keep = Math.max(MIN_OVERFLOW_KEEP_TOKENS, Math.floor(keep / 2));
      outcome = await this.run("overflow", leafId, undefined, signal, keep);
    }
    return outcome;
  }

  /** What compaction and branch summaries share: the session, the summarizer, the settings, the hooks. */
  summaryDependencies(): Omit<NavigationDependencies, "signal"> {
    const { runtime, session, hooks, events } = this.host;
    return {
      session,
      model: this.host.model(),
      streamFn: runtime.streamFn,
      summarizer: runtime.summarizer,
      settings: this.settings(),
      hooks,
      streamOptions: runtime.settings.streamOptions,
      emit: (event) => events.emit(event),
    };
  }
}
