import {
  collectEntriesForBranchSummary,
  deterministicMergeSummary,
  formatMergeSummary,
} from "@arbor/compaction";
import { type SessionEntry, SessionEntryNotFoundError } from "@arbor/session-store";
import { summarizeAbandoned } from "./branch-navigation.js";
import { InvalidMergeError } from "./errors.js";
import type { SessionContext } from "./session-context.js";

/** Options of `mergeBranch()`. */
export interface MergeBranchOptions {
  /** The entry of the branch that receives the summary: the session continues from the merge after it. */
  into: string;
  /**
   * Summarize the merged branch with the summarizer (default `true`); `false`: a deterministic digest (its
   * last assistant text and its file operations), which needs no model.
   */
  summarize?: boolean;
  /** A note put first in the summary, like a merge commit's message. */
  message?: string;
  /** A focus for the model's summary, added to the summarizer's prompt. */
  instructions?: string;
}

/** What a merge records in its `branch_summary` entry's `details.merge`. */
export interface MergeDetails {
  sourceLeafId: string;
  targetLeafId: string;
  commonAncestorId: string | null;
  /** Entries of the merged branch (after the common ancestor). */
  entries: number;
  /** `model`: summarized by the summarizer; `deterministic`: the digest without one; `hook`: a handler's. */
  summarizedBy: "model" | "deterministic" | "hook";
}

/** What `mergeBranch()` did. */
export type MergeBranchResult =
  | {
      kind: "merged";
      /** The `branch_summary` entry (the session's new leaf, a child of `into`). */
      entryId: string;
      /** Its text: the heading, the message, then the summary. */
      summary: string;
      merge: MergeDetails;
      /** Set when the summarizer failed and its deterministic fallback was used: the failure. */
      fallback?: string;
      /** The entries appended (a `leaf` entry when the leaf had to move to `into`, then the summary). */
      entries: SessionEntry[];
    }
  | { kind: "cancelled" }
  | { kind: "aborted" };

/**
 * Folds the branch ending at `sourceLeafId` into the branch of `options.into`: the entries of the merged
 * branch (after the deepest entry both share) are summarized — by a `session_before_tree` handler
 * (`operation: "mergeBranch"`), the summarizer, or deterministically — and the summary is appended as a
 * `branch_summary` child of `into` whose `fromId` is `sourceLeafId`; the leaf moves there first when it is
 * elsewhere (a `leaf` entry). Emits `branch_summary`. Nothing is flushed here.
 *
 * Contract: throws `SessionEntryNotFoundError` for an unknown entry and `InvalidMergeError` when there is
 * nothing to fold in (the same entry, or a branch already on the target's path), before anything happens;
 * a failing summarizer falls back to a deterministic digest; an abort leaves the session unchanged.
 */
export async function mergeBranch(
  context: SessionContext,
  signal: AbortSignal,
  sourceLeafId: string,
  options: MergeBranchOptions,
): Promise<MergeBranchResult> {
  const { session, hooks } = context;
  const into = options.into;
  for (const id of [sourceLeafId, into]) {
    if (!session.has(id)) throw new SessionEntryNotFoundError(session.id, id);
  }
  if (sourceLeafId === into) {
    throw new InvalidMergeError(
      sourceLeafId,
      into,
      `The branch and the target are the same entry (${into}).`,
    );
  }
  const { entries, commonAncestorId } = collectEntriesForBranchSummary(session, sourceLeafId, into);
  if (entries.length === 0) {
    throw new InvalidMergeError(
      sourceLeafId,
      into,
      `Nothing to merge: ${sourceLeafId} is on the branch to ${into}, which already holds it.`,
    );
  }
  const summarize = options.summarize ?? true;
  const oldLeafId = session.leafId;
  const decision = await hooks.first(
    "session_before_tree",
    {
      operation: "mergeBranch",
      targetId: into,
      oldLeafId,
      sourceLeafId,
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

  let body: string | undefined;
  let details: Record<string, unknown> = {};
  let summarizedBy: MergeDetails["summarizedBy"] = "deterministic";
  let fallback: string | undefined;
  if (decision?.summary !== undefined) {
    body = decision.summary.summary;
    details = { ...decision.summary.details };
    summarizedBy = "hook";
  } else if (summarize) {
    const outcome = await summarizeAbandoned(context, signal, entries, options.instructions);
    if (outcome.kind === "aborted" || signal.aborted) return { kind: "aborted" };
    if (outcome.kind === "summarized") {
      body = outcome.summary;
      details = { ...outcome.details, usage: outcome.usage };
      summarizedBy = "model";
      fallback = outcome.details.fallback?.message;
    }
  }
  const merge: MergeDetails = {
    sourceLeafId,
    targetLeafId: into,
    commonAncestorId,
    entries: entries.length,
    summarizedBy,
  };
  const summary = formatMergeSummary({
    sourceLeafId,
    commonAncestorId,
    message: options.message,
    body: body ?? deterministicMergeSummary(entries, sourceLeafId),
  });
  const appended: SessionEntry[] = [];
  if (session.leafId !== into) appended.push(...session.moveTo(into).entries);
  const entry = session.appendBranchSummary({
    fromId: sourceLeafId,
    summary,
    details: { ...details, merge },
    fromHook: summarizedBy === "hook" ? true : undefined,
  });
  appended.push(entry);
  await context.events.emit({
    type: "branch_summary",
    entryId: entry.id,
    summary,
    fromId: sourceLeafId,
    oldLeafId,
    fromHook: summarizedBy === "hook",
  });
  const result: MergeBranchResult = { kind: "merged", entryId: entry.id, summary, merge, entries: appended };
  if (fallback !== undefined) result.fallback = fallback;
  return result;
}
