import { emptyUsage, type Usage } from "@arbor/ai-providers";
import type { Session, SessionEntry, SessionTreeNode } from "@arbor/session-store";

/** Token counts and cost summed over model calls. */
export interface UsageTotal extends Usage {
  /** The responses and summaries counted. */
  calls: number;
}

/**
 * What a session's model calls used, over every branch (abandoned branches were paid for too): every
 * assistant response's `usage`, plus the summarizer's usage that compactions and branch summaries record in
 * `details.usage`. `input` excludes cached tokens (the prompt size is `input + cacheRead + cacheWrite`).
 */
export interface SessionUsage extends UsageTotal {
  /**
   * The same totals per model, as `provider/id`: a response's model, or a summary's `details.summarizerModel`
   * (`summarizer` when it does not say).
   */
  byModel: Record<string, UsageTotal>;
}

const COUNTED_TYPES: ReadonlySet<string> = new Set(["message", "compaction", "branch_summary"]);

function emptyTotal(): UsageTotal {
  return { ...emptyUsage(), calls: 0 };
}

function finite(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** Adds one usage to a total; a malformed usage (from a file another program wrote) counts its numbers as 0. */
function add(total: UsageTotal, usage: Partial<Usage>): void {
  total.input += finite(usage.input);
  total.output += finite(usage.output);
  total.cacheRead += finite(usage.cacheRead);
  total.cacheWrite += finite(usage.cacheWrite);
  total.totalTokens += finite(usage.totalTokens);
  const cost = typeof usage.cost === "object" && usage.cost !== null ? usage.cost : undefined;
  if (cost !== undefined) {
    total.cost.input += finite(cost.input);
    total.cost.output += finite(cost.output);
    total.cost.cacheRead += finite(cost.cacheRead);
    total.cost.cacheWrite += finite(cost.cacheWrite);
    total.cost.total += finite(cost.total);
  }
  total.calls++;
}

/** The usage an entry records and the model it is counted under, when it records one. */
function usageOf(entry: SessionEntry | undefined): { usage: Partial<Usage>; model: string } | undefined {
  if (entry === undefined) return undefined;
  if (entry.type === "message") {
    const message = entry.message as { role?: unknown; usage?: unknown; provider?: unknown; model?: unknown };
    if (message.role !== "assistant" || typeof message.usage !== "object" || message.usage === null) return;
    return {
      usage: message.usage as Partial<Usage>,
      model: `${String(message.provider)}/${String(message.model)}`,
    };
  }
  if (entry.type !== "compaction" && entry.type !== "branch_summary") return undefined;
  const details = (entry as { details?: unknown }).details as
    | { usage?: unknown; summarizerModel?: unknown }
    | undefined;
  if (typeof details !== "object" || details === null) return undefined;
  if (typeof details.usage !== "object" || details.usage === null) return undefined;
  const model = typeof details.summarizerModel === "string" ? details.summarizerModel : "summarizer";
  return { usage: details.usage as Partial<Usage>, model };
}

/**
 * The {@link SessionUsage} of a session, as its entries (written and pending) hold it.
 *
 * Contract: O(entries), iterative; parses only `message`, `compaction` and `branch_summary` entries; never
 * throws for malformed usage.
 */
export function sessionUsage(session: Session): SessionUsage {
  const total: SessionUsage = { ...emptyTotal(), byModel: {} };
  const stack: SessionTreeNode[] = [...session.getTree()];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const child of node.children) stack.push(child);
    if (!COUNTED_TYPES.has(node.type)) continue;
    const counted = usageOf(node.entry());
    if (counted === undefined) continue;
    add(total, counted.usage);
    const perModel = total.byModel[counted.model] ?? emptyTotal();
    add(perModel, counted.usage);
    total.byModel[counted.model] = perModel;
  }
  return total;
}
