/**
 * {@link sessionGraph} kept up to date for one open session: the first call builds the graph from the whole
 * tree, later calls extend it from the entries appended since (a session only grows), re-drawing only the
 * nodes whose facts changed — the end of the current path, labelled entries, entries that entered or left the
 * context, runs expanded or folded. What changes the graph globally builds it again: a compaction or branch
 * summary (coverage), the leaf moved elsewhere than down through the new entries, a new branch, another
 * session.
 */
import type { Session, SessionEntry } from "@arbor/session-store";
import { type Chain, type ChainEntry, type GraphFacts, newChain, reemit } from "./graph-chain.js";
import type { GraphNode, SessionGraph, SessionGraphOptions } from "./session-graph.js";
import { entryRefs, type SummaryCoverage, summaryCoverage } from "./summary-coverage.js";
import { treeRuns } from "./tree-walk.js";

/** Options of {@link SessionGraphCache}: {@link SessionGraphOptions} but `expanded`, which each call gives. */
export type SessionGraphCacheOptions = Omit<SessionGraphOptions, "expanded">;

/** Slot of an entry: its chain times this, plus its index in the chain. */
const CHAIN_STRIDE = 2 ** 32;

/** What the cache keeps of the open session. */
interface State {
  session: Session;
  entryCount: number;
  leafId: string | null;
  expanded: Set<string>;
  chains: Chain[];
  /** Each entry's slot (see {@link CHAIN_STRIDE}). */
  slots: Map<string, number>;
  /** The last entry of each chain that has no children, and its chain: where an append can extend a chain. */
  openTails: Map<string, number>;
  onPath: Set<string>;
  recent: Set<string>;
  inContext: Set<string>;
  coverage: SummaryCoverage;
  result: SessionGraph;
}

const SUMMARY_TYPES = new Set(["compaction", "branch_summary"]);

/**
 * The graph of one open session, kept between calls (see the module comment).
 *
 * Memory: besides the nodes, a reference to each entry's tree fields and an id → position map (a few
 * hundred bytes per entry: about 15 MB for a 60,000-entry session); held until {@link clear} or until a call
 * with another session. It holds no entry bodies (they stay the session's).
 */
export class SessionGraphCache {
  private state: State | undefined;

  constructor(private readonly options: SessionGraphCacheOptions = {}) {}

  /**
   * The graph of `session` with the runs holding an id of `expanded` shown entry by entry: equal to
   * `sessionGraph(session, { ...options, expanded })`.
   *
   * Contract: a call with the session of the previous call and nothing appended returns the previous graph
   * (treat it as read-only); after appends down from the previous leaf, without a compaction or branch
   * summary among them, it costs O(appended entries + the context + the re-drawn stretch), never O(session);
   * any other change builds the graph again, O(entries). Reads the session only.
   */
  graph(session: Session, expanded: ReadonlySet<string> = new Set()): SessionGraph {
    const state = this.state;
    if (state !== undefined && state.session === session && this.update(state, expanded)) return state.result;
    this.state = this.build(session, expanded);
    return this.state.result;
  }

  /** Forgets the kept graph (the next call builds it again). Contract: never throws. */
  clear(): void {
    this.state = undefined;
  }

  private facts(
    state: Pick<State, "session" | "leafId" | "onPath" | "recent" | "inContext" | "coverage">,
  ): GraphFacts {
    const { session } = state;
    return {
      leafId: state.leafId,
      onPath: state.onPath,
      recent: state.recent,
      inContext: state.inContext,
      coverage: state.coverage,
      label: (id) => session.getLabel(id),
      collapseAbove: this.options.collapseAbove ?? 12,
      previewChars: this.options.previewChars ?? 80,
    };
  }

  /** The graph from the whole tree. */
  private build(session: Session, expanded: ReadonlySet<string>): State {
    const leafId = session.leafId;
    const roots = session.getTree();
    const refs = entryRefs(roots);
    const parents = new Map<string, string | null>();
    for (const ref of refs) parents.set(ref.id, ref.parentId);
    const onPath = new Set<string>();
    const recent = new Set<string>();
    const recentCount = this.options.recentEntries ?? 12;
    for (let id = leafId; id !== null && !onPath.has(id); id = parents.get(id) ?? null) {
      onPath.add(id);
      if (recent.size < recentCount) recent.add(id);
    }
    const partial = {
      session,
      leafId,
      onPath,
      recent,
      inContext: new Set(session.buildContext().entryIds),
      coverage: summaryCoverage(refs),
    };
    const facts = this.facts(partial);
    const chains: Chain[] = [];
    const slots = new Map<string, number>();
    const openTails = new Map<string, number>();
    for (const run of treeRuns(roots)) {
      const head = run.nodes[0];
      if (head === undefined) continue;
      const entries: ChainEntry[] = [...run.nodes];
      const chainIndex = chains.length;
      for (const [index, entry] of entries.entries()) slots.set(entry.id, chainIndex * CHAIN_STRIDE + index);
      const tail = run.nodes.at(-1)!;
      if (tail.children.length === 0) openTails.set(tail.id, chainIndex);
      const isExpanded = entries.some((entry) => expanded.has(entry.id));
      chains.push(newChain(entries, head.parentId, isExpanded, facts));
    }
    const state: State = {
      ...partial,
      entryCount: session.entryCount,
      expanded: new Set(expanded),
      chains,
      slots,
      openTails,
      result: { nodes: [], leafId, entryCount: session.entryCount },
    };
    state.result = { nodes: allNodes(chains), leafId, entryCount: session.entryCount };
    return state;
  }

  /** Brings `state` up to date with its session; false when the graph must be built again. */
  private update(state: State, expanded: ReadonlySet<string>): boolean {
    const { session } = state;
    const appended = session.entryCount - state.entryCount;
    const leafId = session.leafId;
    if (appended === 0 && leafId === state.leafId && sameSet(expanded, state.expanded)) return true;
    // The new entries, when they all lie on the path between the previous leaf and the new one.
    const fresh: SessionEntry[] = [];
    let id = leafId;
    while (id !== null && !state.slots.has(id)) {
      const entry = fresh.length < appended ? session.getEntry(id) : undefined;
      if (entry === undefined || SUMMARY_TYPES.has(entry.type)) return false;
      fresh.push(entry);
      id = entry.parentId;
    }
    if (fresh.length !== appended || id !== state.leafId) return false;
    const dirty = new Map<number, { first: number; last: number }>();
    const mark = (entryId: string | null) => {
      const slot = entryId === null ? undefined : state.slots.get(entryId);
      if (slot === undefined) return;
      const chain = Math.floor(slot / CHAIN_STRIDE);
      const index = slot % CHAIN_STRIDE;
      const range = dirty.get(chain);
      if (range === undefined) dirty.set(chain, { first: index, last: index });
      else {
        range.first = Math.min(range.first, index);
        range.last = Math.max(range.last, index);
      }
    };
    if (appended > 0 && !extendChain(state, fresh.reverse(), mark)) return false;
    // Runs expanded or folded since: their chains are drawn again whole.
    for (const expandedId of new Set([...expanded, ...state.expanded])) {
      const slot = state.slots.get(expandedId);
      if (slot === undefined) continue;
      const chainIndex = Math.floor(slot / CHAIN_STRIDE);
      const chain = state.chains[chainIndex]!;
      const now = chain.entries.some((entry) => expanded.has(entry.id));
      if (now === chain.expanded) continue;
      chain.expanded = now;
      dirty.set(chainIndex, { first: 0, last: chain.entries.length - 1 });
    }
    state.expanded = new Set(expanded);
    // The last entries of the path, and the context.
    const recent = new Set<string>();
    const recentCount = this.options.recentEntries ?? 12;
    for (let at = leafId; at !== null && recent.size < recentCount; at = parentOf(state, at)) recent.add(at);
    for (const recentId of recent) if (!state.recent.has(recentId)) mark(recentId);
    for (const recentId of state.recent) if (!recent.has(recentId)) mark(recentId);
    state.recent = recent;
    const inContext = new Set(session.buildContext().entryIds);
    for (const contextId of inContext) if (!state.inContext.has(contextId)) mark(contextId);
    for (const contextId of state.inContext) if (!inContext.has(contextId)) mark(contextId);
    state.inContext = inContext;
    const facts = this.facts(state);
    for (const [chainIndex, range] of dirty)
      reemit(state.chains[chainIndex]!, facts, range.first, range.last);
    state.result = { nodes: allNodes(state.chains), leafId, entryCount: session.entryCount };
    return true;
  }
}

/**
 * Appends `fresh` (oldest first, the first one a child of the previous leaf) to the chain the previous leaf
 * ends, marking what they change; false, changing nothing, when that leaf ends no open chain (a new branch).
 */
function extendChain(
  state: State,
  fresh: readonly SessionEntry[],
  mark: (id: string | null) => void,
): boolean {
  const previousLeaf = state.leafId;
  const chainIndex = previousLeaf === null ? undefined : state.openTails.get(previousLeaf);
  if (previousLeaf === null || chainIndex === undefined) return false;
  const chain = state.chains[chainIndex]!;
  const { session } = state;
  // The previous end of the chain is no longer its end, nor the leaf.
  mark(previousLeaf);
  for (const entry of fresh) {
    const ref: ChainEntry = {
      id: entry.id,
      type: entry.type,
      parentId: entry.parentId,
      entry: () => session.getEntry(entry.id),
    };
    state.slots.set(entry.id, chainIndex * CHAIN_STRIDE + chain.entries.length);
    chain.entries.push(ref);
    state.onPath.add(entry.id);
    mark(entry.id);
    if (entry.type === "label") mark(entry.targetId);
  }
  state.openTails.delete(previousLeaf);
  state.openTails.set(fresh.at(-1)!.id, chainIndex);
  state.leafId = session.leafId;
  state.entryCount = session.entryCount;
  return true;
}

function parentOf(state: State, id: string): string | null {
  const slot = state.slots.get(id);
  if (slot === undefined) return null;
  return state.chains[Math.floor(slot / CHAIN_STRIDE)]!.entries[slot % CHAIN_STRIDE]!.parentId;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const value of a) if (!b.has(value)) return false;
  return true;
}

function allNodes(chains: readonly Chain[]): GraphNode[] {
  const nodes: GraphNode[] = [];
  for (const chain of chains) for (const node of chain.nodes) nodes.push(node);
  return nodes;
}
