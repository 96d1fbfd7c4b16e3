import type { SessionEntry } from "./entries.js";
import { NONE, type SessionIndex } from "./session-index.js";

/** An entry of a session as the tree sees it: the tree fields at hand, the full entry on demand. */
export interface SessionEntryRef {
  readonly id: string;
  readonly type: string;
  /** The parent in the tree (`null` for a root, including an entry whose parent is missing). */
  readonly parentId: string | null;
  /** The entry's current label, if any. */
  readonly label: string | undefined;
  /**
   * The full entry (unknown fields kept), parsed and checked against its type's schema on first use;
   * undefined when it cannot be read or is invalid (valid JSON with wrong field types), which the
   * session's `warnings` report once.
   */
  entry(): SessionEntry | undefined;
}

/** A node of {@link Session.getTree}: an entry and its children, in append order. */
export interface SessionTreeNode extends SessionEntryRef {
  readonly children: SessionTreeNode[];
}

/** The reference of one node (by its order). */
export function refOf(index: SessionIndex, order: number): SessionEntryRef {
  const id = index.idOf(order);
  const parent = index.parentOf(order);
  return {
    id,
    type: index.typeOf(order),
    parentId: parent === NONE ? null : index.idOf(parent),
    label: index.labels.get(id),
    entry: () => index.validEntry(order),
  };
}

/** The whole tree: its roots, each with its descendants. O(entries); parses nothing. */
export function buildTree(index: SessionIndex): SessionTreeNode[] {
  const nodes: SessionTreeNode[] = [];
  const roots: SessionTreeNode[] = [];
  for (let order = 0; order < index.size; order++) {
    const treeNode: SessionTreeNode = { ...refOf(index, order), children: [] };
    nodes.push(treeNode);
    const parent = index.parentOf(order);
    if (parent === NONE) roots.push(treeNode);
    else (nodes[parent] as SessionTreeNode).children.push(treeNode);
  }
  return roots;
}
