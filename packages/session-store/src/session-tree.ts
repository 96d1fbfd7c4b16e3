import type { SessionEntry } from "./entries.js";
import type { SessionIndex, TreeNode } from "./session-index.js";

/** An entry of a session as the tree sees it: the tree fields at hand, the full entry on demand. */
export interface SessionEntryRef {
  readonly id: string;
  readonly type: string;
  /** The parent in the tree (`null` for a root, including an entry whose parent is missing). */
  readonly parentId: string | null;
  /** The entry's current label, if any. */
  readonly label: string | undefined;
  /** The full entry (unknown fields kept), parsed on first use; undefined when it cannot be read. */
  entry(): SessionEntry | undefined;
}

/** A node of {@link Session.getTree}: an entry and its children, in append order. */
export interface SessionTreeNode extends SessionEntryRef {
  readonly children: SessionTreeNode[];
}

/** The reference of one node. */
export function refOf(index: SessionIndex, node: TreeNode): SessionEntryRef {
  return {
    id: node.stored.id,
    type: node.stored.type,
    parentId: node.treeParentId,
    label: index.labels.get(node.stored.id),
    entry: () => index.entry(node),
  };
}

/** The whole tree: its roots, each with its descendants. O(entries); parses nothing. */
export function buildTree(index: SessionIndex): SessionTreeNode[] {
  const byId = new Map<string, SessionTreeNode>();
  const roots: SessionTreeNode[] = [];
  for (const node of index.nodes.values()) {
    const treeNode: SessionTreeNode = { ...refOf(index, node), children: [] };
    byId.set(node.stored.id, treeNode);
    const parent = node.treeParentId === null ? undefined : byId.get(node.treeParentId);
    if (parent === undefined) roots.push(treeNode);
    else parent.children.push(treeNode);
  }
  return roots;
}
