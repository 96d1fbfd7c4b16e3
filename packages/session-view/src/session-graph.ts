/**
 * A session tree as a graph for a page to lay out: one node per entry, except that long linear stretches
 * of ordinary entries collapse into one "run" node, so that a 60,000-entry session is a few hundred nodes.
 * Each node says its kind, a one-line preview, its label, whether it is on the current path, whether the
 * model sees it (the context), which compaction covers it or which branch summary stands for it, and
 * whether it is a failed response. Only the nodes shown are parsed.
 */
import type { Session, SessionEntry, SessionEntryRef } from "@arbor/session-store";
import { type EntryKind, previewView, viewEntry } from "./entry-view.js";
import { entryRefs, summaryCoverage } from "./summary-coverage.js";
import { treeRuns } from "./tree-walk.js";

/** What a graph node shows: an entry's kind, or `run` for a collapsed stretch of entries. */
export type GraphNodeKind = EntryKind | "run";

/** One node of {@link SessionGraph}. */
export interface GraphNode {
  /** The node's id: the entry's id, or `run:<first entry id>` for a run. */
  readonly id: string;
  /** The entry it shows (a run: its first entry). */
  readonly entryId: string;
  /** The node before it (`null` for a root). */
  readonly parentId: string | null;
  readonly kind: GraphNodeKind;
  /** The entry's `type` (`message`, `compaction`, …; `run` for a run). */
  readonly type: string;
  /** One line: `user: Hello…`, `compaction (6,791 tokens before): ## Goal…`, `41 entries`. */
  readonly preview: string;
  readonly label?: string;
  /** On the path from the root to the current leaf. */
  readonly onPath: boolean;
  /** Sent to the model: the context of the current leaf holds it. */
  readonly inContext: boolean;
  /** The current leaf. */
  readonly leaf: boolean;
  /** The compaction whose summary replaced it. */
  readonly compactedBy?: string;
  /** The branch summary that stands for it (it is on an abandoned branch). */
  readonly summarizedBy?: string;
  /** A failed or aborted response (a retry or the user moved on). */
  readonly failed: boolean;
  /** A collapsed run: how many entries and the last one. */
  readonly run?: { readonly count: number; readonly lastEntryId: string };
}

/** {@link sessionGraph}'s result. */
export interface SessionGraph {
  readonly nodes: GraphNode[];
  readonly leafId: string | null;
  /** Entries of the session (the nodes are fewer when runs are collapsed). */
  readonly entryCount: number;
}

/** Options of {@link sessionGraph}. */
export interface SessionGraphOptions {
  /** A stretch of more than this many ordinary entries collapses into a run node; default 12. */
  collapseAbove?: number;
  /** Entries at the end of the current path always shown one by one; default 12. */
  recentEntries?: number;
  /** Runs to show entry by entry (by any entry id inside them, e.g. a run node's `entryId`). */
  expanded?: ReadonlySet<string>;
  /** Longest preview; default 80. */
  previewChars?: number;
}

const SUMMARY_TYPES = new Set(["compaction", "branch_summary"]);

function isFailed(entry: SessionEntry | undefined): boolean {
  if (entry?.type !== "message") return false;
  const message = entry.message as { role?: unknown; stopReason?: unknown };
  return message.role === "assistant" && (message.stopReason === "error" || message.stopReason === "aborted");
}

/**
 * The graph of a session (see the module comment). A stretch is collapsed only when none of its entries
 * is a summary, labelled, the leaf, among the last `recentEntries` of the path, or expanded; a run's
 * entries share their coverage and whether the model sees them.
 *
 * Contract: pure apart from reading `session`; O(entries) reading tree fields, parsing only the entries
 * shown as nodes, the summaries and the current context.
 */
export function sessionGraph(session: Session, options: SessionGraphOptions = {}): SessionGraph {
  const collapseAbove = options.collapseAbove ?? 12;
  const recent = options.recentEntries ?? 12;
  const expanded = options.expanded ?? new Set<string>();
  const previewChars = options.previewChars ?? 80;
  const leafId = session.leafId;
  const roots = session.getTree();
  const refs = entryRefs(roots);
  // The current path, walked up from the leaf through the refs at hand (no second pass over the session).
  const byId = new Map<string, SessionEntryRef>();
  for (const ref of refs) byId.set(ref.id, ref);
  const onPath = new Set<string>();
  const recentIds = new Set<string>();
  for (let id = leafId; id !== null && !onPath.has(id); id = byId.get(id)?.parentId ?? null) {
    onPath.add(id);
    if (recentIds.size < recent) recentIds.add(id);
  }
  const inContext = new Set(session.buildContext().entryIds);
  const coverage = summaryCoverage(refs);
  const nodes: GraphNode[] = [];
  const graphIdOf = new Map<string, string>();

  const pinned = (ref: SessionEntryRef): boolean =>
    SUMMARY_TYPES.has(ref.type) ||
    ref.label !== undefined ||
    ref.id === leafId ||
    recentIds.has(ref.id) ||
    expanded.has(ref.id);

  const coverageOf = (id: string) => {
    const compactedBy = coverage.compactedBy.get(id);
    const summarizedBy = coverage.summarizedBy.get(id);
    return {
      ...(compactedBy === undefined ? {} : { compactedBy }),
      ...(summarizedBy === undefined ? {} : { summarizedBy }),
    };
  };

  const stateOf = (ref: SessionEntryRef): string =>
    `${coverage.compactedBy.get(ref.id) ?? ""}|${coverage.summarizedBy.get(ref.id) ?? ""}|${inContext.has(ref.id)}`;

  const addEntry = (ref: SessionEntryRef, parentId: string | null) => {
    const entry = ref.entry();
    const view = viewEntry(entry, ref);
    nodes.push({
      id: ref.id,
      entryId: ref.id,
      parentId,
      kind: view.kind,
      type: ref.type,
      preview: previewView(view, previewChars),
      ...(ref.label === undefined ? {} : { label: ref.label }),
      onPath: onPath.has(ref.id),
      inContext: inContext.has(ref.id),
      leaf: ref.id === leafId,
      ...coverageOf(ref.id),
      failed: isFailed(entry),
    });
    graphIdOf.set(ref.id, ref.id);
    return ref.id;
  };

  const addRun = (stretch: readonly SessionEntryRef[], parentId: string | null) => {
    const first = stretch[0]!;
    const last = stretch.at(-1)!;
    const id = `run:${first.id}`;
    nodes.push({
      id,
      entryId: first.id,
      parentId,
      kind: "run",
      type: "run",
      preview: `${stretch.length.toLocaleString("en-US")} entries`,
      onPath: onPath.has(first.id),
      inContext: inContext.has(first.id),
      leaf: false,
      ...coverageOf(first.id),
      failed: false,
      run: { count: stretch.length, lastEntryId: last.id },
    });
    for (const ref of stretch) graphIdOf.set(ref.id, id);
    return id;
  };

  for (const run of treeRuns(roots)) {
    const head = run.nodes[0];
    if (head === undefined) continue;
    let previous = head.parentId === null ? null : (graphIdOf.get(head.parentId) ?? null);
    // The run's first and last entries stay nodes (they join it to its branch point and branches).
    const expandedRun = run.nodes.some((node) => expanded.has(node.id));
    let stretch: SessionEntryRef[] = [];
    const flush = () => {
      if (stretch.length > collapseAbove) previous = addRun(stretch, previous);
      else for (const ref of stretch) previous = addEntry(ref, previous);
      stretch = [];
    };
    run.nodes.forEach((node, index) => {
      const edge = index === 0 || index === run.nodes.length - 1;
      if (edge || expandedRun || pinned(node)) {
        flush();
        previous = addEntry(node, previous);
        return;
      }
      // A run holds entries that look alike: the same coverage, all in the context or all out of it.
      const first = stretch[0];
      if (first !== undefined && stateOf(first) !== stateOf(node)) flush();
      stretch.push(node);
    });
    flush();
  }
  return { nodes, leafId, entryCount: session.entryCount };
}
