import type { SessionEntry } from "@arbor/session-store";
import {
  entryMessage,
  isCutCandidate,
  isTurnStart,
  toolCallIdsOf,
  toolResultIdOf,
} from "./entry-messages.js";
import { estimateTokens } from "./token-estimate.js";

/** Where {@link findCutPoint} cuts. */
export interface CutPoint {
  /**
   * Index of the first entry kept verbatim; -1 when no entry of the range may start the kept part (the
   * range holds no message but tool results and entries the model does not see).
   */
  firstKeptEntryIndex: number;
  /**
   * Index of the entry that starts the turn the cut falls into, when the cut splits a turn; -1 otherwise.
   */
  turnStartIndex: number;
  /**
   * True when the kept part starts inside a turn (at an assistant message) whose opening user message lies
   * before the cut: the beginning of that turn is summarized separately, as the turn prefix.
   */
  isSplitTurn: boolean;
  /** Estimated tokens of the context messages kept (from the cut to the end of the range). */
  keptTokens: number;
}

/**
 * Finds where to cut a branch so that about `keepRecentTokens` of the most recent history stay verbatim
 * (docs/reference/compaction.md). Only `entries[startIndex .. endIndex - 1]` are considered.
 *
 * Walks back from the newest entry, adding the estimated tokens of each context message, until the sum
 * reaches `keepRecentTokens`; then snaps to the nearest valid cut point at or after that entry (so the tail
 * stays within the budget), or, when there is none, to the nearest one before it. When the whole range fits
 * in the budget, the cut is the first valid cut point (everything is kept).
 *
 * A valid cut point is an entry that {@link isCutCandidate} accepts — a user, assistant, custom,
 * bashExecution or application message, a `custom_message`, a `branch_summary`; never a tool result — and
 * that no tool call/result pair straddles: no result at or after it answers a call before it. So a kept tool
 * result always keeps its call, and a summarized call its result.
 *
 * A cut at an entry that does not start a turn (an assistant message) splits that turn when an entry that
 * does ({@link isTurnStart}) lies before it in the range: `isSplitTurn` is true and `turnStartIndex` names it.
 *
 * Contract: pure; O(endIndex - startIndex) at worst, and usually O(entries kept): the walk stops soon after the
 * budget is reached. The range is walked a second time only when a message sits between a tool call and
 * its result, or a result has no call.
 */
export function findCutPoint(
  entries: readonly SessionEntry[],
  startIndex: number,
  endIndex: number,
  keepRecentTokens: number,
): CutPoint {
  const start = Math.max(0, startIndex);
  const end = Math.min(entries.length, endIndex);

  // First walk: every result waits for its call, so the walk stops soon after the budget is reached. An
  // orphan result (its call is missing: a damaged session) would wrongly block the cuts before it; that can
  // only matter when the walk rejected a candidate because of an open result (otherwise rare: a message
  // written between a call and its result). Then the range is walked again, knowing its call ids.
  let walk = walkBack(entries, start, end, keepRecentTokens, undefined);
  if (walk.blockedCandidate) {
    const callIds = new Set<string>();
    for (let index = start; index < end; index++) {
      for (const id of toolCallIdsOf(entries[index]!)) callIds.add(id);
    }
    walk = walkBack(entries, start, end, keepRecentTokens, callIds);
  }
  const { cut, keptTokens } = walk;
  if (cut < 0) return { firstKeptEntryIndex: -1, turnStartIndex: -1, isSplitTurn: false, keptTokens: 0 };

  let turnStartIndex = -1;
  if (!isTurnStart(entries[cut]!)) {
    for (let index = cut - 1; index >= start; index--) {
      if (isTurnStart(entries[index]!)) {
        turnStartIndex = index;
        break;
      }
    }
  }
  return { firstKeptEntryIndex: cut, turnStartIndex, isSplitTurn: turnStartIndex >= 0, keptTokens };
}

/** The outcome of one walk back: the cut (-1: none), the tokens it keeps, whether an open result blocked a candidate. */
interface Walk {
  cut: number;
  keptTokens: number;
  blockedCandidate: boolean;
}

/**
 * Walks back from `end`, accumulating tokens, and returns the cut (see {@link findCutPoint}). A tool result
 * blocks every cut before it until its call is passed; with `callIds`, results whose call is not among
 * them (orphans) block nothing.
 */
function walkBack(
  entries: readonly SessionEntry[],
  start: number,
  end: number,
  keepRecentTokens: number,
  callIds: ReadonlySet<string> | undefined,
): Walk {
  const openResults = new Map<string, number>();
  let openCount = 0;
  let accumulated = 0;
  let reached = false;
  let nearestValidAfter = -1;
  let tokensAtNearestValid = 0;
  let blockedCandidate = false;

  for (let index = end - 1; index >= start; index--) {
    const entry = entries[index]!;
    const message = entryMessage(entry);
    if (message !== undefined) accumulated += estimateTokens(message);
    const resultId = toolResultIdOf(entry);
    if (resultId !== undefined && (callIds === undefined || callIds.has(resultId))) {
      openResults.set(resultId, (openResults.get(resultId) ?? 0) + 1);
      openCount++;
    }
    if (openCount > 0) {
      for (const id of toolCallIdsOf(entry)) {
        const open = openResults.get(id);
        if (open !== undefined) {
          openCount -= open;
          openResults.delete(id);
        }
      }
    }
    const candidate = isCutCandidate(entry);
    if (candidate && openCount > 0) blockedCandidate = true;
    const valid = candidate && openCount === 0;
    if (!reached) {
      if (accumulated >= keepRecentTokens) {
        reached = true;
        if (valid) return { cut: index, keptTokens: accumulated, blockedCandidate };
        if (nearestValidAfter >= 0)
          return { cut: nearestValidAfter, keptTokens: tokensAtNearestValid, blockedCandidate };
      } else if (valid) {
        nearestValidAfter = index;
        tokensAtNearestValid = accumulated;
      }
    } else if (valid) {
      return { cut: index, keptTokens: accumulated, blockedCandidate };
    }
  }
  if (!reached && nearestValidAfter >= 0) {
    return { cut: nearestValidAfter, keptTokens: tokensAtNearestValid, blockedCandidate };
  }
  return { cut: -1, keptTokens: 0, blockedCandidate };
}
