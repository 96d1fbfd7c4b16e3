/**
 * Retried failures: a model call that failed and was tried again leaves the failed response in the session
 * tree (the file is append-only), with a `leaf` entry that moved the leaf back to where the retry started.
 * Views hide such a dead end by default — the retry beside it holds what happened — and show it on request.
 */
import type { SessionTreeNode } from "@arbor/session-store";

/**
 * Whether `node` is a retried failure: an assistant message that ended in error, whose only children are
 * `leaf` entries moving back to its parent, and which has a sibling (the attempt that followed it).
 *
 * Contract: parses at most the node and its children, and only when the entry types fit; never throws.
 */
export function isRetriedFailure(node: SessionTreeNode, siblings: readonly SessionTreeNode[]): boolean {
  if (node.type !== "message" || node.children.length === 0 || siblings.length < 2) return false;
  for (const child of node.children) if (child.type !== "leaf" || child.children.length > 0) return false;
  try {
    const message = (node.entry() as { message?: { role?: unknown; stopReason?: unknown } } | undefined)
      ?.message;
    if (message?.role !== "assistant" || message.stopReason !== "error") return false;
    return node.children.some(
      (child) => (child.entry() as { targetId?: unknown } | undefined)?.targetId === node.parentId,
    );
  } catch {
    return false;
  }
}

/** A tree without its retried failures, and how many entries were left out. */
export interface PrunedTree {
  roots: SessionTreeNode[];
  /** Entries left out: each failed response and its `leaf` entries. */
  hiddenEntries: number;
  /** Failed responses left out. */
  hiddenFailures: number;
}

/**
 * The tree without its retried failures ({@link isRetriedFailure}) and their `leaf` entries: copies of the
 * nodes that remain (the session's own tree is not changed).
 *
 * Contract: O(entries), iterative; parses only the candidates {@link isRetriedFailure} names.
 */
export function withoutRetriedFailures(roots: readonly SessionTreeNode[]): PrunedTree {
  const result: PrunedTree = { roots: [], hiddenEntries: 0, hiddenFailures: 0 };
  const stack: [SessionTreeNode, SessionTreeNode[]][] = [];
  const keep = (nodes: readonly SessionTreeNode[], into: SessionTreeNode[]) => {
    for (const node of nodes) {
      if (isRetriedFailure(node, nodes)) {
        result.hiddenFailures++;
        result.hiddenEntries += 1 + node.children.length;
        continue;
      }
      const copy: SessionTreeNode = { ...node, children: [] };
      into.push(copy);
      stack.push([node, copy.children]);
    }
  };
  keep(roots, result.roots);
  while (stack.length > 0) {
    const [node, children] = stack.pop()!;
    keep(node.children, children);
  }
  return result;
}
