/**
 * The warning a context meter shows when the context is over the compaction threshold and the last
 * compaction freed nothing (nothing to compact, cancelled by a hook, failed): without it the meter sits past
 * its threshold mark and nothing says why. The web demo shows it under its meter; any front end that keeps
 * the last compaction's outcome can show it.
 */
import type { HarnessCompactionOutcome } from "@arbor/harness";
import { formatCount } from "./format.js";

/** What a notice needs of a compaction's outcome (`compaction_end`'s `outcome`, or `compact()`'s result). */
export type CompactionOutcomeWords = Pick<HarnessCompactionOutcome, "kind" | "message">;

/** The meter's figures: the context's size, the window and the threshold (a `ContextBreakdown` has them). */
export interface ContextMeterReading {
  /** The context's size as the meter shows it (a breakdown's `total`, or `sessionContextUsage().tokens`). */
  readonly tokens: number;
  readonly contextWindow: number;
  /** Automatic compaction runs above this many tokens. */
  readonly compactionThreshold: number;
}

/** The outcomes after which a context over the threshold gets a notice: it stays over it. */
export type UnhelpfulCompaction = "nothing_to_compact" | "cancelled" | "failed";

/** {@link compactionNotice}'s result: a warning, its text, and what it is made of. */
export interface CompactionNotice extends ContextMeterReading {
  readonly level: "warning";
  /**
   * The outcome's words, then the meter's: `Nothing to compact: …. The context stays above the compaction
   * threshold: about 5,812 of 6,000 tokens (threshold 4,800).`
   */
  readonly text: string;
  readonly outcome: UnhelpfulCompaction;
  /** The outcome's own message, as the harness words it. */
  readonly message: string;
}

const UNHELPFUL: ReadonlySet<string> = new Set<UnhelpfulCompaction>([
  "nothing_to_compact",
  "cancelled",
  "failed",
]);

/**
 * The notice for a context over the compaction threshold whose last compaction freed nothing, or
 * `undefined`: when there was no compaction yet, the last one compacted (a later success replaces the
 * notice) or was aborted (the user stopped it), or the context is at or under the threshold.
 *
 * Contract: pure.
 */
export function compactionNotice(
  last: CompactionOutcomeWords | undefined,
  meter: ContextMeterReading,
): CompactionNotice | undefined {
  if (last === undefined || !UNHELPFUL.has(last.kind)) return undefined;
  if (!(meter.tokens > meter.compactionThreshold)) return undefined;
  const message = last.message.trim();
  const figures = `about ${formatCount(meter.tokens)} of ${formatCount(meter.contextWindow)} tokens (threshold ${formatCount(meter.compactionThreshold)})`;
  const sentence = message === "" || /[.!?…]$/.test(message) ? message : `${message}.`;
  return {
    level: "warning",
    text: `${sentence} The context stays above the compaction threshold: ${figures}.`.trimStart(),
    outcome: last.kind as UnhelpfulCompaction,
    message: last.message,
    tokens: meter.tokens,
    contextWindow: meter.contextWindow,
    compactionThreshold: meter.compactionThreshold,
  };
}
