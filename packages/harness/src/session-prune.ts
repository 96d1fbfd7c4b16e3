import type { AgentMessage } from "@arbor/agent-core";
import { type ContextTokenEstimate, estimateTokens, type NothingToPrune, planPrune } from "@arbor/compaction";
import type { PruneEntry, SessionMessage } from "@arbor/session-store";
import { compactionBranch } from "./compaction-branch.js";
import { estimateTranscriptTokens } from "./context-usage.js";
import type { SessionContext } from "./session-context.js";

/**
 * Pruning in the harness (docs/reference/compaction.md, "Pruning"): the first step when the context is
 * over its budget, before a summary. Old tool results become one-line stubs that say how to `recall` them;
 * a `prune` entry records which, so the context stays reproducible from the session. Internal: the
 * compactor calls {@link pruneSession} before it summarizes.
 */

/** What a prune needs of the session's context (`SessionContext`). */
export type PruneInput = Pick<SessionContext, "session" | "writer" | "budget" | "reloadTranscript">;

/** Options of {@link pruneSession}. */
export interface PruneRequest {
  /** Tokens of messages about to be sent that are not in the session yet (the check before a call). */
  pendingTokens?: number;
  /** Prune down to this estimate. Default: the budget's `targetTokens` (what a compaction aims to leave). */
  targetTokens?: number;
  /**
   * Also replace the agent's transcript (`reloadTranscript`). Only outside a run: agent-core refuses to
   * replace the messages while a run is in flight — in the check before a call, install
   * `outcome.messages` the way a compaction's are. Default false.
   */
  reloadTranscript?: boolean;
}

/** The `details` the harness writes in a `prune` entry. */
export interface HarnessPruneDetails {
  /** Estimated tokens the stubs free (`tokensBefore - tokensAfter`). */
  freedTokens: number;
  /** The target the prune aimed for. */
  targetTokens: number;
  /** The kept tail it protected. */
  keepRecentTokens: number;
}

/** What {@link pruneSession} did. */
export type PruneOutcome =
  | {
      kind: "pruned";
      /** The `prune` entry (saved, unless `saved` is false). */
      entryId: string;
      /** The tool results shown as stubs from now on. */
      entryIds: string[];
      /** How many: `entryIds.length`. */
      count: number;
      tokensBefore: number;
      /** The estimate to decide on now (see {@link PrunedUsage}). */
      tokensAfter: number;
      freedTokens: number;
      /** False when the save point failed: the entry is then pending and the writer failed (see `SessionWriter`). */
      saved: boolean;
      /** The session's context after the prune: the transcript to install. */
      messages: AgentMessage[];
      /**
       * The assistant message whose reported usage anchored the estimate before the prune (it counted the
       * pruned results whole), or undefined when the estimate was chars/4 throughout.
       */
      usageAnchor: AgentMessage | undefined;
    }
  | {
      kind: "nothing_to_prune";
      /** See `NothingToPrune` of `@arbor/compaction`. */
      reason: NothingToPrune["reason"];
      tokensBefore: number;
    };

/**
 * Plans a prune of the current branch (`planPrune` over `compactionBranch`, with the budget's kept tail and
 * target), appends the `prune` entry at the leaf and saves it (a save point of reason `operation`, with
 * whatever else is pending). Returns the new context as `messages`; replaces the agent's transcript only
 * with `reloadTranscript: true`. Emits nothing: the caller reports the outcome.
 *
 * Until the next reply, the usage the provider reported last still counts the pruned results whole, so
 * `estimateTranscriptTokens` of the new transcript stays at `tokensBefore`: decide on `tokensAfter`, and
 * correct later estimates with {@link PrunedUsage}.
 *
 * Contract: O(branch since the latest compaction's kept part); appends nothing when there is nothing to
 * prune; never throws but for a broken session (an entry of the branch that cannot be appended after).
 */
export async function pruneSession(context: PruneInput, request: PruneRequest = {}): Promise<PruneOutcome> {
  const { session, writer } = context;
  const budget = context.budget();
  const targetTokens = request.targetTokens ?? budget.targetTokens;
  const plan = planPrune(compactionBranch(session, session.leafId), {
    keepRecentTokens: budget.keepRecentTokens,
    targetTokens,
    pendingTokens: request.pendingTokens ?? 0,
  });
  if (plan.kind !== "ready") {
    return { kind: "nothing_to_prune", reason: plan.reason, tokensBefore: plan.tokensBefore };
  }
  const before = session.buildContext().messages as AgentMessage[];
  const anchorIndex = estimateTranscriptTokens(before).lastUsageIndex;
  // The plan counts a pruned result whole; when the usage that anchors its estimate counted it cut (a result
  // refitted or elided for a request), that would free more than was sent. The context after the prune is at
  // least its stored messages' chars/4 less what the stubs free.
  let stored = 0;
  for (const message of before) stored += estimateTokens(message as unknown as SessionMessage);
  const tokensAfter = Math.min(plan.tokensBefore, Math.max(plan.tokensAfter, stored - plan.freedTokens, 0));
  const freedTokens = plan.tokensBefore - tokensAfter;
  const details: HarnessPruneDetails = {
    freedTokens,
    targetTokens,
    keepRecentTokens: budget.keepRecentTokens,
  };
  const entry: PruneEntry = session.appendPrune({
    entryIds: plan.entryIds,
    tokensBefore: plan.tokensBefore,
    tokensAfter,
    details,
  });
  writer.track([entry]);
  const saved = await writer.save("operation");
  if (request.reloadTranscript === true) context.reloadTranscript();
  return {
    kind: "pruned",
    entryId: entry.id,
    entryIds: plan.entryIds,
    count: plan.entryIds.length,
    tokensBefore: plan.tokensBefore,
    tokensAfter,
    freedTokens,
    saved,
    messages: session.buildContext().messages as AgentMessage[],
    usageAnchor: anchorIndex === undefined ? undefined : before[anchorIndex],
  };
}

/**
 * Corrects the estimate of a transcript for the prunes made since the usage that anchors it: that usage
 * counted the pruned results whole, so `estimateTranscriptTokens` over-counts by what they freed until the
 * next reply reports a usage of its own. Without the correction the check before the next call (a retry,
 * a call after a failed one) would prune or compact again, and the fitting of the call would elide.
 */
export class PrunedUsage {
  private anchor: AgentMessage | undefined;
  private freed = 0;

  /**
   * Remembers a prune (nothing for `nothing_to_prune`).
   *
   * Contract: O(1); prunes with the same anchor add up, a prune with another anchor starts over.
   */
  record(outcome: PruneOutcome): void {
    if (outcome.kind !== "pruned" || outcome.usageAnchor === undefined) return;
    if (outcome.usageAnchor !== this.anchor) this.freed = 0;
    this.anchor = outcome.usageAnchor;
    this.freed += outcome.freedTokens;
  }

  /**
   * The tokens to subtract from `estimate` (of `transcript`): what the recorded prunes freed while the
   * estimate rests on the usage they predate, else 0.
   *
   * Contract: O(1); never throws.
   */
  staleTokens(transcript: readonly AgentMessage[], estimate: ContextTokenEstimate): number {
    const index = estimate.lastUsageIndex;
    if (this.anchor === undefined || index === undefined || transcript[index] !== this.anchor) return 0;
    return Math.min(this.freed, estimate.usageTokens);
  }
}
