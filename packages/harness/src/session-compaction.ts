import type { AgentMessage } from "@arbor/agent-core";
import { type AssistantMessage, describeError, type Usage } from "@arbor/ai-providers";
import {
  type CompactionPlan,
  type CompactionSettings,
  estimateTokens,
  isTurnStart,
  shouldCompact,
  summaryOutputTokens,
  tokensOfChars,
} from "@arbor/compaction";
import { entryMessage, type SessionEntry, type SessionMessage } from "@arbor/session-store";
import { compactionBranch } from "./compaction-branch.js";
import { fitContextToWindow } from "./context-fit.js";
import { estimateTranscriptTokens, withPendingMessages } from "./context-usage.js";
import type { HarnessCompactionOutcome } from "./events.js";
import type { CompactionReason, CustomCompaction } from "./hooks.js";
import type { SessionContext } from "./session-context.js";
import { PrunedUsage, type PruneOutcome, pruneSession } from "./session-prune.js";
import { CONTEXT_WINDOW_ENTRY } from "./session-window.js";
import { refitToolResults } from "./tool-output-refit.js";

/**
 * Compaction in the harness: the check before every model call, compaction on demand and after an
 * overflow, and one compaction planned, summarized and appended — all in {@link SessionCompactor}. The
 * estimate it checks is `estimateTranscriptTokens` (context-usage.ts); the window it fits is the session's
 * (`SessionWindow`).
 */

/** The smallest kept tail a threshold or overflow compaction halves down to. */
export const MIN_OVERFLOW_KEEP_TOKENS = 64;

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
 * The compactions of one harness session: the check before every model call (docs/reference/harness.md),
 * compaction on demand and after an overflow — never two at once — and the fitting of every call's
 * messages to the window. It never changes the session's phase: `HarnessSession` reports `compaction`
 * while {@link isRunning}. Internal.
 */
export class SessionCompactor {
  private running = false;
  /** After a threshold compaction that could not help: the size the context must pass before the next try. */
  private retryAbove: number | undefined;
  /** Once a call was elided, the provider's usage no longer vouches for the whole transcript. */
  private elidedBefore = false;
  /** The messages of the latest model call, as sent (for the size of a request an overflow refused). */
  private lastCall: readonly AgentMessage[] | undefined;
  /** What prunes freed while the provider's last usage still counts the pruned results whole. */
  private readonly prunedUsage = new PrunedUsage();

  constructor(private readonly context: SessionContext) {}

  /** True while a compaction runs: the session's phase is then `compaction`. */
  get isRunning(): boolean {
    return this.running;
  }

  /** Forgets a failed threshold attempt (the context or the model changed). */
  reset(): void {
    this.retryAbove = undefined;
  }

  /**
   * The messages of one model call, fitted to `contextWindow - reserveTokens` less the system prompt and
   * the tools: when they still do not fit
   * after compaction, the largest ones (never the newest user prompt) are elided for this call only, with a
   * marker naming the entry and how to `recall` it (`fitContextToWindow`). The session's entries stay whole.
   */
  fitForCall(messages: AgentMessage[]): AgentMessage[] {
    const { context } = this;
    const budget = context.budget();
    const contextWindow = budget.contextWindow;
    const budgetTokens = budget.messageTokens;
    let lookup: Map<object, string> | undefined;
    const entryIdOf = (message: AgentMessage): string | undefined => {
      const known = context.writer.entryIdOf(message);
      if (known !== undefined) return known;
      lookup ??= this.contextEntryIds();
      return lookup.get(message);
    };
    // After an elision or with a learned window, the usage a provider reported does not vouch for the
    // whole transcript: estimate every message. With a learned window, the tool results cut for the larger
    // one are cut again to this window's tool-output budget, for this call.
    const learned = contextWindow < context.model.contextWindow;
    const fullEstimate =
      this.elidedBefore ||
      learned ||
      this.prunedUsage.staleTokens(messages, estimateTranscriptTokens(messages)) > 0;
    const sent = learned ? refitToolResults(messages, budget.toolOutputTokens) : messages;
    const fit = fitContextToWindow(sent, { budgetTokens, entryIdOf, fullEstimate });
    if (fit.elided.length > 0) this.elidedBefore = true;
    this.lastCall = fit.messages;
    return fit.messages;
  }

  /** The entry id of every message of the session's context (by identity). O(context); elision only. */
  private contextEntryIds(): Map<object, string> {
    const built = this.context.session.buildContext();
    const ids = new Map<object, string>();
    built.messages.forEach((message, index) => {
      const id = built.entryIds[index];
      if (id !== undefined) ids.set(message, id);
    });
    return ids;
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
    const { context } = this;
    const settings = context.compactionSettings();
    if (!settings.enabled) return undefined;
    // With a learned window the request carries tool results cut to its budget (`fitForCall`): so does the
    // estimate, or a result stored whole would start a compaction that the request does not need.
    const learned = context.contextWindow() < context.model.contextWindow;
    const measured = learned
      ? refitToolResults(transcript as AgentMessage[], context.budget().toolOutputTokens)
      : transcript;
    const own = estimateTranscriptTokens(measured);
    const estimate = withPendingMessages(own, pending);
    // Usage a provider reported counts the system prompt and the tools; chars/4 of the messages does not.
    const fixed = estimate.lastUsageIndex === undefined ? context.overheadTokens() : 0;
    const tokens = estimate.tokens + fixed - this.prunedUsage.staleTokens(measured, own);
    if (!shouldCompact(tokens, context.contextWindow(), settings)) return undefined;
    if (this.retryAbove !== undefined && tokens <= this.retryAbove) return undefined;
    // The cheap layer first: old tool results to stubs. A summary only when that is not enough.
    const pruned = settings.prune === false ? undefined : await this.prune(tokens - own.tokens);
    if (pruned !== undefined && !shouldCompact(pruned.tokensAfter, context.contextWindow(), settings)) {
      return pruned.messages;
    }
    const outcome = await this.run("threshold", context.session.leafId, undefined, signal);
    if (outcome.kind !== "compacted") {
      this.retryAbove = tokens + Math.max(1, Math.floor(settings.keepRecentTokens / 8));
      return undefined;
    }
    return context.session.buildContext().messages as AgentMessage[];
  }

  /**
   * Prunes old tool results (`pruneSession`: stubs that say how to `recall` them, a `prune` entry) and
   * reports it as a `prune` event. Returns what it did, or undefined when there was nothing to prune.
   */
  private async prune(pendingTokens: number): Promise<Extract<PruneOutcome, { kind: "pruned" }> | undefined> {
    const outcome = await pruneSession(this.context, { pendingTokens: Math.max(0, pendingTokens) });
    if (outcome.kind !== "pruned") return undefined;
    this.prunedUsage.record(outcome);
    const results = outcome.count === 1 ? "1 old tool result" : `${outcome.count} old tool results`;
    await this.context.events.emit({
      type: "prune",
      entryId: outcome.entryId,
      count: outcome.count,
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      message:
        `Pruned ${results} from the context (recall brings each back): context about ` +
        `${tokens(outcome.tokensBefore)} → ${tokens(outcome.tokensAfter)} tokens.`,
    });
    return outcome;
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
  ): Promise<HarnessCompactionOutcome> {
    if (this.running) {
      return {
        kind: "failed",
        message: "Compaction not started: another compaction of this session is running.",
      };
    }
    this.running = true;
    try {
      await this.context.writer.save("operation");
      const outcome = await this.compactOnce({ reason, leafId, instructions, signal });
      if (outcome.kind === "compacted") this.retryAbove = undefined;
      return outcome;
    } finally {
      this.running = false;
    }
  }

  /**
   * Recovers from an overflow error of `failed` (reason `overflow`): compacts the branch without the failed
   * response and reloads the transcript. When nothing could be compacted but the error stated a smaller
   * window, the failed response is taken out of the context instead (the next call fits: the check before
   * it elides). Returns false when neither helped.
   */
  async recoverFromOverflow(failed: AssistantMessage, signal: AbortSignal): Promise<boolean> {
    const { context } = this;
    const leafId = context.parentOf(failed);
    const message = failed.errorMessage ?? "";
    const refused = this.refusedRequestTokens();
    const { outcome, windowLearned } = await this.compactAfterOverflow(leafId, message, refused, signal);
    if (outcome.kind === "compacted") {
      context.reloadTranscript();
      return true;
    }
    if (!windowLearned) return false;
    await context.dropFailedResponse(failed);
    return true;
  }

  /**
   * The estimated size of the request an overflow refused: chars/4 of the messages of the latest call as
   * sent, plus the fixed part (system prompt and tools). O(messages), once per overflow; undefined when no
   * call was fitted.
   */
  private refusedRequestTokens(): number | undefined {
    if (this.lastCall === undefined) return undefined;
    let tokens = this.context.overheadTokens();
    for (const message of this.lastCall) tokens += estimateTokens(message as unknown as SessionMessage);
    return tokens;
  }

  /**
   * The compaction after an overflow (reason `overflow`) of the branch ending at `leafId`. A limit the
   * error states below the window in effect (or, when it states none, 90% of the refused request's size,
   * so that the retry is smaller than what was refused) becomes the session's window for this model, recorded as a
   * {@link CONTEXT_WINDOW_ENTRY} entry at the next save point. The compaction is planned for that window
   * (`planToTarget`: the kept tail shrinks until there is something to compact). `windowLearned` says whether
   * the window shrank: then the next call fits even without a compaction (the check before it elides).
   */
  private async compactAfterOverflow(
    leafId: string | null,
    errorMessage: string,
    refusedTokens: number | undefined,
    signal: AbortSignal,
  ): Promise<{ outcome: HarnessCompactionOutcome; windowLearned: boolean }> {
    const { context } = this;
    const learned = context.window.learn(context.model, errorMessage, refusedTokens);
    if (learned !== undefined) this.retryAbove = undefined;
    try {
      const outcome = await this.run("overflow", leafId, undefined, signal);
      return { outcome, windowLearned: learned !== undefined };
    } finally {
      // Queued after the compaction moved the leaf, so that the record stays on the session's path.
      if (learned !== undefined) {
        context.writer.queue({ type: "custom", customType: CONTEXT_WINDOW_ENTRY, data: learned });
      }
    }
  }

  /**
   * The plan of a compaction that must free space (reason `threshold` or `overflow`), aimed at the budget's
   * target (`ContextBudget.targetTokens`, 60% of the window): when the kept tail covers everything
   * (`fits_in_kept_tail`), or the fixed part, the summary's cap and the kept tail would add up to more than
   * the target, the kept tail is halved and the branch planned again — planning calls no model — down to
   * {@link MIN_OVERFLOW_KEEP_TOKENS}. So a context over the threshold is never left with "nothing to compact"
   * while older turns exist. A tail made of one message larger than that stays as it is: the request's
   * elision is the last step for it.
   */
  private planToTarget(
    branchEntries: SessionEntry[],
    settings: CompactionSettings,
    contextWindow: number,
  ): CompactionPlan {
    const { context } = this;
    const { strategy } = context.runtime;
    const budget = context.budget();
    const summarizerModel = context.runtime.summarizer?.model ?? context.model;
    const summaryCap = summaryOutputTokens(summarizerModel, settings.reserveTokens);
    const room = Math.max(0, budget.targetTokens - budget.fixedTokens - summaryCap);
    let keep = settings.keepRecentTokens;
    let plan = strategy.prepare(branchEntries, settings, { contextWindow });
    const tooLarge = (candidate: CompactionPlan) =>
      candidate.kind === "ready" ? candidate.keptTokens > room : candidate.reason === "fits_in_kept_tail";
    while (tooLarge(plan) && keep > MIN_OVERFLOW_KEEP_TOKENS) {
      keep = Math.max(MIN_OVERFLOW_KEEP_TOKENS, Math.min(Math.floor(keep / 2), room));
      const smaller = strategy.prepare(
        branchEntries,
        { ...settings, keepRecentTokens: keep },
        { contextWindow },
      );
      if (plan.kind === "ready" && smaller.kind !== "ready") break;
      plan = smaller;
    }
    // A summary that would replace next to nothing costs calls and frees nothing: the request's own steps
    // (tool results cut to the budget, elision) are what helps then.
    if (
      plan.kind === "ready" &&
      !plan.resummarizesPrevious &&
      plan.summarizedTokens < minimumSummarized(plan.tokensBefore)
    ) {
      return { kind: "nothing_to_compact", reason: "nothing_to_free", tokensBefore: plan.tokensBefore };
    }
    return plan;
  }

  /**
   * Plans, summarizes (or takes a hook's summary) and appends one compaction; emits `compaction_start` and
   * `compaction_end`. The caller guarantees that no other compaction of the session is running.
   *
   * Contract: never throws — a failing strategy or store becomes `{ kind: "failed" }`, an abort
   * `{ kind: "aborted" }`; nothing is appended unless the outcome is `compacted`.
   */
  private async compactOnce(request: CompactionRequest): Promise<HarnessCompactionOutcome> {
    const { context } = this;
    const { session, hooks, events, runtime } = context;
    const { strategy } = runtime;
    const { reason, signal } = request;
    const model = context.model;
    const contextWindow = context.contextWindow();
    const settings = context.compactionSettings();
    const branchEntries = compactionBranch(session, request.leafId);
    let plan: CompactionPlan =
      reason === "manual"
        ? strategy.prepare(branchEntries, settings, { contextWindow })
        : this.planToTarget(branchEntries, settings, contextWindow);
    if (reason === "manual" && plan.kind === "nothing_to_compact" && SHRINKABLE.has(plan.reason)) {
      // Asked for: keep no more than the last turn, so that everything older is compacted.
      const lastTurn = lastTurnTokens(branchEntries);
      if (lastTurn !== undefined && lastTurn < settings.keepRecentTokens) {
        const shrunk = { ...settings, keepRecentTokens: lastTurn };
        plan = strategy.prepare(branchEntries, shrunk, { contextWindow });
      }
    }
    const tokensBefore = plan.tokensBefore;
    await events.emit({ type: "compaction_start", reason, tokensBefore });
    const finish = async (draft: OutcomeDraft): Promise<HarnessCompactionOutcome> => {
      const outcome = { ...draft, message: outcomeMessage(draft, reason, branchEntries) };
      const tokensAfter = outcome.kind === "compacted" ? outcome.tokensAfter : tokensBefore;
      await events.emit({ type: "compaction_end", reason, outcome, tokensBefore, tokensAfter });
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
          stream: runtime.streamFn,
          model,
          summarizer: runtime.summarizer,
          signal,
          customInstructions: request.instructions,
          streamOptions: runtime.settings.streamOptions,
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
    context.writer.track(appended);
    await context.writer.save("operation");
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
}

/**
 * The least a threshold or overflow compaction must summarize to be worth its calls: 5% of the context, at
 * least 100 tokens.
 */
function minimumSummarized(tokensBefore: number): number {
  return Math.max(100, Math.floor(tokensBefore * 0.05));
}

/** A compaction outcome before its plain-words `message`. */
type OutcomeDraft = HarnessCompactionOutcome extends infer Outcome
  ? Outcome extends { message: string }
    ? Omit<Outcome, "message"> & { message?: string }
    : never
  : never;

/** The reasons for nothing to compact that a manual compaction overcomes by keeping only the last turn. */
const SHRINKABLE: ReadonlySet<string> = new Set(["fits_in_kept_tail", "nothing_to_free"]);

/**
 * Estimated tokens of the last turn of a compaction branch — from its last entry that starts a turn (a
 * user message, a custom message, a branch summary) to its end — or undefined when none starts one.
 * A kept tail of this size keeps exactly that turn: the cut lands where it starts, never between a tool
 * call and its result.
 */
function lastTurnTokens(branchEntries: readonly SessionEntry[]): number | undefined {
  let tokens = 0;
  for (let index = branchEntries.length - 1; index >= 0; index--) {
    const entry = branchEntries[index]!;
    const message = entryMessage(entry);
    if (message !== undefined) tokens += estimateTokens(message);
    if (isTurnStart(entry)) return tokens;
  }
  return undefined;
}

/** What a compaction did, in plain words, for front ends to show as is. */
function outcomeMessage(
  outcome: OutcomeDraft,
  reason: CompactionReason,
  branchEntries: readonly SessionEntry[],
): string {
  switch (outcome.kind) {
    case "compacted": {
      const by = outcome.fromHook ? " (the summary came from a session_before_compact hook)" : "";
      return `Compacted the conversation: context about ${tokens(outcome.tokensBefore)} → ${tokens(outcome.tokensAfter)} tokens${by}.`;
    }
    case "nothing_to_compact":
      return nothingToCompactMessage(outcome.reason, reason, branchEntries);
    case "cancelled":
      return "Compaction cancelled by a session_before_compact hook; the session is unchanged.";
    case "aborted":
      return "Compaction aborted; the session is unchanged.";
    case "failed":
      return outcome.message ?? "Compaction failed.";
  }
}

function nothingToCompactMessage(
  why: string,
  reason: CompactionReason,
  branchEntries: readonly SessionEntry[],
): string {
  const compacted = branchEntries.some((entry) => entry.type === "compaction");
  if (why === "empty_branch" || !branchEntries.some((entry) => entryMessage(entry) !== undefined)) {
    return compacted
      ? "Nothing to compact yet: no messages since the last compaction."
      : "Nothing to compact yet: the session has no messages.";
  }
  switch (why) {
    case "no_cut_point":
      return "Nothing to compact: the conversation cannot be cut without separating a tool call from its result.";
    case "fits_in_kept_tail":
    case "nothing_to_free":
      if (reason === "manual") {
        return compacted
          ? "Nothing to compact yet: only the current turn follows the last compaction."
          : "Nothing to compact yet: the session has only one turn.";
      }
      return why === "fits_in_kept_tail"
        ? "Nothing to compact: the conversation fits in the recent part that compaction keeps verbatim (compaction.keepRecentTokens)."
        : "Nothing to compact: the older messages hold nothing to summarize.";
    default:
      return `Nothing to compact (${why}).`;
  }
}

function tokens(count: number): string {
  return Math.round(count).toLocaleString("en-US");
}
