/**
 * Walking a session tree as linear runs: a conversation is mostly a chain (each entry has one child), so
 * the tree is drawn as runs that stay at one indentation level, and only a branch point (an entry with
 * several children) opens nested branches. The walk is iterative (a 60k-entry chain would overflow a
 * recursive one), visits every entry once, and parses nothing.
 */
import type { SessionTreeNode } from "@arbor/session-store";

/** One linear run of the tree and where it sits. */
export interface TreeRun {
  /** The entries of the run, in order: each one's only child is the next; the last has 0 or 2+ children. */
  readonly nodes: readonly SessionTreeNode[];
  /**
   * The branch level: 0 for the run from a single root; a run that starts a branch is one level deeper
   * than its branch point (several roots count as branches of level 1). Capped at the walk's `maxDepth`.
   */
  readonly depth: number;
  /** True when the run starts a branch (a child of a branch point, or one of several roots). */
  readonly branch: boolean;
  /** True when it is the last child of its branch point. */
  readonly last: boolean;
  /** The text guides before the run's first line (`│  ├─ `) and before its other lines (`│  │  `). */
  readonly firstPrefix: string;
  readonly prefix: string;
}

/** Deepest branch level drawn with its own indentation; deeper branches are drawn at this level. */
export const MAX_TREE_DEPTH = 24;

interface Pending {
  node: SessionTreeNode;
  depth: number;
  branch: boolean;
  last: boolean;
  firstPrefix: string;
  prefix: string;
}

function branchesOf(
  children: readonly SessionTreeNode[],
  depth: number,
  prefix: string,
  maxDepth: number,
): Pending[] {
  const capped = depth >= maxDepth;
  const pending: Pending[] = [];
  children.forEach((node, index) => {
    const last = index === children.length - 1;
    pending.push({
      node,
      depth: capped ? maxDepth : depth + 1,
      branch: true,
      last,
      // Past the deepest level the guides stop growing, so deep nesting cannot make lines quadratic.
      firstPrefix: prefix + (capped ? (last ? "└┄ " : "├┄ ") : last ? "└─ " : "├─ "),
      prefix: capped ? prefix : prefix + (last ? "   " : "│  "),
    });
  });
  return pending;
}

/**
 * The runs of a tree in drawing order (pre-order: a run, then the branches of its last entry, first child
 * first).
 *
 * Contract: O(entries) time, O(branch points) extra memory besides the runs; never recurses; every entry
 * is in exactly one run.
 */
export function* treeRuns(
  roots: readonly SessionTreeNode[],
  maxDepth: number = MAX_TREE_DEPTH,
): Generator<TreeRun> {
  const stack: Pending[] =
    roots.length === 1
      ? [{ node: roots[0]!, depth: 0, branch: false, last: true, firstPrefix: "", prefix: "" }]
      : branchesOf(roots, 0, "", maxDepth).reverse();
  while (stack.length > 0) {
    const pending = stack.pop()!;
    const nodes = [pending.node];
    let tail = pending.node;
    while (tail.children.length === 1) {
      tail = tail.children[0]!;
      nodes.push(tail);
    }
    yield {
      nodes,
      depth: pending.depth,
      branch: pending.branch,
      last: pending.last,
      firstPrefix: pending.firstPrefix,
      prefix: pending.prefix,
    };
    if (tail.children.length > 1) {
      const branches = branchesOf(tail.children, pending.depth, pending.prefix, maxDepth);
      // One push per branch (a spread of tens of thousands of arguments would overflow the call stack).
      for (let index = branches.length - 1; index >= 0; index--) stack.push(branches[index]!);
    }
  }
}

/** A piece of a run as drawn: an entry, or a span of plain entries folded into one line. */
export type RunItem =
  | { kind: "entry"; node: SessionTreeNode; index: number }
  | { kind: "folded"; nodes: readonly SessionTreeNode[]; messages: number };

/** How runs are folded: entries kept at each end of a long span of plain entries. */
export interface FoldOptions {
  /** Entries shown before a folded span. */
  head: number;
  /** Entries shown after it. */
  tail: number;
  /** Fewest entries worth folding (shorter spans are shown whole). */
  minimum: number;
  /**
   * True for entries that are never folded away (the run's ends always stay).
   *
   * Contract: pure and cheap (it is called once per entry of a run); must not parse the entry.
   */
  keep(node: SessionTreeNode): boolean;
}

/**
 * The items of a run with long spans of plain entries folded: entries `keep` marks (and the run's first and
 * last entries) are always shown; a span of other entries longer than `head + minimum + tail` shows its
 * first `head` and last `tail` entries around one folded item that counts the rest (and their messages,
 * from the entry types, without parsing).
 *
 * Contract: O(run length); with `fold` undefined every entry is an item.
 */
export function runItems(run: TreeRun, fold: FoldOptions | undefined): RunItem[] {
  const { nodes } = run;
  const items: RunItem[] = [];
  const pushEntry = (index: number) => items.push({ kind: "entry", node: nodes[index]!, index });
  if (fold === undefined) {
    for (let index = 0; index < nodes.length; index++) pushEntry(index);
    return items;
  }
  let index = 0;
  while (index < nodes.length) {
    const node = nodes[index]!;
    if (index === 0 || index === nodes.length - 1 || fold.keep(node)) {
      pushEntry(index);
      index++;
      continue;
    }
    let end = index;
    while (end < nodes.length - 1 && !fold.keep(nodes[end]!)) end++;
    const length = end - index;
    if (length < fold.head + fold.tail + fold.minimum) {
      for (let at = index; at < end; at++) pushEntry(at);
    } else {
      for (let at = index; at < index + fold.head; at++) pushEntry(at);
      const folded = nodes.slice(index + fold.head, end - fold.tail);
      let messages = 0;
      for (const entry of folded) if (entry.type === "message") messages++;
      items.push({ kind: "folded", nodes: folded, messages });
      for (let at = end - fold.tail; at < end; at++) pushEntry(at);
    }
    index = end;
  }
  return items;
}
