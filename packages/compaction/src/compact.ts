import {
  addUsage,
  emptyUsage,
  type Model,
  type StreamFn,
  type StreamOptions,
  type Usage,
} from "@arbor/ai-providers";
import type { CompactionDetails, SummaryFallback } from "./details.js";
import { fallbackDigest } from "./fallback.js";
import { formatFileOperations, stripFileOperations } from "./file-operations.js";
import type { CompactionPreparation } from "./prepare.js";
import { DEFAULT_MAX_SUMMARIZER_CALLS, DEFAULT_SUMMARIZER_TIMEOUT_MS } from "./settings.js";
import {
  conversationBudgetChars,
  type SummarizeInput,
  type SummarizeOutcome,
  type SummarizerTarget,
  signalFired,
  summarize,
  summaryOutputTokens,
} from "./summarizer.js";
import { shareSummaryBudget, summaryPieces } from "./summary-bounds.js";
import { fitSummary, stripFileCountLine } from "./summary-fit.js";
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

/**
 * The history part of a summary when there is no history before a split turn (left out, with the
 * separator, when the summary must be shorter).
 */
const NO_HISTORY = "(No earlier history.)";

/**
 * Summarizes a prepared compaction (the package README gives the rules).
 *
 * - The history is summarized with the first-pass prompt, or with the UPDATE prompt when a previous summary
 *   exists (it keeps what is still true, moves In Progress to Done, adds the new work). A history too large
 *   for the summarizer's window is summarized in chunks, each folded into the running summary by UPDATE.
 * - With no new history, a previous summary longer than the history's share of the cap is summarized
 *   again, in at most four pieces (`preparation.resummarizesPrevious`); the fallback keeps what fits of it.
 * - For a split turn, the turn's beginning is summarized with the turn-prefix prompt, in parallel, and the
 *   two are combined as `history + "\n\n---\n\n" + turn context`.
 * - Tool results (and similar bulk) are cut to `settings.toolResultMaxChars` in the summarizer's input.
 * - **Limit**: the whole summary — history, turn context and file lists together — is at most
 *   `summaryOutputTokens(model, reserveTokens)` (0.8 × `reserveTokens`, at most the model's `maxTokens` and a
 *   quarter of its window) by the chars/4 estimate, and smaller than what it replaces
 *   (`summarizedTokens - 1`). Each call asks for its share as `maxTokens`. A summary is never cut: one over
 *   the limit, or stopped by the server at `max_tokens`, is replaced whole (`fitSummary`) — the file lists
 *   (`Files read: …` / `Files modified: …`) become one count line or are left out first, then the
 *   summarizer is asked for a shorter summary (at most two extra calls), then the deterministic digest is
 *   used; `details.summaryShrunk`, `summarySizes` and `fileListsShortened` say which.
 * - When the model fails (an `error` or `aborted` response), returns no text, or a call does not answer
 *   within `settings.timeoutMs` (default 300,000 ms), a deterministic digest replaces what it did not
 *   summarize and `details.fallback` says why.
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
  const capTokens = summaryOutputTokens(target.model, settings.reserveTokens);
  const fileLists = formatFileOperations(preparation.fileOperations);
  const splitTurn = preparation.isSplitTurn && preparation.turnPrefixMessages.length > 0;
  const budget = shareSummaryBudget(capTokens, fileLists.length, splitTurn);
  const common = {
    target,
    signal: options.signal,
    customInstructions: options.customInstructions,
    toolResultMaxChars: settings.toolResultMaxChars,
    streamOptions: options.streamOptions,
    timeoutMs: settings.timeoutMs ?? DEFAULT_SUMMARIZER_TIMEOUT_MS,
  };
  if (signalFired(options.signal)) return aborted(emptyUsage());
  const callCap = settings.maxSummarizerCalls ?? DEFAULT_MAX_SUMMARIZER_CALLS;
  const historyCalls = splitTurn ? Math.max(1, callCap - 1) : callCap;

  const previous =
    preparation.previousSummary === undefined
      ? undefined
      : stripFileOperations(stripFileCountLine(preparation.previousSummary));
  const historyRun: Promise<SummarizeOutcome> =
    preparation.messagesToSummarize.length > 0
      ? summarize({
          kind: "history",
          messages: preparation.messagesToSummarize,
          initialSummary: previous,
          maxOutputTokens: budget.historyTokens,
          maxCalls: historyCalls,
          ...common,
        })
      : previous !== undefined && previous.length > budget.historyTokens * CHARS_PER_TOKEN
        ? resummarize(previous, budget.historyTokens, { ...common, maxCalls: historyCalls })
        : Promise.resolve({ aborted: false, text: previous ?? "", calls: 0, usage: emptyUsage() });
  const turnRun: Promise<SummarizeOutcome | undefined> = splitTurn
    ? summarize({
        kind: "turnPrefix",
        messages: preparation.turnPrefixMessages,
        maxOutputTokens: budget.turnPrefixTokens,
        maxCalls: 1,
        ...common,
      })
    : Promise.resolve(undefined);
  const [history, turn] = await Promise.all([historyRun, turnRun]);

  const usage = addUsage(emptyUsage(), history.usage);
  if (turn !== undefined) addUsage(usage, turn.usage);
  if (history.aborted || turn?.aborted === true || signalFired(options.signal)) return aborted(usage);

  let body = history.text === "" ? NO_HISTORY : history.text;
  const alternatives: string[] = [];
  if (turn !== undefined) {
    const turnContext = `${TURN_CONTEXT_HEADING}\n\n${turn.text}`;
    body = `${body}\n\n---\n\n${turnContext}`;
    if (history.text === "") alternatives.push(turnContext);
  }

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
  if (history.digestedMessages !== undefined) details.digestedMessages = history.digestedMessages;
  const fallback = firstFallback(history, turn);
  if (fallback !== undefined) details.fallback = fallback;

  // The summary never exceeds the output cap, and is always smaller than what it replaces: whole.
  const limitTokens = Math.max(0, Math.min(capTokens, preparation.summarizedTokens - 1));
  const failed = [history.fallback, turn?.fallback].find(
    (failure) => failure !== undefined && failure.reason !== "call_cap",
  );
  const fitted = await fitSummary({
    kind: "history",
    body,
    incomplete: history.incomplete === true || turn?.incomplete === true,
    alternatives,
    fileOperations: preparation.fileOperations,
    maxChars: limitTokens * CHARS_PER_TOKEN,
    summarizer: common,
    ...(failed === undefined ? {} : { modelFailure: failed.message }),
    digest: (maxChars, reason) =>
      fallbackDigest({
        kind: "history",
        reason,
        previousSummary: previous,
        messages: [...preparation.messagesToSummarize, ...preparation.turnPrefixMessages],
        maxChars,
      }),
  });
  addUsage(usage, fitted.usage);
  if (fitted.aborted || signalFired(options.signal)) return aborted(usage);
  details.calls += fitted.calls;
  if (fitted.summaryShrunk !== undefined) details.summaryShrunk = fitted.summaryShrunk;
  if (fitted.summarySizes !== undefined) details.summarySizes = fitted.summarySizes;
  if (fitted.fileListsShortened !== undefined) details.fileListsShortened = fitted.fileListsShortened;
  const digestShortened =
    fitted.summaryShrunk === undefined
      ? history.digestShortened === true || turn?.digestShortened === true
      : fitted.digestShortened;
  if (digestShortened) details.summaryTruncated = true;
  const summary = fitted.text;
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

/**
 * Summarizes an over-long previous summary again when there is no new history to fold into it: in pieces
 * (at most `MAX_RESUMMARY_CALLS` calls), each folded by UPDATE; when the model fails, the deterministic
 * digest keeps as much of the previous summary as the cap allows.
 */
async function resummarize(
  previous: string,
  maxOutputTokens: number,
  common: Omit<SummarizeInput, "kind" | "messages" | "maxOutputTokens">,
): Promise<SummarizeOutcome> {
  const pieceChars =
    conversationBudgetChars(common.target.model, maxOutputTokens, "history", common.customInstructions) - 64;
  const outcome = await summarize({
    kind: "history",
    messages: summaryPieces(previous, Math.max(MIN_PIECE_CHARS, pieceChars), Date.now()),
    maxOutputTokens,
    ...common,
  });
  if (outcome.aborted || outcome.fallback === undefined) return outcome;
  const digest = fallbackDigest({
    kind: "history",
    reason: outcome.fallback.message,
    previousSummary: previous,
    messages: [],
    maxChars: maxOutputTokens * CHARS_PER_TOKEN,
  });
  return { ...outcome, text: digest.text, digestShortened: digest.shortened };
}

/** Smallest piece of a previous summary worth a call. */
const MIN_PIECE_CHARS = 800;

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
