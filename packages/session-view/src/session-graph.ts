/**
 * A session tree as a graph for a page to lay out: one node per entry, except that long linear stretches
 * of ordinary entries collapse into one "run" node, so that a 60,000-entry session is a few hundred nodes.
 * Each node says its kind, a one-line preview, its label, whether it is on the current path, whether the
 * model sees it (the context), which compaction covers it or which branch summary stands for it, and
 * whether it is a failed response. Only the nodes shown are parsed.
 */
import type { Session } from "@arbor/session-store";
import type { EntryKind } from "./entry-view.js";
import { SessionGraphCache } from "./session-graph-cache.js";

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

/**
 * The graph of a session (see the module comment). A stretch is collapsed only when none of its entries
 * is a summary, labelled, the leaf, among the last `recentEntries` of the path, or expanded; a run's
 * entries share their coverage and whether the model sees them. To draw the same session again and again
 * as it grows, keep a {@link SessionGraphCache}: it extends the graph from the appended entries.
 *
 * Contract: pure apart from reading `session`; O(entries) reading tree fields, parsing only the entries
 * shown as nodes, the summaries and the current context.
 */
export function sessionGraph(session: Session, options: SessionGraphOptions = {}): SessionGraph {
  const { expanded, ...rest } = options;
  return new SessionGraphCache(rest).graph(session, expanded);
}
