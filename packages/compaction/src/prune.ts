import { prunedToolResult, type SessionEntry, type SessionMessage } from "@arbor/session-store";
import { contextSpan } from "./context-span.js";
import { compactionSummaryMessage, entryMessage } from "./entry-messages.js";
import { contextTokensWith, estimateTokens } from "./token-estimate.js";

/**
 * Pruning (docs/reference/compaction.md, "Pruning"): the cheap step before a summary. Old tool results —
 * the bulk of a coding session's context — are shown as one-line stubs that name their entry and how to
 * `recall` them (`prunedToolResult` of `@arbor/session-store`); a `prune` entry records which, so the
 * context stays reproducible from the session. A summary is needed only when pruning is not enough.
 */

/** The least a tool result must save (its tokens minus its stub's) to be pruned, by default. */
export const DEFAULT_MIN_RESULT_SAVING_TOKENS = 50;

/** The least a prune must free to be worth an entry, by default (see {@link PrunePlanOptions}). */
export const DEFAULT_MIN_FREED_TOKENS = 200;

/** The least share of the target a prune must free to be worth an entry, by default. */
export const DEFAULT_MIN_FREED_SHARE = 0.05;

/** Options of {@link planPrune}. */
export interface PrunePlanOptions {
  /**
   * Tokens of recent history never pruned: the kept tail of a compaction (`keepRecentTokens` of the
   * settings or the context budget). The newest turn (the latest assistant message and what follows it)
   * is never pruned either, whatever this says.
   */
  keepRecentTokens: number;
  /** Prune until the estimated context is at or under this (e.g. the budget's `targetTokens`). */
  targetTokens: number;
  /** Tokens of messages about to be sent that are not on the branch yet (added to the estimate). Default 0. */
  pendingTokens?: number;
  /** The least a result must save to be pruned. Default {@link DEFAULT_MIN_RESULT_SAVING_TOKENS}. */
  minResultSavingTokens?: number;
  /**
   * A prune that frees less than `max(minFreedTokens, minFreedShare × targetTokens)` is not worth an
   * entry. Defaults {@link DEFAULT_MIN_FREED_TOKENS} and {@link DEFAULT_MIN_FREED_SHARE}.
   */
  minFreedTokens?: number;
  /** See `minFreedTokens`. */
  minFreedShare?: number;
}

/** A prune worth appending: the input of `Session.appendPrune`. */
export interface PrunePreparation {
  kind: "ready";
  /** The `message` entries of the tool results to show as stubs, oldest first. */
  entryIds: string[];
  /** The estimated context now (see {@link planPrune}), pending messages included. */
  tokensBefore: number;
  /** The estimated context with the stubs: `tokensBefore - freedTokens`. */
  tokensAfter: number;
  /** Estimated tokens the stubs free. */
  freedTokens: number;
}

/** Why there is nothing to prune. */
export interface NothingToPrune {
  kind: "nothing_to_prune";
  /**
   * `empty_branch`: no entries; `under_target`: the context is at or under the target already;
   * `no_candidates`: no tool result outside the kept tail is large enough and not pruned yet;
   * `too_little`: what could be pruned frees less than the minimum worth an entry.
   */
  reason: "empty_branch" | "under_target" | "no_candidates" | "too_little";
  /** The estimated context now. */
  tokensBefore: number;
  /** What the candidates would have freed (0 unless `too_little`). */
  freedTokens: number;
}

/** What {@link planPrune} returns. */
export type PrunePlan = PrunePreparation | NothingToPrune;

/** A context message of the branch and what pruning it would save. */
interface Slot {
  /** Index in the branch. */
  index: number;
  tokens: number;
  /** For a tool result not pruned yet: its tokens minus its stub's. */
  saving: number;
}

/**
 * Plans a prune of a branch (docs/reference/compaction.md, "Pruning"): pure, no model call, no write.
 *
 * 1. The context is the one the branch builds: the latest compaction's summary, its kept part and what
 *    follows; tool results that `prune` entries of that span named are already stubs. Results before the
 *    kept part (the summary replaced them) are never pruned, nor results pruned already.
 * 2. `tokensBefore` is `estimateContextTokens` of that context, plus `pendingTokens`. When the estimate is
 *    anchored on a provider's usage reported before a prune, that usage counted the pruned results whole:
 *    what those stubs free is subtracted, so the estimate after a prune is the plan's `tokensAfter`.
 * 3. Protected: the kept tail — walking back from the newest message until `keepRecentTokens` are reached,
 *    that message included — and the newest turn: the latest assistant message, the tool results that
 *    answer it and what follows (a turn as the agent loop counts them, one model call; a long tool loop
 *    after one prompt is many turns, so its older results can be pruned). Nothing there is pruned.
 * 4. Candidates: the tool results before the protected part whose stub saves at least
 *    `minResultSavingTokens`. They are pruned oldest first until the context is at or under `targetTokens`
 *    or none is left.
 * 5. Nothing is pruned when the context is under the target already, or when the prune would free less
 *    than `max(minFreedTokens, minFreedShare × targetTokens)` (not worth an entry).
 *
 * A second plan after appending the first (same options) prunes nothing new: either the target is met,
 * or every candidate was pruned and the protected part is the same.
 *
 * @param branchEntries the path from the root (or from the latest compaction's kept part) to the leaf,
 *   oldest first (`session.getBranch()`, or the harness's `compactionBranch`).
 *
 * Contract: pure; O(branch length) time and memory; estimates stubs with `prunedToolResult`, so the plan
 * agrees with the context `Session.buildContext()` builds after `appendPrune`; never throws for entries of
 * known types (unknown ones are ignored).
 */
export function planPrune(branchEntries: readonly SessionEntry[], options: PrunePlanOptions): PrunePlan {
  const end = branchEntries.length;
  const pending = Math.max(0, options.pendingTokens ?? 0);
  if (end === 0)
    return { kind: "nothing_to_prune", reason: "empty_branch", tokensBefore: pending, freedTokens: 0 };

  // 1. The span of the context: the latest compaction's kept part (or the root) to the leaf.
  const { previous, regionStart } = contextSpan(branchEntries);

  // The first prune of the span naming each entry before it (as `buildContext` applies them).
  const seen = new Map<string, number>();
  const prunedAt = new Map<number, number>();
  for (let index = regionStart; index < end; index++) {
    const entry = branchEntries[index]!;
    if (entry.type === "message") seen.set(entry.id, index);
    else if (entry.type === "prune" && Array.isArray(entry.entryIds)) {
      for (const id of entry.entryIds) {
        const named = seen.get(id);
        if (named !== undefined && !prunedAt.has(named)) prunedAt.set(named, index);
      }
    }
  }

  // The context as built, each message estimated once.
  const context: SessionMessage[] = [];
  const contextTokens: number[] = [];
  const slots: (Slot | undefined)[] = [];
  /** For stubs: what they saved, to correct a usage reported before their prune. */
  const stubSavings = new Map<number, number>();
  if (previous !== undefined) {
    const summary = compactionSummaryMessage(previous);
    context.push(summary);
    contextTokens.push(estimateTokens(summary));
    slots.push(undefined);
  }
  for (let index = regionStart; index < end; index++) {
    const entry = branchEntries[index]!;
    const message = entryMessage(entry);
    if (message === undefined) continue;
    let shown = message;
    let saving = 0;
    if (message.role === "toolResult") {
      const stub = prunedToolResult(message, entry.id);
      const stubTokens = estimateTokens(stub);
      const wholeTokens = estimateTokens(message);
      if (prunedAt.has(index)) {
        shown = stub;
        stubSavings.set(index, wholeTokens - stubTokens);
      } else saving = wholeTokens - stubTokens;
    }
    const tokens = estimateTokens(shown);
    context.push(shown);
    contextTokens.push(tokens);
    slots.push({ index, tokens, saving });
  }

  // 2. The estimate now, corrected for stubs a usage anchor predates.
  const estimate = contextTokensWith(context, (_message, position) => contextTokens[position]!);
  let stale = 0;
  const anchor = estimate.lastUsageIndex === undefined ? undefined : slots[estimate.lastUsageIndex]?.index;
  if (anchor !== undefined) {
    for (const [index, saving] of stubSavings) {
      if (index < anchor && prunedAt.get(index)! > anchor) stale += saving;
    }
  }
  const tokensBefore = Math.max(0, estimate.tokens - stale) + pending;
  if (tokensBefore <= options.targetTokens) {
    return { kind: "nothing_to_prune", reason: "under_target", tokensBefore, freedTokens: 0 };
  }

  // 3. The protected part: the kept tail and the newest turn.
  let protectedFrom = end;
  let accumulated = 0;
  const keep = Math.max(0, options.keepRecentTokens);
  for (let position = slots.length - 1; position >= 0; position--) {
    const slot = slots[position];
    if (slot === undefined) break;
    accumulated += slot.tokens;
    protectedFrom = slot.index;
    if (accumulated >= keep) break;
  }
  let newestTurn = regionStart;
  for (let position = slots.length - 1; position >= 0; position--) {
    const slot = slots[position];
    if (slot !== undefined && context[position]!.role === "assistant") {
      newestTurn = slot.index;
      break;
    }
  }
  protectedFrom = Math.min(protectedFrom, newestTurn);

  // 4. Oldest first, until the target is met.
  const minSaving = Math.max(1, options.minResultSavingTokens ?? DEFAULT_MIN_RESULT_SAVING_TOKENS);
  const entryIds: string[] = [];
  let freed = 0;
  for (const slot of slots) {
    if (slot === undefined || slot.saving < minSaving) continue;
    if (slot.index >= protectedFrom || tokensBefore - freed <= options.targetTokens) break;
    entryIds.push(branchEntries[slot.index]!.id);
    freed += slot.saving;
  }
  if (entryIds.length === 0) {
    return { kind: "nothing_to_prune", reason: "no_candidates", tokensBefore, freedTokens: 0 };
  }

  // 5. Worth an entry?
  const share = options.minFreedShare ?? DEFAULT_MIN_FREED_SHARE;
  const minimum = Math.max(options.minFreedTokens ?? DEFAULT_MIN_FREED_TOKENS, share * options.targetTokens);
  if (freed < minimum) {
    return { kind: "nothing_to_prune", reason: "too_little", tokensBefore, freedTokens: freed };
  }
  return { kind: "ready", entryIds, tokensBefore, tokensAfter: tokensBefore - freed, freedTokens: freed };
}
