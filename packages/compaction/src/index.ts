/**
 * @arbor/compaction — token estimation, `shouldCompact`, cut points, `prepareCompaction`, `compact()` and
 * branch summaries (docs/reference/compaction.md), bounded (every summarizer call fits its model; chunks;
 * a deterministic fallback) and recoverable (`details.covered` names the summarized entries). It plans and
 * summarizes; it never writes to a store — the harness appends the entries.
 */

export {
  type BranchEntries,
  type BranchSummaryOutcome,
  type BranchSummaryResult,
  collectEntriesForBranchSummary,
  type EntryLookup,
  type GenerateBranchSummaryOptions,
  generateBranchSummary,
} from "./branch-summary.js";
export { type DeadlineOutcome, withDeadline } from "./call-deadline.js";
export {
  type CompactionAborted,
  type CompactionResult,
  type CompactOptions,
  type CompactOutcome,
  compact,
  TURN_CONTEXT_HEADING,
} from "./compact.js";
export {
  type BudgetSource,
  budgetSettings,
  type ConfiguredBudget,
  type ContextBudget,
  type ContextBudgetInput,
  contextBudget,
  DEFAULT_TOOL_OUTPUT_TOKENS,
  MIN_TOOL_OUTPUT_TOKENS,
  WINDOW_SHARES,
} from "./context-budget.js";
export { type CutPoint, findCutPoint } from "./cut-point.js";
export {
  type BranchSummaryDetails,
  type CompactionDetails,
  type CoveredEntryIdsOptions,
  type CoveredSpan,
  coveredEntryIds,
  type FileListsShortened,
  readCoveredSpan,
  type SummaryDetails,
  type SummaryFallback,
  type SummaryShrunk,
  type SummarySizes,
} from "./details.js";
export {
  type CompactionSettingAdjustment,
  type EffectiveCompactionSettings,
  effectiveCompactionSettings,
  MAX_KEEP_RECENT_RATIO,
  MAX_RESERVE_RATIO,
} from "./effective-settings.js";
export {
  type ElidedMessage,
  type ElideOptions,
  type ElisionResult,
  elideOversizedMessages,
  elisionMarker,
} from "./elide-messages.js";
export { isCutCandidate, isTurnStart } from "./entry-messages.js";
export {
  type CompactionErrorCode,
  InvalidCompactionArgumentError,
  InvalidCompactionSettingsError,
} from "./errors.js";
export {
  type FallbackDigest,
  type FallbackInput,
  fallbackDigest,
  fallbackSummary,
  MINIMAL_DIGEST,
  SHORT_DIGEST_HEADER,
} from "./fallback.js";
export {
  type FileOperations,
  FileOperationTracker,
  formatFileOperations,
  stripFileOperations,
} from "./file-operations.js";
export { deterministicMergeSummary, formatMergeSummary, type MergeSummaryParts } from "./merge-summary.js";
export {
  type CompactionPlan,
  type CompactionPreparation,
  effectiveKeepRecentTokens,
  type NothingToCompact,
  type PrepareCompactionOptions,
  prepareCompaction,
} from "./prepare.js";
export {
  BRANCH_PROMPT,
  BRANCH_UPDATE_PROMPT,
  HISTORY_PROMPT,
  HISTORY_UPDATE_PROMPT,
  SUMMARIZER_SYSTEM_PROMPT,
  SUMMARY_FORMAT,
  type SummaryKind,
  summaryInstructions,
  summaryLengthRequest,
  summaryRequest,
  TURN_PREFIX_PROMPT,
  TURN_PREFIX_UPDATE_PROMPT,
} from "./prompts.js";
export {
  DEFAULT_MIN_FREED_SHARE,
  DEFAULT_MIN_FREED_TOKENS,
  DEFAULT_MIN_RESULT_SAVING_TOKENS,
  type NothingToPrune,
  type PrunePlan,
  type PrunePlanOptions,
  type PrunePreparation,
  planPrune,
} from "./prune.js";
export { type SerializeOptions, serializeMessage, truncateEnd, truncateMiddle } from "./serialize.js";
export {
  type CompactionSettings,
  CompactionSettingsSchema,
  compactionThreshold,
  DEFAULT_COMPACTION_SETTINGS,
  DEFAULT_MAX_SUMMARIZER_CALLS,
  DEFAULT_SUMMARIZER_TIMEOUT_MS,
  resolveCompactionSettings,
  shouldCompact,
} from "./settings.js";
export { type CompactionStrategy, defaultCompactionStrategy } from "./strategy.js";
export {
  conversationBudgetChars,
  type SummarizeInput,
  type SummarizeOutcome,
  type SummarizerTarget,
  summarize,
  summaryOutputTokens,
} from "./summarizer.js";
export {
  boundSummary,
  MAX_RESUMMARY_CALLS,
  type SummaryBudget,
  shareSummaryBudget,
  summaryPieces,
} from "./summary-bounds.js";
export {
  type FitSummaryInput,
  type FittedSummary,
  fileCountLine,
  fitSummary,
  MAX_SHRINK_CALLS,
  MIN_RESUMMARY_TOKENS,
  stripFileCountLine,
} from "./summary-fit.js";
export {
  CHARS_PER_TOKEN,
  type ContextTokenEstimate,
  estimateContextTokens,
  estimateContextTokensFromTail,
  estimateTokens,
  IMAGE_CHARS,
  messageChars,
  tokensOfChars,
  usageTokensOf,
} from "./token-estimate.js";
export { VERSION } from "./version.js";
