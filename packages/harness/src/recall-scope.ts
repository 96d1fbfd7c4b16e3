import { readCoveredSpan } from "@arbor/compaction";
import type { Session, SessionEntry, SessionEntryRef } from "@arbor/session-store";

/**
 * What the `recall` tool may return: the entries the summaries on the current branch stand for, and the
 * tool results a `prune` on it shows as stubs (see `createRecallTool`), and why any other entry is refused.
 */

/** A recallable entry and the summary that replaced it. */
export interface Recallable {
  ref: SessionEntryRef;
  /** The compaction or branch summary whose summary stands for it, or the prune that made it a stub. */
  summaryId: string;
  /** Conversation order: path position, then abandoned branches after the path. */
  order: number;
}

/** What the current branch's summaries replaced. */
export interface RecallScope {
  session: Session;
  /** Position of each entry of the current path. */
  positions: Map<string, number>;
  /** Replaced entries by id. */
  byId: Map<string, Recallable>;
  /** The compactions, branch summaries and prunes on the current path, in path order. */
  summaries: { id: string; type: string; timestamp: string }[];
}

export const CONTEXT_TYPES: ReadonlySet<string> = new Set(["message", "custom_message", "branch_summary"]);

/**
 * Finds the replaced entries of the current branch. Costs O(path length) reading only tree fields, plus
 * parsing the compactions and branch summaries on the path and the abandoned spans those summaries cover —
 * never the rest of the session.
 */
export function collectScope(session: Session): RecallScope {
  const path = session.getPath();
  const positions = new Map<string, number>();
  for (const [position, ref] of path.entries()) positions.set(ref.id, position);
  const scope: RecallScope = { session, positions, byId: new Map(), summaries: [] };
  const ranges: { id: string; end: number }[] = [];
  const branchSummaries: SessionEntry[] = [];
  const prunes: { id: string; position: number; entryIds: readonly string[] }[] = [];
  for (const [position, ref] of path.entries()) {
    if (ref.type === "prune") {
      const entry = ref.entry();
      if (entry?.type !== "prune") continue;
      scope.summaries.push({ id: entry.id, type: entry.type, timestamp: entry.timestamp });
      prunes.push({ id: entry.id, position, entryIds: entry.entryIds });
      continue;
    }
    if (ref.type !== "compaction" && ref.type !== "branch_summary") continue;
    const entry = ref.entry();
    if (entry === undefined) continue;
    scope.summaries.push({ id: entry.id, type: entry.type, timestamp: entry.timestamp });
    if (entry.type === "branch_summary") branchSummaries.push(entry);
    else if (entry.type === "compaction") {
      const kept = positions.get(entry.firstKeptEntryId);
      ranges.push({ id: entry.id, end: kept !== undefined && kept <= position ? kept : position });
    }
  }
  // Compaction i replaced what lies between the kept starts of compactions i-1 and i (its own
  // `firstKeptEntryId`); the latest one's kept start ends everything hidden from the context.
  const hiddenEnd = ranges.at(-1)?.end ?? 0;
  let range = 0;
  for (let position = 0; position < hiddenEnd; position++) {
    while (range < ranges.length - 1 && ranges[range]!.end <= position) range++;
    const ref = path[position]!;
    if (CONTEXT_TYPES.has(ref.type)) {
      scope.byId.set(ref.id, { ref, summaryId: ranges[range]!.id, order: position });
    }
  }
  // A prune on the path stands for the tool results it shows as stubs (those still in the context).
  for (const prune of prunes) {
    for (const id of prune.entryIds) {
      const position = positions.get(id);
      if (position === undefined || position < hiddenEnd || position > prune.position || scope.byId.has(id))
        continue;
      scope.byId.set(id, { ref: path[position]!, summaryId: prune.id, order: position });
    }
  }
  let order = path.length;
  for (const summary of branchSummaries) {
    for (const ref of abandonedSpan(session, summary, positions)) {
      if (!scope.byId.has(ref.id)) scope.byId.set(ref.id, { ref, summaryId: summary.id, order: order++ });
    }
  }
  return scope;
}

/** The context entries of the abandoned branch a branch summary covers (`details.covered`), oldest first. */
function abandonedSpan(
  session: Session,
  summary: SessionEntry,
  positions: Map<string, number>,
): SessionEntryRef[] {
  const span = readCoveredSpan((summary as { details?: unknown }).details);
  if (span === undefined || !session.has(span.lastEntryId) || positions.has(span.lastEntryId)) return [];
  const refs: SessionEntryRef[] = [];
  let id: string | null = span.lastEntryId;
  while (id !== null && !positions.has(id)) {
    const entry = session.getEntry(id);
    if (entry === undefined) break;
    if (CONTEXT_TYPES.has(entry.type)) refs.push(refOf(entry));
    if (id === span.firstEntryId) break;
    id = entry.parentId;
  }
  return refs.reverse();
}

function refOf(entry: SessionEntry): SessionEntryRef {
  return { id: entry.id, type: entry.type, parentId: entry.parentId, label: undefined, entry: () => entry };
}

/** Why an id that the session holds is not recallable. */
export function refusal(scope: RecallScope, id: string, compactionId: string | undefined): string {
  const recallable = scope.byId.get(id);
  if (recallable !== undefined) return `${id} (replaced by ${recallable.summaryId}, not by ${compactionId})`;
  const type = scope.session.getEntry(id)?.type;
  if (type !== undefined && !CONTEXT_TYPES.has(type)) return `${id} (a ${type} entry, not a message)`;
  if (scope.positions.has(id)) return `${id} (already in your context)`;
  return `${id} (on another branch, not replaced by a summary on this one)`;
}
