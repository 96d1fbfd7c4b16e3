/** Moving the current session's leaf to another entry, optionally summarizing the branch left. */
import type { HarnessSession } from "@arbor/harness";

/** What {@link navigate} did (the harness's result without the appended entries). */
export type NavigateResult =
  | {
      kind: "moved";
      /** The new leaf: the target, or the branch summary appended as its child. */
      leafId: string | null;
      /** True when a `session_before_tree` hook supplied the summary. */
      fromHook: boolean;
      /** The `branch_summary` entry, when one was written. */
      summaryEntryId?: string;
      summary?: string;
    }
  | { kind: "cancelled" }
  | { kind: "aborted" };

/** Options of {@link navigate}. */
export interface NavigateOptions {
  /** Summarize the branch left (default `true`). */
  summarize?: boolean;
  /** A focus for the summary. */
  instructions?: string;
}

/**
 * Moves the leaf to `entryId` (`null`: the start) through `HarnessSession.navigateTree`.
 *
 * Contract: throws the harness's errors (an unknown entry, a busy session) before anything changes.
 */
export async function navigate(
  session: HarnessSession,
  entryId: string | null,
  options: NavigateOptions = {},
): Promise<NavigateResult> {
  const result = await session.navigateTree(entryId, {
    ...(options.summarize === undefined ? {} : { summarize: options.summarize }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
  if (result.kind !== "moved") return result;
  return {
    kind: result.kind,
    leafId: result.leafId,
    fromHook: result.fromHook,
    ...(result.summaryEntryId === undefined ? {} : { summaryEntryId: result.summaryEntryId }),
    ...(result.summary === undefined ? {} : { summary: result.summary }),
  };
}
