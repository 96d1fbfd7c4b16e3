/**
 * Tokens and cost of a session so far, for the footer: every reply's usage plus what summarizing cost
 * (compactions and branch summaries record their summarizer's usage in `details.usage`). Counted once over
 * the session's entries when the UI attaches to it, then kept up to date from events.
 */
import type { Usage } from "@arbor/ai-providers";
import type { Session, SessionEntry, SessionTreeNode } from "@arbor/session-store";

/** Token counts and cost summed over responses. */
export interface UsageTotals {
  /** Prompt tokens, cached ones included (`input + cacheRead + cacheWrite`). */
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  /** US dollars. */
  readonly cost: number;
}

/** No usage yet. */
export const EMPTY_TOTALS: UsageTotals = Object.freeze({ input: 0, output: 0, cacheRead: 0, cost: 0 });

function finite(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * The totals with one usage added. A malformed usage (from a file another program wrote) counts as zero.
 *
 * Contract: pure.
 */
export function addToTotals(totals: UsageTotals, usage: Partial<Usage> | undefined): UsageTotals {
  if (typeof usage !== "object" || usage === null) return totals;
  const cacheRead = finite(usage.cacheRead);
  const cost = typeof usage.cost === "object" && usage.cost !== null ? finite(usage.cost.total) : 0;
  return {
    input: totals.input + finite(usage.input) + cacheRead + finite(usage.cacheWrite),
    output: totals.output + finite(usage.output),
    cacheRead: totals.cacheRead + cacheRead,
    cost: totals.cost + cost,
  };
}

/** The usage an entry records: a reply's, or a summarizer's (`details.usage`). */
export function usageOfEntry(entry: SessionEntry | undefined): Partial<Usage> | undefined {
  if (entry === undefined) return undefined;
  if (entry.type === "message") {
    const message = entry.message as { role?: unknown; usage?: unknown };
    return message.role === "assistant" ? (message.usage as Partial<Usage> | undefined) : undefined;
  }
  if (entry.type === "compaction" || entry.type === "branch_summary") {
    const details = (entry as { details?: unknown }).details;
    if (typeof details === "object" && details !== null) {
      return (details as { usage?: Partial<Usage> }).usage;
    }
  }
  return undefined;
}

const COUNTED_TYPES = new Set(["message", "compaction", "branch_summary"]);

/**
 * The totals of every entry of a session (all branches: abandoned ones were paid for too).
 *
 * Contract: O(entries), iterative; parses only `message`, `compaction` and `branch_summary` entries.
 */
export function sessionUsageTotals(session: Session): UsageTotals {
  let totals = EMPTY_TOTALS;
  const stack: SessionTreeNode[] = [...session.getTree()];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (COUNTED_TYPES.has(node.type)) totals = addToTotals(totals, usageOfEntry(node.entry()));
    for (const child of node.children) stack.push(child);
  }
  return totals;
}
