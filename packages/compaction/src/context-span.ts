import type { CompactionEntry, SessionEntry } from "@arbor/session-store";

/** What {@link contextSpan} returns. */
export interface ContextSpan {
  /** That compaction, when there is one. */
  previous: CompactionEntry | undefined;
  /** The index where the context's messages start: the compaction's kept part, or the root. */
  regionStart: number;
}

/**
 * The span of a branch (oldest first) that the model's context is built from: the latest compaction (whose
 * summary opens the context) and the first entry after its summarized part — its `firstKeptEntryId`, or the
 * entry after the compaction when that id is not found before it.
 *
 * Contract: pure; O(entries since the kept part); never throws.
 */
export function contextSpan(branchEntries: readonly SessionEntry[]): ContextSpan {
  let previousIndex = -1;
  for (let index = branchEntries.length - 1; index >= 0; index--) {
    if (branchEntries[index]!.type === "compaction") {
      previousIndex = index;
      break;
    }
  }
  const previous = previousIndex >= 0 ? (branchEntries[previousIndex] as CompactionEntry) : undefined;
  let regionStart = previousIndex + 1;
  if (previous !== undefined && previous.firstKeptEntryId !== previous.id) {
    for (let index = previousIndex - 1; index >= 0; index--) {
      if (branchEntries[index]!.id === previous.firstKeptEntryId) {
        regionStart = index;
        break;
      }
    }
  }
  return { previous, regionStart };
}
