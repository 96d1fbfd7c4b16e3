/**
 * @arbor/compaction/eval — a compaction quality evaluation: compact a session's branch with a summarizer
 * and score artifact retention, continuation, compression and (opt-in, with a real model) recall probes;
 * and the same sessions with and without the pruning layer (`comparePruning`).
 * Takes entries, not a store; `arbor eval compaction` reads session files. See docs/compaction-eval.md.
 */
export {
  type ArtifactRetention,
  type Artifacts,
  extractArtifacts,
  type RetentionCount,
  scoreRetention,
} from "./artifacts.js";
export {
  defaultRecallProbes,
  type EvalOptions,
  type EvalSession,
  evalSettings,
  evaluateCompaction,
  fallbackOnlySummarizer,
  formatEvalTable,
  type RecallProbe,
  type SessionEvalResult,
} from "./evaluate.js";
export { createExtractiveSummarizer, extractiveSummary } from "./extractive-summarizer.js";
export { branchOfEntries, generateLongSession } from "./generate.js";
export {
  comparePruning,
  formatPruneComparisonTable,
  type PruneComparison,
  type PruneComparisonOptions,
  type PruneComparisonSide,
  TARGET_SHARE_OF_THRESHOLD,
} from "./prune-comparison.js";
