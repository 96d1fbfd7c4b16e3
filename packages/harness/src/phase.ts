/**
 * What a harness session is doing:
 *
 * - `idle`: nothing in flight;
 * - `turn`: the agent is running (model calls and tools);
 * - `compaction`: a compaction is summarizing (before a model call, after an overflow, or `compact()`);
 * - `branch_summary`: `navigateTree()` is summarizing the branch being left, or `mergeBranch()` the branch it
 *   folds in;
 * - `retry`: waiting before retrying a transient provider failure.
 */
export type HarnessPhase = "idle" | "turn" | "compaction" | "branch_summary" | "retry";

/** The structural operations of a session; at most one is in flight. */
export type HarnessOperation = "prompt" | "continue" | "compact" | "navigateTree" | "mergeBranch" | "fork";

/** The phase an operation starts in (a prompt may pass through `compaction` and `retry` later). */
export const INITIAL_PHASE: Readonly<Record<HarnessOperation, HarnessPhase>> = {
  prompt: "turn",
  continue: "turn",
  compact: "compaction",
  navigateTree: "branch_summary",
  mergeBranch: "branch_summary",
  fork: "idle",
};
