import { prunedToolResult, type SessionEntry, type SessionMessage } from "@arbor/session-store";
import { entryMessage } from "../entry-messages.js";
import { prepareCompaction } from "../prepare.js";
import { planPrune } from "../prune.js";
import { serializeMessage } from "../serialize.js";
import { type ArtifactRetention, extractArtifacts, scoreRetention } from "./artifacts.js";
import {
  type EvalOptions,
  type EvalSession,
  evalSettings,
  evaluateCompaction,
  fallbackOnlySummarizer,
  percent,
} from "./evaluate.js";

/**
 * The pruning layer judged by numbers (docs/compaction-eval.md, "With and without pruning"): each session
 * is taken as if its context had just crossed the compaction threshold, and handled twice — without
 * pruning (today's compaction) and with it (prune down to the target, then compact only if the context is
 * still over the threshold). Reported per side: tokens freed, summarizer calls, tokens freed per call and
 * the retention of the older span's artifacts in what the model sees afterwards.
 */

/** The target of a prune as a share of the threshold: the context budget's 60% of the window / 80%. */
export const TARGET_SHARE_OF_THRESHOLD = 0.75;

/** Options of {@link comparePruning}: those of `evaluateCompaction` (recall excepted) and where the context is. */
export interface PruneComparisonOptions extends Omit<EvalOptions, "recall"> {
  /** The context as a multiple of the compaction threshold when the layer runs. Default 1.1. */
  overThreshold?: number;
}

/** One side of a {@link PruneComparison}. */
export interface PruneComparisonSide {
  /** `compacted`, `pruned`, `pruned + compacted`, or why nothing ran (`nothing_to_compact: <reason>`). */
  status: string;
  tokensBefore: number;
  tokensAfter: number;
  freedTokens: number;
  /** Tool results pruned (0 without pruning). */
  prunedResults: number;
  summarizerCalls: number;
  /** `freedTokens / summarizerCalls`; undefined when no summarizer call was needed. */
  freedPerCall: number | undefined;
  /** The older span's artifacts kept in what the model sees (the summary, or the pruned messages). */
  retention?: ArtifactRetention;
}

/** A session handled without and with pruning. */
export interface PruneComparison {
  name: string;
  summarizer: string;
  /** The threshold the session's context is taken to have crossed: its estimate / `overThreshold`. */
  threshold: number;
  /** What pruning aims for: {@link TARGET_SHARE_OF_THRESHOLD} of the threshold. */
  targetTokens: number;
  /** The kept tail of both sides. */
  keepRecentTokens: number;
  without: PruneComparisonSide;
  withPruning: PruneComparisonSide;
}

function side(
  status: string,
  tokensBefore: number,
  tokensAfter: number,
  calls: number,
  prunedResults: number,
  retention: ArtifactRetention | undefined,
): PruneComparisonSide {
  const freedTokens = Math.max(0, tokensBefore - tokensAfter);
  const result: PruneComparisonSide = {
    status,
    tokensBefore,
    tokensAfter,
    freedTokens,
    prunedResults,
    summarizerCalls: calls,
    freedPerCall: calls === 0 ? undefined : freedTokens / calls,
  };
  if (retention !== undefined) result.retention = retention;
  return result;
}

/**
 * Handles one session without and with pruning (see the module comment). Both sides keep the same tail
 * (`evaluateCompaction`'s: a quarter of the branch); compaction itself is unchanged by a prune (it plans on
 * the entries), so when pruning is not enough the "with" side runs the same compaction after the prune.
 * Retention on the "with" side, when pruning sufficed, scores the artifacts of the span the compaction
 * would have summarized against that span as the model now sees it (stubs for the pruned results).
 *
 * Contract: never writes; takes entries, not a store; never throws for provider failures.
 */
export async function comparePruning(
  session: EvalSession,
  options: PruneComparisonOptions = {},
): Promise<PruneComparison> {
  const summarizer = options.summarizer ?? fallbackOnlySummarizer(options.contextWindow);
  const { window, settings } = evalSettings(session, summarizer, options);
  const compaction = await evaluateCompaction(session, { ...options, summarizer });
  const compression = compaction.compression;
  const preparation = prepareCompaction(session.entries, settings, { contextWindow: window });
  const tokensBefore = preparation.tokensBefore;
  const threshold = Math.floor(tokensBefore / Math.max(1, options.overThreshold ?? 1.1));
  const targetTokens = Math.floor(threshold * TARGET_SHARE_OF_THRESHOLD);
  const keepRecentTokens =
    preparation.kind === "ready" ? preparation.keepRecentTokens : settings.keepRecentTokens;

  const without =
    compression === undefined
      ? side(compaction.status, tokensBefore, tokensBefore, 0, 0, undefined)
      : side(
          compaction.status,
          compression.tokensBefore,
          compression.tokensAfter,
          compression.summarizerCalls,
          0,
          compaction.retention,
        );

  const plan = planPrune(session.entries, { keepRecentTokens, targetTokens });
  let withPruning: PruneComparisonSide;
  if (plan.kind === "ready" && plan.tokensAfter <= threshold) {
    const retention =
      preparation.kind === "ready" ? prunedRetention(session.entries, preparation, plan.entryIds) : undefined;
    withPruning = side("pruned", plan.tokensBefore, plan.tokensAfter, 0, plan.entryIds.length, retention);
  } else {
    // Still over the threshold: the same compaction runs after the prune.
    const pruned = plan.kind === "ready" ? plan.entryIds.length : 0;
    withPruning = { ...without, prunedResults: pruned };
    if (pruned > 0) withPruning.status = `pruned + ${without.status}`;
  }
  return {
    name: session.name,
    summarizer: compaction.summarizer,
    threshold,
    targetTokens,
    keepRecentTokens,
    without,
    withPruning,
  };
}

/** The retention of the span a compaction would summarize, as the model sees it after the prune. */
function prunedRetention(
  entries: readonly SessionEntry[],
  preparation: Extract<ReturnType<typeof prepareCompaction>, { kind: "ready" }>,
  prunedIds: readonly string[],
): ArtifactRetention {
  const stubs = new Map<SessionMessage, SessionMessage>();
  const ids = new Set(prunedIds);
  for (const entry of entries) {
    if (!ids.has(entry.id)) continue;
    const message = entryMessage(entry);
    if (message?.role === "toolResult") stubs.set(message, prunedToolResult(message, entry.id));
  }
  const span: SessionMessage[] = [...preparation.messagesToSummarize, ...preparation.turnPrefixMessages];
  if (preparation.previousSummary !== undefined) {
    span.unshift({
      role: "compactionSummary",
      summary: preparation.previousSummary,
      tokensBefore: 0,
      timestamp: 0,
    });
  }
  const seen = span
    .map((message) =>
      serializeMessage(stubs.get(message) ?? message, { toolResultMaxChars: Number.MAX_SAFE_INTEGER }),
    )
    .filter((text): text is string => text !== undefined);
  return scoreRetention(extractArtifacts(span), seen.join("\n"));
}

function perCall(value: number | undefined, calls: number): string {
  return value === undefined ? (calls === 0 ? "no call" : "-") : String(Math.round(value));
}

/** The comparisons as a Markdown table (one row per session and summarizer). */
export function formatPruneComparisonTable(results: readonly PruneComparison[]): string {
  const rows = [
    "| session | summarizer | tokens before | without: status | calls | freed | freed/call | artifacts | with pruning: status | pruned | calls | freed | freed/call | artifacts |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const result of results) {
    const a = result.without;
    const b = result.withPruning;
    rows.push(
      `| ${result.name} | ${result.summarizer} | ${a.tokensBefore} | ${a.status} | ${a.summarizerCalls} | ${a.freedTokens} | ` +
        `${perCall(a.freedPerCall, a.summarizerCalls)} | ${percent(a.retention?.score)} | ${b.status} | ${b.prunedResults} | ` +
        `${b.summarizerCalls} | ${b.freedTokens} | ${perCall(b.freedPerCall, b.summarizerCalls)} | ${percent(b.retention?.score)} |`,
    );
  }
  return rows.join("\n");
}
