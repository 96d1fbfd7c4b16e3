/**
 * Which entries each compaction and branch summary of a session stands for: a compaction covers the span
 * its `details.covered` names (from the entry after the previous compaction's kept start to the entry
 * before its own `firstKeptEntryId`); a branch summary covers the abandoned branch its `details.covered`
 * names. Files written by other programs (the pi agent) have no `details`: a compaction then covers the
 * entries before its `firstKeptEntryId` up to one an earlier compaction covers, and a branch summary
 * covers nothing it can name. Reads the tree fields of every entry and parses only the summaries.
 */
import { readCoveredSpan } from "@arbor/compaction";
import type { SessionEntryRef, SessionTreeNode } from "@arbor/session-store";

/** The summary that stands for each covered entry. */
export interface SummaryCoverage {
  /** Entry id → the compaction whose summary replaced it (the first one that did). */
  readonly compactedBy: ReadonlyMap<string, string>;
  /** Entry id → the branch summary whose summary stands for it (an abandoned branch). */
  readonly summarizedBy: ReadonlyMap<string, string>;
}

/**
 * Every entry of a tree (`Session.getTree()`), parents before children, branches in append order.
 *
 * Contract: O(entries); iterative (a 60,000-entry chain does not overflow the stack); parses nothing.
 */
export function entryRefs(roots: readonly SessionTreeNode[]): SessionTreeNode[] {
  const out: SessionTreeNode[] = [];
  const stack = [...roots].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    out.push(node);
    for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index]!);
  }
  return out;
}

/** Marks from `last` up its ancestors to `first` (inclusive), stopping at an entry already marked. */
function markSpan(
  parents: ReadonlyMap<string, string | null>,
  marks: Map<string, string>,
  summaryId: string,
  first: string | undefined,
  last: string,
): void {
  let id: string | null = last;
  while (id !== null && !marks.has(id) && parents.has(id)) {
    marks.set(id, summaryId);
    if (id === first) return;
    id = parents.get(id) ?? null;
  }
}

/**
 * The coverage of every compaction and branch summary among `refs` (every entry of a session, parents
 * before children, so the oldest compaction of a branch claims an entry first).
 *
 * Contract: pure apart from parsing the summary entries; O(entries), whatever the number of summaries
 * (the spans of two compactions never overlap, and a walk stops at an entry already marked).
 */
export function summaryCoverage(refs: readonly SessionEntryRef[]): SummaryCoverage {
  const parents = new Map<string, string | null>();
  const summaries: SessionEntryRef[] = [];
  for (const ref of refs) {
    parents.set(ref.id, ref.parentId);
    if (ref.type === "compaction" || ref.type === "branch_summary") summaries.push(ref);
  }
  const compactedBy = new Map<string, string>();
  const summarizedBy = new Map<string, string>();
  for (const ref of summaries) {
    const entry = ref.entry() as
      | { type: string; details?: unknown; firstKeptEntryId?: unknown; fromId?: unknown }
      | undefined;
    if (entry === undefined) continue;
    const span = readCoveredSpan(entry.details);
    if (ref.type === "branch_summary") {
      if (span !== undefined) markSpan(parents, summarizedBy, ref.id, span.firstEntryId, span.lastEntryId);
      continue;
    }
    if (span !== undefined) {
      markSpan(parents, compactedBy, ref.id, span.firstEntryId, span.lastEntryId);
      continue;
    }
    const kept = typeof entry.firstKeptEntryId === "string" ? entry.firstKeptEntryId : undefined;
    const before = kept === undefined ? undefined : parents.get(kept);
    if (typeof before === "string") markSpan(parents, compactedBy, ref.id, undefined, before);
  }
  return { compactedBy, summarizedBy };
}
