import type { AgentTool } from "@arbor/agent-core";
import { InvalidArgumentError } from "@arbor/ai-providers";
import type { Session } from "@arbor/session-store";
import { DEFAULT_RECALL_SEARCH_CHARS, RecallIndex } from "./recall-index.js";
import { recallToolOutput } from "./recall-output.js";
import { type RecallToolDetails, RecallToolParameters } from "./recall-parameters.js";
import { errorResult, recall } from "./recall-query.js";

/**
 * The `recall` tool: the exact original entries that a summary replaced in the model's context. A
 * compaction keeps its history in the append-only session (its `details.covered` names the span), so the
 * agent can pull back what the summary lost — exact code, an error message, a command's output.
 *
 * Recallable are the entries a summary on the current branch stands for: every message (and custom
 * message, branch summary) on the branch before the latest compaction's `firstKeptEntryId` — found from
 * the compactions' `firstKeptEntryId`, so compactions written by the pi agent or by a hook count too —
 * and the entries of abandoned branches that a `branch_summary` on the branch covers (from its
 * `details.covered`). Entries still in the context, entries of other branches and non-message entries
 * are refused with a note: recall never duplicates the context and never leaks unrelated branches. The one
 * exception is `toolCallId`: the whole output of a tool call on the current branch, whose result the model
 * may see only cut to fit the context (the tool-output budget keeps the whole output in the session).
 */

/** The tool's name. */
export const RECALL_TOOL_NAME = "recall";

/** Default bound of one result's text, in UTF-8 bytes (about 5,000 tokens). */
export const DEFAULT_RECALL_MAX_BYTES = 20_000;

/** Smallest `maxBytes` accepted: room for an entry's header and the notes. */
const MIN_MAX_BYTES = 1_000;

/** Options of {@link createRecallTool}. */
export interface RecallToolOptions {
  /**
   * The session to recall from, asked at each call (so the tool follows a harness that switches sessions).
   *
   * Contract: returns the live session; a throw becomes an error result.
   */
  getSession: () => Session;
  /** Bound of one result's text in UTF-8 bytes (default {@link DEFAULT_RECALL_MAX_BYTES}, at least 1,000). */
  maxBytes?: number;
  /**
   * A tighter bound for the next result, asked at each call: the harness gives the session's tool-output
   * budget in characters, so that a page of recall fits a small window too.
   *
   * Contract: returns a number of bytes or `undefined` (no tighter bound); the bound in effect is never
   * below 1,000 nor above `maxBytes`; a throw counts as `undefined`.
   */
  getMaxBytes?: () => number | undefined;
  /**
   * Bound of the searchable text kept per session, in characters (default {@link DEFAULT_RECALL_SEARCH_CHARS},
   * 128 Mi): the tool keeps each searched entry's lower-cased text, so that a query reads no entry again;
   * texts past the bound are rendered again at each query. `0` keeps none.
   */
  maxSearchChars?: number;
}

const DESCRIPTION = [
  "Recall the exact original messages that were replaced by a summary of earlier conversation (they are kept in the session log).",
  "Use it when the summary lacks a detail you need: exact code, an error message, a command's output, a decision's wording.",
  "Give `query` to search the replaced messages (best matches first), or `entryIds` for specific entries (ids appear in recall results);",
  "with no arguments it lists what can be recalled.",
  "Give `toolCallId` to read the whole output of a tool call on this branch, e.g. one cut to fit the context (its note names the call and the `offset` to read on).",
  "Results are bounded; a cut result says which `offset` continues it.",
].join(" ");

/**
 * Creates the `recall` tool. Arguments (all optional):
 *
 * - `entryIds`: return these entries, in conversation order; unknown and non-recallable ids are named in
 *   a note, and the result is an error only when none is recallable;
 * - `query`: search the replaced entries (case-insensitive words: entries with more of the words, with the
 *   exact phrase, with more occurrences rank higher; ties in conversation order) and return the best
 *   `limit` (default 10), best first;
 * - `compactionId`: restrict to what that compaction (or branch summary) replaced; alone, return its
 *   entries (the first `limit`, default 50);
 * - `limit`: most entries (1–100); `offset`: continue a cut output;
 * - none: list what can be recalled — each summary with the id and first line of each entry it replaced;
 * - `toolCallId` (alone, with `offset`): the whole output of that tool call on the current branch — from its
 *   `arbor.tool_output` entry when the result the model saw was cut to fit the context, else from the tool
 *   result itself; it works while that result is still in the context (docs/context-budget.md).
 *
 * Each entry is shown whole and exact: a header (`### <id> · <role, model / tool, call id> · <time>`),
 * then text, thinking, tool calls with their JSON arguments, tool results (images are named, not
 * included). The text is bounded by `maxBytes`: whole entries while they fit (the first one cut when even
 * it does not), then a note naming the `offset` that continues it.
 *
 * For each session it is given, the tool keeps what a query needs again (`maxSearchChars`): the lower-cased
 * text of each entry searched, and the recallable entries of the current branch, updated from the entries
 * appended since the last call (found again after a compaction, branch summary, prune or branch switch).
 * They are dropped with the session.
 *
 * Contract: `execute` never throws — bad arguments, unknown ids and a failing `getSession` are error
 * results. A first call reads the tree fields of the current branch (O(branch length)) and parses only the
 * summaries on it and the entries it returns or searches (with `toolCallId`: the branch's messages back to
 * the call's result, and the entries right after it); never the rest of the session. A later call on the same
 * branch reads only the entries appended since, and a repeated search matches the kept texts. Throws
 * `InvalidArgumentError` at creation when `maxBytes` is not a number ≥ 1,000.
 */
export function createRecallTool(
  options: RecallToolOptions,
): AgentTool<typeof RecallToolParameters, RecallToolDetails> {
  const maxBytes = options.maxBytes ?? DEFAULT_RECALL_MAX_BYTES;
  if (typeof maxBytes !== "number" || !(maxBytes >= MIN_MAX_BYTES)) {
    throw new InvalidArgumentError(
      `createRecallTool: maxBytes must be at least ${MIN_MAX_BYTES}, got ${maxBytes}.`,
    );
  }
  const maxSearchChars = options.maxSearchChars ?? DEFAULT_RECALL_SEARCH_CHARS;
  const indexes = new WeakMap<Session, RecallIndex>();
  const indexOf = (session: Session) => {
    let index = indexes.get(session);
    if (index === undefined) {
      index = new RecallIndex(session, maxSearchChars);
      indexes.set(session, index);
    }
    return index;
  };
  return {
    name: RECALL_TOOL_NAME,
    label: "Recall",
    description: DESCRIPTION,
    parameters: RecallToolParameters,
    execute(args) {
      try {
        const bound = Math.floor(Math.min(maxBytes, 1e9, Math.max(MIN_MAX_BYTES, tighterBound(options))));
        if (args?.toolCallId !== undefined) return recallToolOutput(options.getSession(), args, bound);
        const session = options.getSession();
        return recall(session, args ?? {}, bound, indexOf(session));
      } catch (error) {
        return errorResult(`recall failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}

/** `options.getMaxBytes()`, or infinity when it gives nothing usable. */
function tighterBound(options: RecallToolOptions): number {
  try {
    const bound = options.getMaxBytes?.();
    return typeof bound === "number" && bound > 0 ? bound : Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
