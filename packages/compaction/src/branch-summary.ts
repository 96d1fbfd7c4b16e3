import {
  addUsage,
  emptyUsage,
  type Model,
  type StreamFn,
  type StreamOptions,
  type Usage,
} from "@arbor/ai-providers";
import type { SessionEntry, SessionMessage } from "@arbor/session-store";
import type { BranchSummaryDetails } from "./details.js";
import { entryMessage } from "./entry-messages.js";
import { fallbackDigest } from "./fallback.js";
import { FileOperationTracker } from "./file-operations.js";
import { serializeMessage } from "./serialize.js";
import { DEFAULT_COMPACTION_SETTINGS, DEFAULT_SUMMARIZER_TIMEOUT_MS } from "./settings.js";
import {
  conversationBudgetChars,
  type SummarizerTarget,
  signalFired,
  summarize,
  summaryOutputTokens,
} from "./summarizer.js";
import { fitSummary } from "./summary-fit.js";
import { CHARS_PER_TOKEN } from "./token-estimate.js";

/**
 * Branch summarization (docs/reference/compaction.md): when the user goes back to an earlier entry, the branch left
 * behind — from the old leaf back to the common ancestor — is summarized into the text of a
 * `branch_summary` entry, so the new branch keeps what was tried and learned there.
 */

/** Anything that finds an entry by id — a `Session` does. */
export interface EntryLookup {
  /**
   * The entry with this id.
   *
   * Contract: returns undefined for an unknown (or unreadable) id; never throws.
   */
  getEntry(entryId: string): SessionEntry | undefined;
}

/** What {@link collectEntriesForBranchSummary} returns. */
export interface BranchEntries {
  /** The entries of the branch left behind, oldest first: from below the common ancestor to the old leaf. */
  entries: SessionEntry[];
  /** The deepest entry on both paths; null when they share none (or the target is the root, `null`). */
  commonAncestorId: string | null;
}

/**
 * The entries to summarize when the leaf moves from `oldLeafId` to `targetId` (`null`: before the first
 * entry): the path from the old leaf back to, not including, the deepest entry that is also on the
 * target's path. Empty when the old leaf is on the target's path (moving forward, or staying).
 *
 * @param source a `Session` (or any {@link EntryLookup}), or the session's entries as an array.
 *
 * Contract: pure; O(depth of the two positions) for a lookup (plus O(entries) to index an array); stops at
 * a missing parent or a cycle instead of throwing.
 */
export function collectEntriesForBranchSummary(
  source: EntryLookup | readonly SessionEntry[],
  oldLeafId: string | null,
  targetId: string | null,
): BranchEntries {
  const lookup = Array.isArray(source)
    ? indexEntries(source as readonly SessionEntry[])
    : (source as EntryLookup);
  if (oldLeafId === null) return { entries: [], commonAncestorId: null };

  const targetPath = new Set<string>();
  for (let id: string | null = targetId; id !== null && !targetPath.has(id); ) {
    targetPath.add(id);
    id = lookup.getEntry(id)?.parentId ?? null;
  }

  const entries: SessionEntry[] = [];
  const seen = new Set<string>();
  let current: string | null = oldLeafId;
  while (current !== null && !targetPath.has(current) && !seen.has(current)) {
    seen.add(current);
    const entry = lookup.getEntry(current);
    if (entry === undefined) break;
    entries.push(entry);
    current = entry.parentId;
  }
  entries.reverse();
  return { entries, commonAncestorId: current !== null && targetPath.has(current) ? current : null };
}

function indexEntries(entries: readonly SessionEntry[]): EntryLookup {
  const byId = new Map<string, SessionEntry>();
  for (const entry of entries) byId.set(entry.id, entry);
  return { getEntry: (entryId) => byId.get(entryId) };
}

/** Options of {@link generateBranchSummary}. */
export interface GenerateBranchSummaryOptions {
  /** Streams from the session's model (the summarizer unless `summarizer` is given). */
  stream: StreamFn;
  /** The session's model. */
  model: Model;
  /** A separate model for summaries (see `CompactOptions.summarizer`). */
  summarizer?: SummarizerTarget;
  signal?: AbortSignal;
  /** Tokens reserved for the summary; its output is capped at 0.8 × this. Default 16,384. */
  reserveTokens?: number;
  /** Longest tool result shown to the summarizer, in characters. Default 2,000. */
  toolResultMaxChars?: number;
  /**
   * Most summarizer calls to spend: a branch larger than this many calls can carry loses its oldest
   * messages (the newest matter most when coming back). Default 4.
   */
  maxCalls?: number;
  /**
   * Longest wait for one summarizer call, in milliseconds, before the fallback is used (0: no limit).
   * Default 300,000 (`DEFAULT_SUMMARIZER_TIMEOUT_MS`).
   */
  timeoutMs?: number;
  /** Replaces nothing: a focus added to the prompt. */
  customInstructions?: string;
  streamOptions?: Omit<StreamOptions, "signal" | "maxTokens">;
}

/** A branch summary: the `summary` and `details` of the `branch_summary` entry the harness appends. */
export interface BranchSummaryResult {
  kind: "summarized";
  summary: string;
  details: BranchSummaryDetails;
  usage: Usage;
}

/** What {@link generateBranchSummary} resolves to: a summary, nothing to summarize, or aborted. */
export type BranchSummaryOutcome =
  | BranchSummaryResult
  | { kind: "empty" }
  | { kind: "aborted"; message: string; usage: Usage };

/**
 * The messages of a branch's entries. A compaction inside the branch contributes nothing: its summary
 * stands for entries before it on its path — those of the abandoned branch are in `entries` themselves,
 * and the others are still on the path the user goes back to, so its text (and its file lists) would
 * describe work that is not abandoned.
 */
function branchMessages(
  entries: readonly SessionEntry[],
): { message: SessionMessage; entry: SessionEntry }[] {
  const messages: { message: SessionMessage; entry: SessionEntry }[] = [];
  for (const entry of entries) {
    if (entry.type === "compaction") continue;
    const message = entryMessage(entry);
    if (message !== undefined) messages.push({ message, entry });
  }
  return messages;
}

/**
 * Summarizes the entries of an abandoned branch (from {@link collectEntriesForBranchSummary}) with the
 * branch prompt, bounded like `compact()`: every call fits the summarizer's window, a long branch is
 * summarized in chunks (at most `maxCalls`; the oldest messages beyond them are left out and counted in
 * `details.omittedMessages`), and a failing model gives the deterministic fallback. Only what is abandoned
 * is summarized: a compaction inside the branch is skipped (its summary covers entries still on the new
 * path; the abandoned ones it covers are summarized from the entries themselves). File lists: the tool
 * calls of the branch plus those of the branch summaries inside it; appended to the text as in compaction.
 * The summary is at most the output cap and never cut: one over it is replaced whole, as in `compact()`
 * (`fitSummary`: file lists counted, a shorter summary asked for, the digest last).
 *
 * Contract: never throws for provider failures; resolves to `{ kind: "empty" }` when the entries hold no
 * message, `{ kind: "aborted" }` when `signal` fires.
 */
export async function generateBranchSummary(
  entries: readonly SessionEntry[],
  options: GenerateBranchSummaryOptions,
): Promise<BranchSummaryOutcome> {
  const target: SummarizerTarget = options.summarizer ?? { model: options.model, stream: options.stream };
  const reserveTokens = options.reserveTokens ?? DEFAULT_COMPACTION_SETTINGS.reserveTokens;
  const toolResultMaxChars = options.toolResultMaxChars ?? DEFAULT_COMPACTION_SETTINGS.toolResultMaxChars;
  const maxCalls = Math.max(1, Math.floor(options.maxCalls ?? 4));

  const all = branchMessages(entries);
  if (all.length === 0) return { kind: "empty" };

  const failedCallIds = new Set<string>();
  for (const { message } of all) {
    if (message.role === "toolResult" && message.isError) failedCallIds.add(message.toolCallId);
  }
  const files = new FileOperationTracker();
  for (const { entry, message } of all) {
    if (entry.type === "branch_summary") files.addDetails(entry.details);
    files.addMessage(message, failedCallIds);
  }

  const maxOutputTokens = summaryOutputTokens(target.model, reserveTokens);
  const budget =
    maxCalls * conversationBudgetChars(target.model, maxOutputTokens, "branch", options.customInstructions);
  let first = all.length;
  let used = 0;
  while (first > 0) {
    const text = serializeMessage(all[first - 1]!.message, { toolResultMaxChars });
    const cost = text === undefined ? 0 : text.length + 2;
    if (used + cost > budget && first < all.length) break;
    used += cost;
    first--;
  }
  const selected = all.slice(first).map(({ message }) => message);

  const common = {
    target,
    signal: options.signal,
    customInstructions: options.customInstructions,
    toolResultMaxChars,
    streamOptions: options.streamOptions,
    timeoutMs: options.timeoutMs ?? DEFAULT_SUMMARIZER_TIMEOUT_MS,
  };
  const outcome = await summarize({ kind: "branch", messages: selected, maxOutputTokens, ...common });
  if (outcome.aborted || signalFired(options.signal)) {
    return {
      kind: "aborted",
      message: "Branch summarization was aborted by the caller's signal.",
      usage: outcome.usage,
    };
  }
  if (outcome.text === "") return { kind: "empty" };

  const operations = files.result();
  const omitted = first;
  const note =
    omitted > 0 ? `\n\n(The ${omitted} oldest messages of the branch did not fit and were left out.)` : "";
  const fitted = await fitSummary({
    kind: "branch",
    body: outcome.text,
    incomplete: outcome.incomplete === true,
    note,
    fileOperations: operations,
    maxChars: maxOutputTokens * CHARS_PER_TOKEN,
    summarizer: common,
    ...(outcome.fallback === undefined ? {} : { modelFailure: outcome.fallback.message }),
    digest: (maxChars, reason) => fallbackDigest({ kind: "branch", reason, messages: selected, maxChars }),
  });
  const usage = addUsage(addUsage(emptyUsage(), outcome.usage), fitted.usage);
  if (fitted.aborted || signalFired(options.signal)) {
    return { kind: "aborted", message: "Branch summarization was aborted by the caller's signal.", usage };
  }
  const covered = all;
  const details: BranchSummaryDetails = {
    readFiles: operations.readFiles,
    modifiedFiles: operations.modifiedFiles,
    calls: outcome.calls + fitted.calls,
    summarizerModel: `${target.model.provider}/${target.model.id}`,
  };
  const firstCovered = covered[0];
  const lastCovered = covered.at(-1);
  if (firstCovered !== undefined && lastCovered !== undefined) {
    details.covered = {
      firstEntryId: firstCovered.entry.id,
      lastEntryId: lastCovered.entry.id,
      entryCount: covered.length,
    };
  }
  if (omitted > 0) details.omittedMessages = omitted;
  if (outcome.fallback !== undefined) details.fallback = outcome.fallback;
  if (fitted.summaryShrunk !== undefined) details.summaryShrunk = fitted.summaryShrunk;
  if (fitted.summarySizes !== undefined) details.summarySizes = fitted.summarySizes;
  if (fitted.fileListsShortened !== undefined) details.fileListsShortened = fitted.fileListsShortened;
  const digestShortened =
    fitted.summaryShrunk === undefined ? outcome.digestShortened === true : fitted.digestShortened;
  if (digestShortened) details.summaryTruncated = true;
  return { kind: "summarized", summary: fitted.text, details, usage };
}
