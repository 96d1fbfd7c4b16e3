/**
 * Merging a branch into another: `HarnessSession.mergeBranch` folds what the branch ending at
 * `sourceLeafId` concluded into the branch of `into` as a `branch_summary` entry (hooks, phases, events
 * and the busy guard as in every front end).
 */
import type { HarnessSession, MergeBranchResult } from "@arbor/harness";
import { OperationRefusedError } from "./operation-error.js";
import { assertIdle, entryOf } from "./operation-host.js";

/** What {@link mergeBranchInto} did (the harness's result without the appended entries). */
export type MergeResult =
  | Omit<Extract<MergeBranchResult, { kind: "merged" }>, "entries">
  | { kind: "cancelled" }
  | { kind: "aborted" };

/** Options of {@link mergeBranchInto}. */
export interface MergeOptions {
  /** The last entry of the branch to fold in. */
  sourceLeafId: string;
  /** The entry of the branch that receives the summary; default the current leaf. */
  into?: string;
  /** Ask the summarizer (default `true`); `false`: the deterministic digest. */
  summarize?: boolean;
  /** A note put first in the summary. */
  message?: string;
}

/**
 * Merges a branch of the current session into another (see the module comment).
 *
 * Contract: refuses with `not_found` (an unknown entry), `invalid` (no branch to merge into) or `busy`
 * before anything changes; throws the harness's `InvalidMergeError` when there is nothing to fold in.
 */
export async function mergeBranchInto(session: HarnessSession, options: MergeOptions): Promise<MergeResult> {
  const tree = session.session;
  entryOf(tree, options.sourceLeafId);
  const into = options.into ?? tree.leafId;
  if (into === null) {
    throw new OperationRefusedError("The current branch is empty: pick the branch to merge into.", "invalid");
  }
  entryOf(tree, into);
  assertIdle(session);
  const result = await session.mergeBranch(options.sourceLeafId, {
    into,
    ...(options.summarize === undefined ? {} : { summarize: options.summarize }),
    ...(options.message === undefined ? {} : { message: options.message }),
  });
  if (result.kind !== "merged") return result;
  const { entries: _entries, ...merged } = result;
  return merged;
}
