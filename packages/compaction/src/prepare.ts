import type { CompactionEntry, SessionEntry, SessionMessage } from "@arbor/session-store";
import { contextSpan } from "./context-span.js";
import { findCutPoint } from "./cut-point.js";
import type { CoveredSpan } from "./details.js";
import { compactionSummaryMessage, entryMessage } from "./entry-messages.js";
import { type FileOperations, FileOperationTracker } from "./file-operations.js";
import type { CompactionSettings } from "./settings.js";
import { contextTokensWith, estimateTokens } from "./token-estimate.js";

/** A compaction plan that can be summarized: the input of `compact()`. */
export interface CompactionPreparation {
  kind: "ready";
  /** The first entry kept verbatim: the new compaction entry's `firstKeptEntryId`. */
  firstKeptEntryId: string;
  /** Its index in the branch given to {@link prepareCompaction}. */
  firstKeptEntryIndex: number;
  /** The history to summarize: from the previous compaction's kept part up to the cut (or the split turn). */
  messagesToSummarize: SessionMessage[];
  /** When the cut splits a turn: the turn's beginning, summarized separately as turn context. */
  turnPrefixMessages: SessionMessage[];
  /** The messages kept verbatim (the retained tail), oldest first. */
  keptMessages: SessionMessage[];
  /** True when the cut falls inside a turn (see `findCutPoint`). */
  isSplitTurn: boolean;
  /** The latest compaction's summary on the branch: the new summary updates it. */
  previousSummary?: string;
  /** The latest compaction's entry id. */
  previousCompactionId?: string;
  /** Files read and modified: the previous compaction's lists plus the summarized messages' tool calls. */
  fileOperations: FileOperations;
  /** The estimated context size now (`estimateContextTokens` over the context the branch builds). */
  tokensBefore: number;
  /** Estimated tokens the summary replaces: the previous summary, the history and the turn prefix. */
  summarizedTokens: number;
  /** Estimated tokens of the kept messages. */
  keptTokens: number;
  /** The tail budget used: `settings.keepRecentTokens`, limited by the context window when one was given. */
  keepRecentTokens: number;
  /** The entries this compaction summarizes that no earlier summary covered. */
  covered: CoveredSpan;
  /** The settings the plan was made with. */
  settings: CompactionSettings;
  /**
   * True when nothing new is summarized but the previous summary is over budget (longer than
   * `summaryCapTokens`): `compact()` summarizes that summary again, bounded, and keeps every message
   * (`messagesToSummarize` and `turnPrefixMessages` are empty, `covered` is an empty span at the previous
   * compaction).
   */
  resummarizesPrevious?: boolean;
}

/** Why there is nothing to compact. */
export interface NothingToCompact {
  kind: "nothing_to_compact";
  /**
   * `empty_branch`: no entries; `no_cut_point`: no entry may start a kept part; `fits_in_kept_tail`: all
   * the history since the last compaction fits in the tail budget; `nothing_to_free`: what would be
   * summarized weighs no tokens.
   */
  reason: "empty_branch" | "no_cut_point" | "fits_in_kept_tail" | "nothing_to_free";
  /** The estimated context size now. */
  tokensBefore: number;
}

/** What {@link prepareCompaction} returns. */
export type CompactionPlan = CompactionPreparation | NothingToCompact;

/** Options of {@link prepareCompaction}. */
export interface PrepareCompactionOptions {
  /**
   * The context window of the session's model. When given, the kept tail is limited to half of
   * `contextWindow - reserveTokens`, so that compaction frees space even for a model whose window is small
   * next to `keepRecentTokens` (a 32,000-token model keeps at most 7,808 tokens with the defaults).
   */
  contextWindow?: number;
  /**
   * The longest summary worth keeping as is, in tokens: a previous summary longer than this is summarized
   * again even when no new history is (see `CompactionPreparation.resummarizesPrevious`). Default: the
   * output cap `compact()` holds summaries to, `0.8 × reserveTokens` (pass `summaryOutputTokens(model,
   * reserveTokens)` for a summarizer whose `maxTokens` or window is smaller).
   */
  summaryCapTokens?: number;
}

/**
 * Plans a compaction of a branch (docs/reference/compaction.md): pure, no model call, no write.
 *
 * 1. The latest compaction on the branch gives the previous summary; the history to consider starts at
 *    its `firstKeptEntryId` (its kept part is in the context, so it may be summarized now) or after it.
 * 2. `findCutPoint` keeps about `keepRecentTokens` of the most recent history; what lies before the cut
 *    is summarized — the beginning of a split turn separately, as the turn prefix.
 * 3. Files read and modified: the previous compaction's `details` lists plus the `read` / `write` / `edit`
 *    tool calls of the summarized messages (calls whose result was an error are skipped).
 * 4. `tokensBefore` is `estimateContextTokens` of the context the branch builds (previous summary, kept
 *    part, what follows); usage reported before the previous compaction is ignored.
 *
 * @param branchEntries the path from the root to the leaf, oldest first (`session.getBranch()`).
 * @returns a plan for `compact()`, or `{ kind: "nothing_to_compact", reason }`.
 *
 * Contract: pure; O(branch length); never throws for entries of known types (unknown ones are ignored).
 */
export function prepareCompaction(
  branchEntries: readonly SessionEntry[],
  settings: CompactionSettings,
  options: PrepareCompactionOptions = {},
): CompactionPlan {
  const end = branchEntries.length;
  if (end === 0) return { kind: "nothing_to_compact", reason: "empty_branch", tokensBefore: 0 };

  const { previous, regionStart } = contextSpan(branchEntries);

  // Each message is estimated once: for tokensBefore and for what the summary replaces.
  const messages: (SessionMessage | undefined)[] = new Array(end);
  const tokens = new Float64Array(end);
  const context: SessionMessage[] = [];
  const contextTokens: number[] = [];
  const previousMessage = previous === undefined ? undefined : compactionSummaryMessage(previous);
  if (previousMessage !== undefined) {
    context.push(previousMessage);
    contextTokens.push(estimateTokens(previousMessage));
  }
  for (let index = regionStart; index < end; index++) {
    const message = entryMessage(branchEntries[index]!);
    if (message === undefined) continue;
    messages[index] = message;
    tokens[index] = estimateTokens(message);
    context.push(message);
    contextTokens.push(tokens[index]!);
  }
  const tokensBefore = contextTokensWith(context, (_message, index) => contextTokens[index]!).tokens;

  const keepRecentTokens = effectiveKeepRecentTokens(settings, options.contextWindow);
  const cut = findCutPoint(branchEntries, regionStart, end, keepRecentTokens);
  const previousTokens = previousMessage === undefined ? 0 : contextTokens[0]!;
  const summaryCap = options.summaryCapTokens ?? Math.floor(0.8 * settings.reserveTokens);
  const overBudget = previous !== undefined && previousTokens > Math.max(1, summaryCap);
  const resummary = (): CompactionPreparation => {
    const kept = cut.firstKeptEntryIndex >= 0 ? cut.firstKeptEntryIndex : -1;
    const firstKept = kept >= 0 ? branchEntries[kept]!.id : previous!.firstKeptEntryId;
    return {
      kind: "ready",
      firstKeptEntryId: firstKept,
      firstKeptEntryIndex: kept >= 0 ? kept : regionStart,
      messagesToSummarize: [],
      turnPrefixMessages: [],
      keptMessages: context.slice(1),
      isSplitTurn: false,
      previousSummary: previous!.summary,
      previousCompactionId: previous!.id,
      fileOperations: previousFiles(previous!),
      tokensBefore,
      summarizedTokens: previousTokens,
      keptTokens: tokensBefore - previousTokens,
      keepRecentTokens,
      covered: { firstEntryId: previous!.id, lastEntryId: previous!.id, entryCount: 0 },
      settings,
      resummarizesPrevious: true,
    };
  };
  if (cut.firstKeptEntryIndex < 0) {
    if (overBudget) return resummary();
    return { kind: "nothing_to_compact", reason: "no_cut_point", tokensBefore };
  }
  const cutIndex = cut.firstKeptEntryIndex;
  const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cutIndex;

  const messagesToSummarize: SessionMessage[] = [];
  const turnPrefixMessages: SessionMessage[] = [];
  const keptMessages: SessionMessage[] = [];
  const failedCallIds = new Set<string>();
  let firstCoveredId: string | undefined;
  let lastCoveredId: string | undefined;
  let coveredCount = 0;
  let newTokens = 0;
  for (let index = regionStart; index < end; index++) {
    const message = messages[index];
    if (message === undefined) continue;
    if (index >= cutIndex) {
      keptMessages.push(message);
      continue;
    }
    if (index < historyEnd) messagesToSummarize.push(message);
    else turnPrefixMessages.push(message);
    if (message.role === "toolResult" && message.isError) failedCallIds.add(message.toolCallId);
    newTokens += tokens[index]!;
    firstCoveredId ??= branchEntries[index]!.id;
    lastCoveredId = branchEntries[index]!.id;
    coveredCount++;
  }
  if (firstCoveredId === undefined || lastCoveredId === undefined) {
    if (overBudget) return resummary();
    return { kind: "nothing_to_compact", reason: "fits_in_kept_tail", tokensBefore };
  }
  if (newTokens === 0) {
    if (overBudget) return resummary();
    return { kind: "nothing_to_compact", reason: "nothing_to_free", tokensBefore };
  }

  const files = new FileOperationTracker();
  if (previous !== undefined) files.addDetails(previous.details);
  for (const message of messagesToSummarize) files.addMessage(message, failedCallIds);
  for (const message of turnPrefixMessages) files.addMessage(message, failedCallIds);

  const preparation: CompactionPreparation = {
    kind: "ready",
    firstKeptEntryId: branchEntries[cutIndex]!.id,
    firstKeptEntryIndex: cutIndex,
    messagesToSummarize,
    turnPrefixMessages,
    keptMessages,
    isSplitTurn: cut.isSplitTurn,
    fileOperations: files.result(),
    tokensBefore,
    summarizedTokens: newTokens + previousTokens,
    keptTokens: cut.keptTokens,
    keepRecentTokens,
    covered: { firstEntryId: firstCoveredId, lastEntryId: lastCoveredId, entryCount: coveredCount },
    settings,
  };
  if (previous !== undefined) {
    preparation.previousSummary = previous.summary;
    preparation.previousCompactionId = previous.id;
  }
  return preparation;
}

function previousFiles(previous: CompactionEntry): FileOperations {
  const files = new FileOperationTracker();
  files.addDetails(previous.details);
  return files.result();
}

/** The tail budget: `keepRecentTokens`, at most half of `contextWindow - reserveTokens` when a window is known. */
export function effectiveKeepRecentTokens(
  settings: Pick<CompactionSettings, "keepRecentTokens" | "reserveTokens">,
  contextWindow?: number,
): number {
  if (contextWindow === undefined || !Number.isFinite(contextWindow) || contextWindow <= 0) {
    return settings.keepRecentTokens;
  }
  const usable = Math.max(0, contextWindow - settings.reserveTokens);
  return Math.min(settings.keepRecentTokens, Math.floor(usable / 2));
}
