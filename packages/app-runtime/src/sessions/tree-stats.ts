import type { SessionTreeNode } from "@arbor/session-store";

/** Counts over a whole tree, from the entry types only. */
export interface TreeStats {
  entries: number;
  messages: number;
  /** Entries without children: the tips of the branches. */
  leaves: number;
}

/** Counts of a tree. O(entries); parses nothing; no recursion. */
export function treeStats(roots: readonly SessionTreeNode[]): TreeStats {
  const stats: TreeStats = { entries: 0, messages: 0, leaves: 0 };
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop()!;
    stats.entries++;
    if (node.type === "message") stats.messages++;
    if (node.children.length === 0) stats.leaves++;
    for (const child of node.children) stack.push(child);
  }
  return stats;
}
