import { collectEntriesForBranchSummary, generateBranchSummary } from "@arbor/compaction";
import { type SessionEntry, SessionEntryNotFoundError } from "@arbor/session-store";
import type { SessionContext } from "./session-context.js";

/** Options of `navigateTree()`. */
export interface NavigateTreeOptions {
  /** Summarize the branch being left into a `branch_summary` entry. Default `true`. */
  summarize?: boolean;
  /** A focus for the summary, added to the summarizer's prompt. */
  instructions?: string;
}

/** What `navigateTree()` did. */
export type NavigateTreeResult =
  | {
      kind: "moved";
      /** The new leaf: the target, or the branch summary appended as its child. */
      leafId: string | null;
      /** The `branch_summary` entry, when one was written. */
      summaryEntryId?: string;
      summary?: string;
      /** True when a `session_before_tree` handler supplied the summary. */
      fromHook: boolean;
      /** The entries appended (a `leaf` entry or the `branch_summary`; none when already there). */
      entries: SessionEntry[];
    }
  | { kind: "cancelled" }
  | { kind: "aborted" };

/**
 * Moves the session's leaf to `targetId` (docs/reference/harness.md): the branch being left —
 * from the old leaf back to the deepest entry both paths share — is summarized (unless `summarize` is false
 * or there is nothing to summarize) and the summary becomes a `branch_summary` child of the target, the new
 * leaf; otherwise a `leaf` entry records the move. `session_before_tree` handlers may cancel the move or
 * supply the summary. Nothing is flushed here.
 *
 * Contract: throws `SessionEntryNotFoundError` for an unknown target, before anything happens; a failing
 * summarizer falls back to a deterministic digest (see `generateBranchSummary`); an abort during the summary
 * leaves the session unchanged.
 */
export async function navigateTree(
  context: SessionContext,
  signal: AbortSignal,
  targetId: string | null,
  options: NavigateTreeOptions,
): Promise<NavigateTreeResult> {
  const { session, hooks } = context;
  if (targetId !== null && !session.has(targetId)) throw new SessionEntryNotFoundError(session.id, targetId);
  const oldLeafId = session.leafId;
  if (targetId === oldLeafId) return { kind: "moved", leafId: targetId, fromHook: false, entries: [] };
  const summarize = options.summarize ?? true;
  const { entries, commonAncestorId } = collectEntriesForBranchSummary(session, oldLeafId, targetId);

  const decision = await hooks.first(
    "session_before_tree",
    {
      operation: "navigateTree",
      targetId,
      oldLeafId,
      sourceLeafId: oldLeafId,
      entriesToSummarize: entries,
      commonAncestorId,
      summarize,
      instructions: options.instructions,
      signal,
    },
    (result) => result.cancel === true || result.summary !== undefined,
  );
  if (decision?.cancel === true) return { kind: "cancelled" };
  if (signal.aborted) return { kind: "aborted" };

  let summary: { summary: string; details?: unknown; fromHook: boolean } | undefined;
  if (decision?.summary !== undefined) {
    summary = { ...decision.summary, fromHook: true };
  } else if (summarize && entries.length > 0) {
    const outcome = await summarizeAbandoned(context, signal, entries, options.instructions);
    if (outcome.kind === "aborted" || signal.aborted) return { kind: "aborted" };
    if (outcome.kind === "summarized") {
      summary = {
        summary: outcome.summary,
        details: { ...outcome.details, usage: outcome.usage },
        fromHook: false,
      };
    }
  }

  if (summary === undefined) {
    const moved = session.moveTo(targetId);
    return { kind: "moved", leafId: moved.leafId, fromHook: false, entries: moved.entries };
  }
  const moved = session.moveTo(targetId, {
    summary: summary.summary,
    details: summary.details,
    fromHook: summary.fromHook ? true : undefined,
  });
  const entry = moved.entries[0]!;
  await context.events.emit({
    type: "branch_summary",
    entryId: entry.id,
    summary: summary.summary,
    fromId: targetId ?? "root",
    oldLeafId,
    fromHook: summary.fromHook,
  });
  return {
    kind: "moved",
    leafId: moved.leafId,
    summaryEntryId: entry.id,
    summary: summary.summary,
    fromHook: summary.fromHook,
    entries: moved.entries,
  };
}

/**
 * Summarizes the entries a tree operation leaves (navigation) or brings back (merge), with the session's
 * summarizer and compaction settings. Internal.
 *
 * Contract: never throws for a failing model (`generateBranchSummary` falls back); honours `signal`.
 */
export function summarizeAbandoned(
  context: SessionContext,
  signal: AbortSignal,
  entries: SessionEntry[],
  instructions: string | undefined,
): ReturnType<typeof generateBranchSummary> {
  const { runtime } = context;
  const settings = context.compactionSettings();
  return generateBranchSummary(entries, {
    stream: runtime.streamFn,
    model: context.model,
    summarizer: runtime.summarizer,
    signal,
    reserveTokens: settings.reserveTokens,
    toolResultMaxChars: settings.toolResultMaxChars,
    customInstructions: instructions,
    streamOptions: runtime.settings.streamOptions,
  });
}
