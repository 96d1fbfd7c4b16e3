import type { SessionEntry } from "@arbor/session-store";
import { type CompactOptions, type CompactOutcome, compact } from "./compact.js";
import {
  type CompactionPlan,
  type CompactionPreparation,
  type PrepareCompactionOptions,
  prepareCompaction,
} from "./prepare.js";
import type { CompactionSettings } from "./settings.js";

/**
 * How a session is compacted (docs/architecture.md, "CompactionStrategy"): pure planning plus summarizing. The harness holds one
 * and calls it before a model call when `shouldCompact` says so, then appends the result as a
 * `compaction` entry; an application may supply its own (e.g. one that keeps more, or summarizes
 * differently) without touching the harness.
 */
export interface CompactionStrategy {
  /**
   * Plans a compaction of a branch (root first).
   *
   * Contract: pure and synchronous; never writes; O(branch length); returns `{ kind: "nothing_to_compact" }`
   * rather than throwing when there is nothing to summarize.
   */
  prepare(
    branchEntries: readonly SessionEntry[],
    settings: CompactionSettings,
    options?: PrepareCompactionOptions,
  ): CompactionPlan;
  /**
   * Summarizes a plan.
   *
   * Contract: never throws for provider failures (it falls back and says so in `details.fallback`); never
   * writes; resolves to `{ kind: "aborted" }` when `options.signal` fires, so that the caller appends nothing.
   */
  compact(preparation: CompactionPreparation, options: CompactOptions): Promise<CompactOutcome>;
}

/** The built-in strategy: {@link prepareCompaction} and {@link compact}. */
export const defaultCompactionStrategy: CompactionStrategy = Object.freeze({
  prepare: prepareCompaction,
  compact,
});
