import type { SessionEntry } from "./entries.js";
import { EntryNotLoadedError } from "./errors.js";
import { repairSessionEntry } from "./lenient-read.js";
import { filledFieldNotice, type SessionNotice } from "./session-notices.js";
import type { StoredEntry } from "./store.js";
import { isValidSessionEntry, validateSessionEntry } from "./validate.js";

/** Entry types that set the model, thinking level or active tools from their point of the path on. */
const SETTINGS_TYPES: ReadonlySet<string> = new Set([
  "thinking_level_change",
  "model_change",
  "active_tools_change",
]);

/** `SETTINGS_TYPES.has(type)`, without hashing the type of every other entry (they all end in `_change`). */
function isSettingsType(type: string): boolean {
  return type.endsWith("_change") && SETTINGS_TYPES.has(type);
}

/** Parse state of an entry: not read yet, read and valid, or unreadable / invalid. */
const UNREAD = 0;
const VALID = 1;
const INVALID = 2;

/** "No node": the parent of a root, the anchor of a node with none. */
export const NONE = -1;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function grown(array: Int32Array, capacity: number): Int32Array {
  const next = new Int32Array(capacity);
  next.set(array);
  return next;
}

/**
 * The tree over a session's entries. A node is an entry's position in append order (its "order"); what
 * the tree knows of each lives in parallel arrays (typed arrays for the links), with one map from id to
 * order — no object per entry, so indexing a 60k-entry session allocates almost nothing besides the map.
 *
 * Adding an entry costs O(1) and reads only its tree fields, except for the small entries whose effect
 * is global (`label`, `session_info`, `leaf`), which are parsed on the spot. Bodies are parsed only when
 * someone asks for them. Links only point backwards in append order, so no walk can loop.
 */
export class SessionIndex {
  /** Number of entries. */
  size = 0;
  readonly labels = new Map<string, string>();
  /** What reading found, in the order found (entries are checked when first used). */
  readonly notices: SessionNotice[] = [];
  /** The kept span (orders, path order) of each compaction (by its order), computed once. */
  readonly keptSpans = new Map<number, readonly number[]>();
  name: string | undefined;
  leafId: string | null = null;
  lastEntryId: string | null = null;

  private readonly byId = new Map<string, number>();
  /** The entries, by order. */
  private readonly stored: StoredEntry[] = [];
  /** The parsed entries, by order, once read (a store's `entry()` is asked once per entry). */
  private readonly values: (SessionEntry | undefined)[] = [];
  private states: Uint8Array;
  /** The parent in the tree: `parentId` when it names an entry appended earlier, else {@link NONE}. */
  private parents: Int32Array;
  /** The number of entries on the path from a root to the node, the node included. */
  private depths: Int32Array;
  /** The nearest `compaction` among the node and its ancestors. */
  private compactionAnchors: Int32Array;
  /** The nearest settings entry (thinking level, model, active tools) among the node and its ancestors. */
  private settingsAnchors: Int32Array;
  private firstChildren: Int32Array;
  private lastChildren: Int32Array;
  private nextSiblings: Int32Array;
  private firstRoot = NONE;
  private lastRoot = NONE;

  /** @param capacity - the number of entries expected (the arrays grow as needed) */
  constructor(capacity = 64) {
    const size = Math.max(16, capacity);
    this.states = new Uint8Array(size);
    this.parents = new Int32Array(size);
    this.depths = new Int32Array(size);
    this.compactionAnchors = new Int32Array(size);
    this.settingsAnchors = new Int32Array(size);
    this.firstChildren = new Int32Array(size);
    this.lastChildren = new Int32Array(size);
    this.nextSiblings = new Int32Array(size);
  }

  /** The order of an entry, or undefined for an unknown id. */
  orderOf(id: string): number | undefined {
    return this.byId.get(id);
  }

  /** True when the session holds an entry with this id. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  idOf(order: number): string {
    return (this.stored[order] as StoredEntry).id;
  }

  typeOf(order: number): string {
    return (this.stored[order] as StoredEntry).type;
  }

  /** The stored entry at `order` (for a store's `loadEntries`). */
  storedAt(order: number): StoredEntry {
    return this.stored[order] as StoredEntry;
  }

  /** The parent's order, or {@link NONE} for a root. */
  parentOf(order: number): number {
    return this.parents[order] as number;
  }

  /** The length of the path from a root to the node, the node included (`path(order).length`). O(1). */
  depthOf(order: number): number {
    return this.depths[order] as number;
  }

  compactionAnchorOf(order: number): number {
    return this.compactionAnchors[order] as number;
  }

  settingsAnchorOf(order: number): number {
    return this.settingsAnchors[order] as number;
  }

  /** The children of a node ({@link NONE}: the roots), in append order. */
  children(order: number): number[] {
    const children: number[] = [];
    let child = order === NONE ? this.firstRoot : (this.firstChildren[order] as number);
    for (; child !== NONE; child = this.nextSiblings[child] as number) children.push(child);
    return children;
  }

  /** The nodes from the root to `order` (inclusive). */
  path(order: number): number[] {
    const path: number[] = [];
    for (let node = order; node !== NONE; node = this.parents[node] as number) path.push(node);
    return path.reverse();
  }

  /** Adds the next entry in append order; `trusted` marks an entry this process built (not re-validated). */
  add(stored: StoredEntry, trusted = false): void {
    const { id, type, parentId } = stored;
    if (this.byId.has(id)) {
      this.warn(
        "repeated_id",
        "entries repeat an earlier entry's id; the later ones are ignored",
        `Entry "${id}" (${type}) repeats an earlier entry's id; the later one is ignored.`,
        id,
      );
      return;
    }
    const order = this.size;
    let parent = NONE;
    if (parentId !== null) {
      // In a linear stretch the parent is the previous entry: no map lookup.
      parent =
        order > 0 && (this.stored[order - 1] as StoredEntry).id === parentId
          ? order - 1
          : (this.byId.get(parentId) ?? NONE);
      if (parent === NONE) {
        this.warn(
          "missing_parent",
          "entries name a parent that does not come before them; they are treated as roots",
          `Entry "${id}" (${type}) names parent "${parentId}", which does not come before it; it is treated as a root.`,
          id,
        );
      }
    }
    if (order === this.parents.length) this.grow();
    this.byId.set(id, order);
    this.stored.push(stored);
    this.values.push(trusted ? stored.entry() : undefined);
    this.states[order] = trusted ? VALID : UNREAD;
    this.parents[order] = parent;
    this.depths[order] = parent === NONE ? 1 : (this.depths[parent] as number) + 1;
    this.compactionAnchors[order] =
      type === "compaction" ? order : parent === NONE ? NONE : (this.compactionAnchors[parent] as number);
    this.settingsAnchors[order] = isSettingsType(type)
      ? order
      : parent === NONE
        ? NONE
        : (this.settingsAnchors[parent] as number);
    this.firstChildren[order] = NONE;
    this.lastChildren[order] = NONE;
    this.nextSiblings[order] = NONE;
    if (parent === NONE) {
      if (this.lastRoot === NONE) this.firstRoot = order;
      else this.nextSiblings[this.lastRoot] = order;
      this.lastRoot = order;
    } else {
      const last = this.lastChildren[parent] as number;
      if (last === NONE) this.firstChildren[parent] = order;
      else this.nextSiblings[last] = order;
      this.lastChildren[parent] = order;
    }
    this.size = order + 1;
    this.lastEntryId = id;
    this.leafId = id;
    if (type === "label" || type === "session_info" || type === "leaf") this.applyGlobalEffect(order);
  }

  private grow(): void {
    const capacity = this.parents.length * 2;
    const states = new Uint8Array(capacity);
    states.set(this.states);
    this.states = states;
    this.parents = grown(this.parents, capacity);
    this.depths = grown(this.depths, capacity);
    this.compactionAnchors = grown(this.compactionAnchors, capacity);
    this.settingsAnchors = grown(this.settingsAnchors, capacity);
    this.firstChildren = grown(this.firstChildren, capacity);
    this.lastChildren = grown(this.lastChildren, capacity);
    this.nextSiblings = grown(this.nextSiblings, capacity);
  }

  private applyGlobalEffect(order: number): void {
    const entry = this.validEntry(order);
    const parent = this.parents[order] as number;
    if (entry === undefined) {
      if (this.typeOf(order) === "leaf") this.leafId = parent === NONE ? null : this.idOf(parent);
      return;
    }
    if (entry.type === "label") {
      if (entry.label === undefined || entry.label === "") this.labels.delete(entry.targetId);
      else this.labels.set(entry.targetId, entry.label);
    } else if (entry.type === "session_info") {
      if (entry.name !== undefined) this.name = entry.name.trim() === "" ? undefined : entry.name.trim();
    } else if (entry.type === "leaf") {
      if (entry.targetId === null || this.byId.has(entry.targetId)) this.leafId = entry.targetId;
      else {
        this.warn(
          "missing_leaf_target",
          "leaf entries move to an entry that does not exist; the leaf stays at their parent",
          `Leaf entry "${entry.id}" moves to "${entry.targetId}", which does not exist; the leaf stays at its parent.`,
          entry.id,
        );
        this.leafId = parent === NONE ? null : this.idOf(parent);
      }
    }
  }

  /** The entry when it was parsed already (nothing is parsed here). */
  parsedEntry(order: number): SessionEntry | undefined {
    return this.values[order];
  }

  /**
   * The full entry (unknown fields kept), parsed on first use; undefined when it cannot be read (an
   * entry that is valid JSON but invalid for its type is returned: see {@link validEntry}). Throws
   * `EntryNotLoadedError` (marking nothing) for a body the store left out and nobody loaded.
   */
  entry(order: number): SessionEntry | undefined {
    const value = this.values[order];
    if (value !== undefined || this.states[order] === INVALID) return value;
    const stored = this.stored[order] as StoredEntry;
    try {
      const parsed = stored.entry();
      this.values[order] = parsed;
      return parsed;
    } catch (error) {
      // Not loaded is not unreadable: the caller is told to load it, and nothing is marked.
      if (error instanceof EntryNotLoadedError) throw error;
      this.states[order] = INVALID;
      this.warn(
        "unreadable_entry",
        "entries cannot be read; they are left out",
        `Entry "${stored.id}" (${stored.type}) cannot be read: ${errorText(error)}`,
        stored.id,
      );
      return undefined;
    }
  }

  /** Records a warning. */
  warn(kind: string, group: string, message: string, entryId?: string, example?: string): void {
    const notice: SessionNotice = { level: "warning", kind, message, group };
    if (entryId !== undefined) notice.entryId = entryId;
    if (example !== undefined) notice.example = example;
    this.notices.push(notice);
  }

  /**
   * The entry when it is valid for its type (see `validateSessionEntry`), or when it lacks only fields that
   * can be filled in (see `repairSessionEntry`: then the repaired copy, each filled field reported once as a
   * note); else undefined — reported once as a warning. What the context is built from. A valid entry costs
   * one compiled check; the repair runs only for entries that fail it.
   */
  validEntry(order: number): SessionEntry | undefined {
    const state = this.states[order];
    if (state === VALID) return this.values[order];
    if (state === INVALID) return undefined;
    const value = this.entry(order);
    if (value === undefined) return undefined;
    if (isValidSessionEntry(value)) {
      this.states[order] = VALID;
      return value;
    }
    const repaired = repairSessionEntry(value);
    if (repaired !== undefined) {
      this.states[order] = VALID;
      this.values[order] = repaired.value;
      const id = this.idOf(order);
      for (const fill of repaired.filled) this.notices.push(filledFieldNotice(id, fill));
      return repaired.value;
    }
    this.states[order] = INVALID;
    const result = validateSessionEntry(value);
    const problem = result.ok ? "Entry is invalid" : result.message;
    this.warn(
      "invalid_entry",
      "entries are invalid; they are left out of the context",
      `${problem}. It is left out of the context.`,
      this.idOf(order),
      problem,
    );
    return undefined;
  }
}
