import type { SessionEntry } from "@arbor/session-store";
import { entryMessage } from "./entry-messages.js";
import type { FileOperations } from "./file-operations.js";

/**
 * The `details` a compaction or branch summary records: file lists (the pi agent's fields, so pi reads them
 * too), what the summary covers (recoverable: the originals stay in the append-only log), and how the
 * summary was made (bounded: chunks, fallback).
 */

/**
 * The entries a summary covers, as a span of the path: from `firstEntryId` to `lastEntryId`, both
 * included, `entryCount` context entries (messages, custom messages, branch summaries). Three fields,
 * whatever the span's length — resolve it with {@link coveredEntryIds}.
 */
export interface CoveredSpan {
  firstEntryId: string;
  lastEntryId: string;
  entryCount: number;
}

/** Why a summary was made without the model, and where that happened. */
export interface SummaryFallback {
  /**
   * `model_error`: the summarizer's response failed (`stopReason: "error"`); `model_aborted`: it ended as
   * aborted although the caller's signal did not fire; `empty_summary`: it returned no text;
   * `window_too_small`: the summarizer's window cannot hold a prompt and a useful piece of history;
   * `timeout`: a call did not answer within `timeoutMs`; `call_cap`: the calls allowed by
   * `maxSummarizerCalls` were spent (overflow retries) before the history was.
   */
  reason: "model_error" | "model_aborted" | "empty_summary" | "window_too_small" | "timeout" | "call_cap";
  /** The provider's error message, or a sentence saying what happened. */
  message: string;
  /** The 1-based summarizer call that failed; earlier calls' summaries were kept. */
  call?: number;
  /** Which summary of a split turn failed: the history, or the turn's beginning. */
  part?: "history" | "turnPrefix";
}

/**
 * How a summary that did not fit its limit was made to fit, whole (never by cutting text):
 * `resummarized` — the summarizer wrote a shorter summary when asked for one of at most N tokens (one or
 * two extra calls); `digest` — the deterministic digest (`fallbackDigest`) replaced it.
 */
export type SummaryShrunk = "resummarized" | "digest";

/** The sizes behind `summaryShrunk`, in estimated tokens (`ceil(chars / 4)`). */
export interface SummarySizes {
  /**
   * The summary as first written (for a compaction: the history summary and the split turn's context,
   * with their separator; for a branch: the branch summary), without file lists or notes — the model's
   * text, or the first pass's digest when the model failed.
   */
  writtenTokens: number;
  /**
   * The room for that text: the summary's limit less the file-list line(s) and the note kept beside it.
   * The limit is the output cap, and for a compaction also `summarizedTokens - 1`.
   */
  limitTokens: number;
  /** The text recorded instead: the shorter re-summary, or the digest. At most `limitTokens`. */
  finalTokens: number;
  /** Extra summarizer calls spent asking for a shorter summary (0–2; included in `calls`). */
  shrinkCalls: number;
  /**
   * Why the digest was used (only with `summaryShrunk: "digest"`): `limit_too_small` — the room is under
   * 64 tokens, too little to ask a model for (no call made); `still_too_long` — the shorter summaries
   * asked for were still over the limit, or not whole (`stopReason: "length"`); `summarizer_failed` — a
   * shortening call failed, or the summarizer had already failed on the first pass (see `fallback`).
   */
  digestReason?: "limit_too_small" | "still_too_long" | "summarizer_failed";
}

/**
 * How the file lists were written into a summary whose limit had no room for them in full (the lists
 * stay complete in `readFiles` / `modifiedFiles`): `counted` — replaced by one line,
 * `N files read, M modified — see details`; `dropped` — left out, not even that line fitted.
 */
export type FileListsShortened = "counted" | "dropped";

/** What every summary records. */
export interface SummaryDetails extends FileOperations {
  /** The entries summarized by this summary (not counting those an earlier summary it folds in covered). */
  covered?: CoveredSpan;
  /** Set when the model failed and a deterministic digest replaced (part of) its summary. */
  fallback?: SummaryFallback;
  /** Summarizer calls made (0 when the fallback was used from the start). */
  calls: number;
  /** The summarizing model, as `provider/model`. */
  summarizerModel?: string;
  /**
   * Set when the summary first written was longer than its limit — the output cap, and for a compaction
   * `summarizedTokens - 1` (a compaction always frees space) — or was not whole (the server stopped it at
   * `max_tokens`), and was replaced whole: see {@link SummaryShrunk}. Absent: the summary as written fitted.
   */
  summaryShrunk?: SummaryShrunk;
  /** The sizes before and after, when `summaryShrunk` is set. */
  summarySizes?: SummarySizes;
  /** Set when the file lists were not written in full into the summary's text (see {@link FileListsShortened}). */
  fileListsShortened?: FileListsShortened;
  /**
   * True when the recorded summary is a deterministic digest that left out whole lines of a text it quotes
   * (the summary so far, the last assistant message; a `(… N lines left out …)` line marks the place) or
   * whole sections, to fit its limit. Text is never cut inside a line: not by the output cap, not to stay
   * smaller than what the summary replaces.
   */
  summaryTruncated?: boolean;
}

/** The `details` of a compaction entry written by `compact()`. */
export interface CompactionDetails extends SummaryDetails {
  /** The compaction whose summary this one updates (it covers the entries before `covered`). */
  previousCompactionId?: string;
  /** Summarizer calls spent on the history (the rest went to the split turn's prefix). */
  historyCalls?: number;
  /**
   * Oldest messages of the history condensed by the deterministic digest (no model) because more would
   * have needed more than `maxSummarizerCalls` calls; the summarizer's calls updated that digest.
   */
  digestedMessages?: number;
}

/** The `details` of a branch_summary entry written from `generateBranchSummary()`. */
export interface BranchSummaryDetails extends SummaryDetails {
  /** Oldest messages of the branch left out because the branch did not fit the summarizer's budget. */
  omittedMessages?: number;
}

/**
 * Reads the covered span of any entry's `details` (a compaction's or a branch summary's); undefined when
 * it has none (e.g. written by the pi agent or an extension).
 */
export function readCoveredSpan(details: unknown): CoveredSpan | undefined {
  if (typeof details !== "object" || details === null) return undefined;
  const covered = (details as { covered?: unknown }).covered;
  if (typeof covered !== "object" || covered === null) return undefined;
  const { firstEntryId, lastEntryId, entryCount } = covered as Record<string, unknown>;
  if (typeof firstEntryId !== "string" || typeof lastEntryId !== "string") return undefined;
  return {
    firstEntryId,
    lastEntryId,
    entryCount: typeof entryCount === "number" ? entryCount : Number.NaN,
  };
}

/** Options of {@link coveredEntryIds}. */
export interface CoveredEntryIdsOptions {
  /**
   * Also return the entries earlier summaries covered: every context entry of the branch up to the span's
   * end. A compaction's summary folds in the one before it, so this is everything it stands for.
   */
  includeEarlier?: boolean;
}

/**
 * The ids of the entries a summary covers, found in a branch: the context entries (messages, custom
 * messages, branch summaries) from `details.covered.firstEntryId` to `details.covered.lastEntryId`, in
 * path order. For a compaction pass the branch it was made on (`session.getBranch()` from any later leaf);
 * for a branch summary, the abandoned branch (`session.getBranch(details.covered.lastEntryId)`).
 *
 * Contract: pure; O(branch length); returns `[]` when the details name no span or the branch does not hold
 * its last entry. When the result is shorter than `covered.entryCount`, the branch does not hold the whole
 * span.
 */
export function coveredEntryIds(
  details: unknown,
  branchEntries: readonly SessionEntry[],
  options: CoveredEntryIdsOptions = {},
): string[] {
  const span = readCoveredSpan(details);
  if (span === undefined) return [];
  let last = -1;
  for (let index = branchEntries.length - 1; index >= 0; index--) {
    if (branchEntries[index]!.id === span.lastEntryId) {
      last = index;
      break;
    }
  }
  if (last < 0) return [];
  let first = 0;
  if (options.includeEarlier !== true) {
    first = -1;
    for (let index = last; index >= 0; index--) {
      if (branchEntries[index]!.id === span.firstEntryId) {
        first = index;
        break;
      }
    }
    if (first < 0) return [];
  }
  const ids: string[] = [];
  for (let index = first; index <= last; index++) {
    const entry = branchEntries[index]!;
    if (entryMessage(entry) !== undefined) ids.push(entry.id);
  }
  return ids;
}
