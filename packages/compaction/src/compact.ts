import {
  addUsage,
  emptyUsage,
  type Model,
  type StreamFn,
  type StreamOptions,
  type Usage,
} from "@arbor/ai-providers";
import type { CompactionDetails, SummaryFallback } from "./details.js";
import { formatFileOperations, stripFileOperations } from "./file-operations.js";
import type { CompactionPreparation } from "./prepare.js";
import { truncateEnd } from "./serialize.js";
import {
  type SummarizeOutcome,
  type SummarizerTarget,
  signalFired,
  summarize,
  summaryOutputTokens,
} from "./summarizer.js";
import { CHARS_PER_TOKEN, tokensOfChars } from "./token-estimate.js";

/** Options of {@link compact}. */
export interface CompactOptions {
  /** Streams from the session's model (the summarizer unless `summarizer` is given). */
  stream: StreamFn;
  /** The session's model. */
  model: Model;
  /**
   * A separate model for summaries (the `model` setting, resolved by the harness): cheaper, faster or with
   * a larger window than the session's. Its window bounds every summarizer call.
   */
  summarizer?: SummarizerTarget;
  /** Aborts the summarizer calls; `compact()` then resolves to `{ kind: "aborted" }`. */
  signal?: AbortSignal;
  /** A focus for the summary, e.g. from `/compact keep the API design`. */
  customInstructions?: string;
  /** Further stream options for the summarizer calls (API key, reasoning, headers, session id). */
  streamOptions?: Omit<StreamOptions, "signal" | "maxTokens">;
}

/** A finished compaction: what the harness appends as a `compaction` entry. */
export interface CompactionResult {
  kind: "compacted";
  /** The summary the model will see in place of the history; file lists appended. */
  summary: string;
  firstKeptEntryId: string;
  /** The estimated context size before the compaction. */
  tokensBefore: number;
  /**
   * The estimated context size after it: `tokensBefore`, less the estimate of what the summary replaces,
   * plus the estimate of the summary. Always below `tokensBefore`.
   */
  tokensAfter: number;
  details: CompactionDetails;
  /** The summarizer's usage, summed over its calls. */
  usage: Usage;
}

/** The caller's signal fired: nothing may be appended. */
export interface CompactionAborted {
  kind: "aborted";
  /** What happened, in words. */
  message: string;
  /** The summarizer's usage until the abort. */
  usage: Usage;
}

/** What {@link compact} resolves to. A failing summarizer is not an outcome of its own: see `details.fallback`. */
export type CompactOutcome = CompactionResult | CompactionAborted;

/** Heading of the turn context in a split-turn summary. */
export const TURN_CONTEXT_HEADING = "**Turn context (this turn continues in the kept messages):**";

/** The history part of a summary when there is no history before a split turn. */
const NO_HISTORY = "(No earlier history.)";

/**
 * Summarizes a prepared compaction (seed 000, sections 5.3 to 5.5, and DESIGN.md section 5).
 *
 * - The history is summarized with the first-pass prompt, or with the UPDATE prompt when a previous summary
 *   exists (it keeps what is still true, moves In Progress to Done, adds the new work). A history too large
 *   for the summarizer's window is summarized in chunks, each folded into the running summary by UPDATE.
 * - For a split turn, the turn's beginning is summarized with the turn-prefix prompt, in parallel, and the
 *   two are combined as `history + "\n\n---\n\n" + turn context`.
 * - Tool results (and similar bulk) are cut to `settings.toolResultMaxChars` in the summarizer's input; its
 *   output is capped at 0.8 × `reserveTokens` (and at the model's `maxTokens` and a quarter of its window).
 * - When the model fails (an `error` or `aborted` response) or returns no text, a deterministic digest
 *   replaces what it did not summarize and `details.fallback` says why.
 * - The file lists are appended (`Files read: …` / `Files modified: …`), and the whole summary is kept
 *   smaller than what it replaces (cut, with `details.summaryTruncated`, in the rare case it is not), so
 *   compaction always frees space.
 *
 * Contract: never throws for provider failures and never writes anything; resolves to
 * `{ kind: "aborted" }` when `signal` fires. Throws `InvalidCompactionArgumentError` for a summarizing
 * model without a positive `contextWindow`.
 */
export async function compact(
  preparation: CompactionPreparation,
  options: CompactOptions,
): Promise<CompactOutcome> {
  const target: SummarizerTarget = options.summarizer ?? { model: options.model, stream: options.stream };
  const { settings } = preparation;
  const maxOutputTokens = summaryOutputTokens(target.model, settings.reserveTokens);
  const common = {
    target,
    signal: options.signal,
    customInstructions: options.customInstructions,
    maxOutputTokens,
    toolResultMaxChars: settings.toolResultMaxChars,
    streamOptions: options.streamOptions,
  };
  if (signalFired(options.signal)) return aborted(emptyUsage());

  const previous =
    preparation.previousSummary === undefined ? undefined : stripFileOperations(preparation.previousSummary);
  const historyRun: Promise<SummarizeOutcome> =
    preparation.messagesToSummarize.length > 0
      ? summarize({
          kind: "history",
          messages: preparation.messagesToSummarize,
          initialSummary: previous,
          ...common,
        })
      : Promise.resolve({ aborted: false, text: previous ?? "", calls: 0, usage: emptyUsage() });
  const turnRun: Promise<SummarizeOutcome | undefined> =
    preparation.isSplitTurn && preparation.turnPrefixMessages.length > 0
      ? summarize({ kind: "turnPrefix", messages: preparation.turnPrefixMessages, ...common })
      : Promise.resolve(undefined);
  const [history, turn] = await Promise.all([historyRun, turnRun]);

  const usage = addUsage(emptyUsage(), history.usage);
  if (turn !== undefined) addUsage(usage, turn.usage);
  if (history.aborted || turn?.aborted === true || signalFired(options.signal)) return aborted(usage);

  let summary = history.text === "" ? NO_HISTORY : history.text;
  if (turn !== undefined) summary = `${summary}\n\n---\n\n${TURN_CONTEXT_HEADING}\n\n${turn.text}`;
  summary += formatFileOperations(preparation.fileOperations);

  const details: CompactionDetails = {
    readFiles: preparation.fileOperations.readFiles,
    modifiedFiles: preparation.fileOperations.modifiedFiles,
    covered: preparation.covered,
    calls: history.calls + (turn?.calls ?? 0),
    historyCalls: history.calls,
    summarizerModel: `${target.model.provider}/${target.model.id}`,
  };
  if (preparation.previousCompactionId !== undefined) {
    details.previousCompactionId = preparation.previousCompactionId;
  }
  const fallback = firstFallback(history, turn);
  if (fallback !== undefined) details.fallback = fallback;

  const limitTokens = Math.max(0, preparation.summarizedTokens - 1);
  if (tokensOfChars(summary.length) > limitTokens) {
    summary = truncateEnd(summary, limitTokens * CHARS_PER_TOKEN);
    details.summaryTruncated = true;
  }
  const freed = preparation.summarizedTokens - tokensOfChars(summary.length);
  return {
    kind: "compacted",
    summary,
    firstKeptEntryId: preparation.firstKeptEntryId,
    tokensBefore: preparation.tokensBefore,
    tokensAfter: Math.max(0, preparation.tokensBefore - freed),
    details,
    usage,
  };
}

function aborted(usage: Usage): CompactionAborted {
  return { kind: "aborted", message: "Compaction was aborted by the caller's signal.", usage };
}

function firstFallback(
  history: SummarizeOutcome,
  turn: SummarizeOutcome | undefined,
): SummaryFallback | undefined {
  if (history.fallback !== undefined) {
    return turn === undefined ? history.fallback : { ...history.fallback, part: "history" };
  }
  if (turn?.fallback !== undefined) return { ...turn.fallback, part: "turnPrefix" };
  return undefined;
}
