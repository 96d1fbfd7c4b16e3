import type { SessionEntry } from "./entries.js";
import type { StoredEntry } from "./store.js";
import { validateSessionEntry } from "./validate.js";

/** Entry types that set the model, thinking level or active tools from their point of the path on. */
const SETTINGS_TYPES: ReadonlySet<string> = new Set([
  "thinking_level_change",
  "model_change",
  "active_tools_change",
]);

/** Parse state of a node's entry: not read yet, read and valid, or unreadable / invalid. */
type ParseState = "unread" | "valid" | "invalid";

/** One entry of the tree index. Only the tree fields are read when it is added. */
export interface TreeNode {
  readonly stored: StoredEntry;
  /** Position in append order. */
  readonly order: number;
  /**
   * The parent in the tree: `parentId` when it names an entry appended earlier, else `null` (a root).
   * Links only point backwards in append order, so no walk can loop.
   */
  readonly treeParentId: string | null;
  /** Children in append order (created on the first child). */
  children: string[] | undefined;
  /** The nearest `compaction` among this entry and its ancestors. */
  readonly compactionAnchor: string | undefined;
  /** The nearest settings entry (thinking level, model, active tools) among this entry and its ancestors. */
  readonly settingsAnchor: string | undefined;
  parse: ParseState;
  value: SessionEntry | undefined;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The tree over a session's entries: nodes by id, children, roots, labels, the name and the leaf. Adding
 * an entry costs O(1) and reads only its tree fields, except for the small entries whose effect is
 * global (`label`, `session_info`, `leaf`), which are parsed on the spot. Message bodies are parsed
 * only when someone asks for them.
 */
export class SessionIndex {
  readonly nodes = new Map<string, TreeNode>();
  readonly roots: string[] = [];
  readonly labels = new Map<string, string>();
  readonly warnings: string[] = [];
  /** The kept span (entry ids, path order) of each compaction, computed once. */
  readonly keptSpans = new Map<string, readonly string[]>();
  name: string | undefined;
  leafId: string | null = null;
  lastEntryId: string | null = null;

  /** Adds the next entry in append order; `trusted` marks an entry this process built (not re-validated). */
  add(stored: StoredEntry, trusted = false): TreeNode | undefined {
    const { id, type, parentId } = stored;
    if (this.nodes.has(id)) {
      this.warnings.push(`Entry "${id}" (${type}) repeats an earlier entry's id; the later one is ignored.`);
      return undefined;
    }
    let parent = parentId === null ? undefined : this.nodes.get(parentId);
    if (parentId !== null && parent === undefined) {
      this.warnings.push(
        `Entry "${id}" (${type}) names parent "${parentId}", which does not come before it; it is treated as a root.`,
      );
      parent = undefined;
    }
    const node: TreeNode = {
      stored,
      order: this.nodes.size,
      treeParentId: parent === undefined ? null : parentId,
      children: undefined,
      compactionAnchor: type === "compaction" ? id : parent?.compactionAnchor,
      settingsAnchor: SETTINGS_TYPES.has(type) ? id : parent?.settingsAnchor,
      parse: trusted ? "valid" : "unread",
      value: trusted ? stored.entry() : undefined,
    };
    this.nodes.set(id, node);
    if (parent === undefined) this.roots.push(id);
    else if (parent.children === undefined) parent.children = [id];
    else parent.children.push(id);
    this.lastEntryId = id;
    this.leafId = id;
    this.applyGlobalEffect(node);
    return node;
  }

  private applyGlobalEffect(node: TreeNode): void {
    const type = node.stored.type;
    if (type !== "label" && type !== "session_info" && type !== "leaf") return;
    const entry = this.validEntry(node);
    if (entry === undefined) {
      if (type === "leaf") this.leafId = node.treeParentId;
      return;
    }
    if (entry.type === "label") {
      if (entry.label === undefined || entry.label === "") this.labels.delete(entry.targetId);
      else this.labels.set(entry.targetId, entry.label);
    } else if (entry.type === "session_info") {
      if (entry.name !== undefined) this.name = entry.name.trim() === "" ? undefined : entry.name.trim();
    } else if (entry.type === "leaf") {
      if (entry.targetId === null || this.nodes.has(entry.targetId)) this.leafId = entry.targetId;
      else {
        this.warnings.push(
          `Leaf entry "${entry.id}" moves to "${entry.targetId}", which does not exist; the leaf stays at its parent.`,
        );
        this.leafId = node.treeParentId;
      }
    }
  }

  /** The full entry (unknown fields kept), parsed on first use; undefined when it cannot be read. */
  entry(node: TreeNode): SessionEntry | undefined {
    if (node.value !== undefined || node.parse === "invalid") return node.value;
    try {
      node.value = node.stored.entry();
    } catch (error) {
      node.parse = "invalid";
      this.warnings.push(
        `Entry "${node.stored.id}" (${node.stored.type}) cannot be read: ${errorText(error)}`,
      );
    }
    return node.value;
  }

  /**
   * The entry when it is valid for its type (see `validateSessionEntry`), else undefined — reported once
   * in {@link warnings}. What the context is built from.
   */
  validEntry(node: TreeNode): SessionEntry | undefined {
    if (node.parse === "valid") return node.value;
    if (node.parse === "invalid") return undefined;
    const value = this.entry(node);
    if (value === undefined) return undefined;
    const result = validateSessionEntry(value);
    if (result.ok) {
      node.parse = "valid";
      return value;
    }
    node.parse = "invalid";
    this.warnings.push(`${result.message}. It is left out of the context.`);
    return undefined;
  }

  /** The parent node in the tree. */
  parentOf(node: TreeNode): TreeNode | undefined {
    return node.treeParentId === null ? undefined : this.nodes.get(node.treeParentId);
  }

  /** The nodes from the root to `id` (inclusive). */
  path(id: string): TreeNode[] {
    const path: TreeNode[] = [];
    for (let node = this.nodes.get(id); node !== undefined; node = this.parentOf(node)) path.push(node);
    return path.reverse();
  }
}
