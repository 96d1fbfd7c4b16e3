/**
 * The nodes of one linear run of a session tree (a chain: each entry's only child is the next) for
 * {@link sessionGraph}: long stretches of ordinary entries collapse into one run node. A chain remembers how
 * its nodes came about — groups of entries, each emitted as one node, or one node per entry — so that a change
 * to some of its entries (an append at its end, a label, the leaf, the context) re-emits only the groups from
 * the one holding the first changed entry up to the first pinned entry after the last one.
 */
import type { SessionEntry, SessionEntryRef } from "@arbor/session-store";
import { previewView, viewEntry } from "./entry-view.js";
import type { GraphNode } from "./session-graph.js";
import type { SummaryCoverage } from "./summary-coverage.js";

/** An entry as a chain holds it: the tree fields and the entry on demand (its label is read when drawn). */
export type ChainEntry = Pick<SessionEntryRef, "id" | "type" | "parentId" | "entry">;

/** What the nodes of a chain depend on besides its entries (the same for every chain of a graph). */
export interface GraphFacts {
  readonly leafId: string | null;
  /** Entries on the path from the root to the leaf. */
  readonly onPath: ReadonlySet<string>;
  /** The last entries of the path, always shown one by one. */
  readonly recent: ReadonlySet<string>;
  readonly inContext: ReadonlySet<string>;
  readonly coverage: SummaryCoverage;
  /**
   * The current label of an entry.
   *
   * Contract: pure and cheap (called for each entry emitted); parses nothing.
   */
  label(id: string): string | undefined;
  readonly collapseAbove: number;
  readonly previewChars: number;
}

/** Entries emitted together: one run node (`collapsed`), or one node per entry. */
interface Group {
  /** First entry (index in the chain). */
  start: number;
  /** After the last entry. */
  end: number;
  /** Nodes emitted. */
  nodes: number;
  /** A single entry shown for itself (a summary, labelled, the leaf, recent, an end of the chain): nothing of the chain before it is pending after it. */
  pinned: boolean;
}

/** One linear run of the tree and its nodes. */
export interface Chain {
  readonly entries: ChainEntry[];
  /** The graph id of the node before the chain's first entry (its branch point, an entry node) or `null`. */
  readonly parentId: string | null;
  /** Shown entry by entry (one of its entries was asked to be expanded). */
  expanded: boolean;
  nodes: GraphNode[];
  groups: Group[];
}

const SUMMARY_TYPES = new Set(["compaction", "branch_summary"]);

function isFailed(entry: SessionEntry | undefined): boolean {
  if (entry?.type !== "message") return false;
  const message = entry.message as { role?: unknown; stopReason?: unknown };
  return message.role === "assistant" && (message.stopReason === "error" || message.stopReason === "aborted");
}

function coverageOf(facts: GraphFacts, id: string) {
  const compactedBy = facts.coverage.compactedBy.get(id);
  const summarizedBy = facts.coverage.summarizedBy.get(id);
  return {
    ...(compactedBy === undefined ? {} : { compactedBy }),
    ...(summarizedBy === undefined ? {} : { summarizedBy }),
  };
}

function stateOf(facts: GraphFacts, id: string): string {
  const { compactedBy, summarizedBy } = facts.coverage;
  return `${compactedBy.get(id) ?? ""}|${summarizedBy.get(id) ?? ""}|${facts.inContext.has(id)}`;
}

function entryNode(facts: GraphFacts, ref: ChainEntry, parentId: string | null): GraphNode {
  const entry = ref.entry();
  const view = viewEntry(entry, ref);
  const label = facts.label(ref.id);
  return {
    id: ref.id,
    entryId: ref.id,
    parentId,
    kind: view.kind,
    type: ref.type,
    preview: previewView(view, facts.previewChars),
    ...(label === undefined ? {} : { label }),
    onPath: facts.onPath.has(ref.id),
    inContext: facts.inContext.has(ref.id),
    leaf: ref.id === facts.leafId,
    ...coverageOf(facts, ref.id),
    failed: isFailed(entry),
  };
}

function runNode(
  facts: GraphFacts,
  first: ChainEntry,
  last: ChainEntry,
  count: number,
  parentId: string | null,
) {
  return {
    id: `run:${first.id}`,
    entryId: first.id,
    parentId,
    kind: "run",
    type: "run",
    preview: `${count.toLocaleString("en-US")} entries`,
    onPath: facts.onPath.has(first.id),
    inContext: facts.inContext.has(first.id),
    leaf: false,
    ...coverageOf(facts, first.id),
    failed: false,
    run: { count, lastEntryId: last.id },
  } satisfies GraphNode;
}

/**
 * Emits the chain's nodes from entry `from` (the start of a group) with `previous` as the node before, until
 * the end — or, when `resync` is given, until a pinned entry after index `resync` (the old nodes after it are
 * still right). Returns the groups and nodes emitted and the index after the last entry they cover.
 */
function emit(
  chain: Chain,
  facts: GraphFacts,
  from: number,
  previous: string | null,
  resync: number | undefined,
): { groups: Group[]; nodes: GraphNode[]; end: number } {
  const { entries } = chain;
  const groups: Group[] = [];
  const nodes: GraphNode[] = [];
  let stretchStart = from;
  let stretchState = "";
  const flush = (end: number) => {
    const count = end - stretchStart;
    if (count === 0) return;
    if (count > facts.collapseAbove) {
      const node = runNode(facts, entries[stretchStart]!, entries[end - 1]!, count, previous);
      nodes.push(node);
      previous = node.id;
      groups.push({ start: stretchStart, end, nodes: 1, pinned: false });
    } else {
      for (let index = stretchStart; index < end; index++) {
        nodes.push(entryNode(facts, entries[index]!, previous));
        previous = entries[index]!.id;
      }
      groups.push({ start: stretchStart, end, nodes: count, pinned: false });
    }
  };
  const last = entries.length - 1;
  for (let index = from; index <= last; index++) {
    const ref = entries[index]!;
    const pinned =
      index === 0 ||
      index === last ||
      chain.expanded ||
      SUMMARY_TYPES.has(ref.type) ||
      facts.label(ref.id) !== undefined ||
      ref.id === facts.leafId ||
      facts.recent.has(ref.id);
    if (pinned) {
      flush(index);
      nodes.push(entryNode(facts, ref, previous));
      previous = ref.id;
      groups.push({ start: index, end: index + 1, nodes: 1, pinned: true });
      stretchStart = index + 1;
      if (resync !== undefined && index > resync) return { groups, nodes, end: index + 1 };
      continue;
    }
    // A run holds entries that look alike: the same coverage, all in the context or all out of it.
    const state = stateOf(facts, ref.id);
    if (index > stretchStart && state !== stretchState) {
      flush(index);
      stretchStart = index;
    }
    stretchState = state;
  }
  flush(entries.length);
  return { groups, nodes, end: entries.length };
}

/** A chain of `entries` after `parentId`, with its nodes. */
export function newChain(
  entries: ChainEntry[],
  parentId: string | null,
  expanded: boolean,
  facts: GraphFacts,
): Chain {
  const chain: Chain = { entries, parentId, expanded, nodes: [], groups: [] };
  const emitted = emit(chain, facts, 0, parentId, undefined);
  chain.nodes = emitted.nodes;
  chain.groups = emitted.groups;
  return chain;
}

/**
 * Re-emits the nodes of the entries `first`..`last` (indices) of a chain whose facts or entries changed there
 * (entries appended at its end count from the old last one), keeping the nodes before and after.
 *
 * Contract: the result equals {@link newChain} over the chain's entries and `facts`, provided that no entry
 * outside `first`..`last` changed how it is drawn. O(groups + the entries from the group of `first` to the first
 * pinned entry after `last`).
 */
export function reemit(chain: Chain, facts: GraphFacts, first: number, last: number): void {
  const { groups } = chain;
  let group = 0;
  let nodeStart = 0;
  while (group < groups.length && groups[group]!.end <= first) nodeStart += groups[group++]!.nodes;
  // A stretch right before may grow into the changed entries (the entry that ended it may be drawn differently).
  if (group > 0 && !groups[group - 1]!.pinned) nodeStart -= groups[--group]!.nodes;
  const from = group < groups.length ? groups[group]!.start : (groups.at(-1)?.end ?? 0);
  const previous = nodeStart > 0 ? chain.nodes[nodeStart - 1]!.id : chain.parentId;
  const emitted = emit(chain, facts, from, previous, last);
  // The old groups the new ones replace: up to the (pinned) group ending where the emission stopped.
  let oldEnd = group;
  let nodeEnd = nodeStart;
  while (oldEnd < groups.length && groups[oldEnd]!.start < emitted.end) nodeEnd += groups[oldEnd++]!.nodes;
  const aligned = oldEnd === groups.length || groups[oldEnd]!.start === emitted.end;
  if (!aligned) {
    // Cannot happen when the contract holds; emit the rest of the chain to stay right.
    const rest = emit(chain, facts, from, previous, undefined);
    chain.groups = groups.slice(0, group).concat(rest.groups);
    chain.nodes = chain.nodes.slice(0, nodeStart).concat(rest.nodes);
    return;
  }
  // Concatenation, not a splice of spread arguments (an expanded chain may have tens of thousands of nodes).
  chain.groups = groups.slice(0, group).concat(emitted.groups, groups.slice(oldEnd));
  chain.nodes = chain.nodes.slice(0, nodeStart).concat(emitted.nodes, chain.nodes.slice(nodeEnd));
}
