import type { SessionMessage } from "@arbor/session-store";
import { truncateEnd, truncateMiddle } from "./serialize.js";

/**
 * The limits every summary is held to: the output cap of a compaction (shared by the two parts of a split
 * turn and the file lists), and the pieces an over-long summary is re-summarized in. How a summary over its
 * limit is made to fit — whole — is `fitSummary` (summary-fit.ts).
 */

/** Most summarizer calls spent re-summarizing an over-long previous summary; longer ones are cut first. */
export const MAX_RESUMMARY_CALLS = 4;

/** How the output cap of a compaction is shared. */
export interface SummaryBudget {
  /** Output cap of the history summary's calls, in tokens. */
  historyTokens: number;
  /** Output cap of the turn prefix summary's calls (0 without a split turn). */
  turnPrefixTokens: number;
}

/** Characters the split-turn separator and heading add. */
const SPLIT_OVERHEAD_CHARS = 120;

/**
 * Shares `capTokens` between the history and, for a split turn, the turn prefix (three fifths and two
 * fifths of what the file lists and the separator leave), so that the whole summary fits the cap.
 */
export function shareSummaryBudget(
  capTokens: number,
  fileListChars: number,
  splitTurn: boolean,
): SummaryBudget {
  const reserved = Math.ceil((fileListChars + (splitTurn ? SPLIT_OVERHEAD_CHARS : 0)) / 4);
  const body = Math.max(2, capTokens - reserved);
  if (!splitTurn) return { historyTokens: body, turnPrefixTokens: 0 };
  const historyTokens = Math.max(1, Math.floor((body * 3) / 5));
  return { historyTokens, turnPrefixTokens: Math.max(1, body - historyTokens) };
}

/**
 * A summary body followed by its file lists, at most `maxChars` characters: when too long, the body is cut
 * (with a marker) and the file lists are appended after the cut, themselves cut to half of `maxChars` when
 * they alone are that long.
 *
 * Contract: pure; the result never exceeds `maxChars` (for `maxChars` ≥ 0).
 *
 * @deprecated It cuts text mid-word. `compact()` and `generateBranchSummary()` no longer use it: they
 * shrink a summary whole with `fitSummary` (a shorter re-summary, else the deterministic digest).
 */
export function boundSummary(
  body: string,
  fileLists: string,
  maxChars: number,
): { text: string; truncated: boolean } {
  const max = Math.max(0, Math.floor(maxChars));
  if (body.length + fileLists.length <= max) return { text: body + fileLists, truncated: false };
  const files =
    fileLists.length <= Math.floor(max / 2) ? fileLists : truncateEnd(fileLists, Math.floor(max / 2));
  return { text: truncateEnd(body, max - files.length) + files, truncated: true };
}

/**
 * An over-long summary as messages to summarize again: pieces of at most `pieceChars` characters, cut at
 * line ends where possible, at most `maxPieces` of them (default {@link MAX_RESUMMARY_CALLS}; a longer
 * text loses its middle first, with a marker). These cuts are in the summarizer's input only.
 */
export function summaryPieces(
  summary: string,
  pieceChars: number,
  timestamp: number,
  maxPieces: number = MAX_RESUMMARY_CALLS,
): SessionMessage[] {
  const size = Math.max(1, Math.floor(pieceChars));
  const text = truncateMiddle(summary, size * Math.max(1, Math.floor(maxPieces)));
  const pieces: SessionMessage[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    if (end < text.length) {
      const newline = text.lastIndexOf("\n", end);
      if (newline > start + size / 2) end = newline + 1;
    }
    pieces.push({ role: "compactionSummary", summary: text.slice(start, end), tokensBefore: 0, timestamp });
    start = end;
  }
  return pieces;
}
