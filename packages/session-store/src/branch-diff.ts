/**
 * Where two branches diverge — two leaves of one session, or the current branches of two sessions (a fork
 * and its parent) — and what each holds after the divergence.
 *
 * The two paths (root to leaf) are compared position by position; the common ancestor is the last
 * position where they agree. In one session, entries agree when their ids are equal (nothing is parsed).
 * Across sessions, `Session.fork` copies entries with their ids, timestamps and fields, so entries agree
 * when their ids are equal and their contents are deeply equal; entries with different ids agree when
 * everything but `id`, `parentId` and `timestamp` is equal (a copy that was given new ids). Two unrelated
 * sessions therefore share nothing: their messages differ at least by their timestamps.
 */
import type { SessionEntry } from "./entries.js";
import type { Session } from "./session.js";
import type { SessionEntryRef } from "./session-tree.js";

/** One side of a diff: a session and the leaf of the branch to compare. */
export interface BranchDiffSide {
  readonly session: Session;
  /** The branch's last entry (`null`: the empty branch). */
  readonly leafId: string | null;
}

/** What one side holds after the common ancestor. */
export interface BranchDiffSideResult {
  sessionId: string;
  leafId: string | null;
  /** Entries on the whole branch (root to leaf). */
  branchLength: number;
  /** `message` entries after the common ancestor. */
  messages: number;
  /** Every entry after the common ancestor, oldest first (bodies parsed on demand). */
  after: SessionEntryRef[];
}

/** The result of {@link diffBranches}. */
export interface BranchDiff {
  sameSession: boolean;
  /**
   * How the shared entries were matched: all by id (`id`), all by content only (`content`), some each way
   * (`mixed`: e.g. a fork's label entries, which are re-created with new ids), or nothing shared (`none`).
   */
  matchedBy: "id" | "content" | "mixed" | "none";
  /** `b-forked-from-a` / `a-forked-from-b` when a header names the other session as its parent. */
  relation: "b-forked-from-a" | "a-forked-from-b" | undefined;
  /** The last shared entry: in `a`, in `b` (another id when matched by content), and its 1-based position. */
  commonAncestor: { a: SessionEntryRef; b: SessionEntryRef; position: number } | undefined;
  a: BranchDiffSideResult;
  b: BranchDiffSideResult;
}

const TREE_FIELDS: ReadonlySet<string> = new Set(["id", "parentId", "timestamp"]);

/**
 * Deep equality of JSON values (key order ignored, `undefined` members ignored); `skip` names top-level
 * keys to ignore.
 *
 * Contract: pure; O(size of the values).
 */
export function sameJson(a: unknown, b: unknown, skip?: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((value, index) => sameJson(value, b[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = (record: Record<string, unknown>) =>
    Object.keys(record).filter((key) => record[key] !== undefined && skip?.has(key) !== true);
  const leftKeys = keys(left);
  if (leftKeys.length !== keys(right).length) return false;
  return leftKeys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}

/** How two entries at the same position agree: by id, by content only, or not at all. */
function agreement(
  a: SessionEntryRef,
  b: SessionEntryRef,
  sameSession: boolean,
): "id" | "content" | undefined {
  if (sameSession) return a.id === b.id ? "id" : undefined;
  if (a.type !== b.type) return undefined;
  const left: SessionEntry | undefined = a.entry();
  const right: SessionEntry | undefined = b.entry();
  if (left === undefined || right === undefined) return undefined;
  if (a.id === b.id) return sameJson(left, right) ? "id" : undefined;
  return sameJson(left, right, TREE_FIELDS) ? "content" : undefined;
}

function sideResult(
  side: BranchDiffSide,
  path: readonly SessionEntryRef[],
  shared: number,
): BranchDiffSideResult {
  const after = path.slice(shared);
  return {
    sessionId: side.session.id,
    leafId: side.leafId,
    branchLength: path.length,
    messages: after.filter((ref) => ref.type === "message").length,
    after,
  };
}

/**
 * Compares two branches (see the module comment for how entries are matched).
 *
 * Contract: O(length of the two branches); within one session parses nothing; across sessions parses
 * the shared prefix and the first entries that differ. Throws the session's `SessionEntryNotFoundError`
 * for an unknown leaf.
 */
export function diffBranches(a: BranchDiffSide, b: BranchDiffSide): BranchDiff {
  const sameSession = a.session === b.session || a.session.id === b.session.id;
  const pathA = a.session.getPath(a.leafId);
  const pathB = b.session.getPath(b.leafId);
  let shared = 0;
  let matchedBy: BranchDiff["matchedBy"] = "none";
  while (shared < pathA.length && shared < pathB.length) {
    const how = agreement(pathA[shared]!, pathB[shared]!, sameSession);
    if (how === undefined) break;
    matchedBy = matchedBy === "none" || matchedBy === how ? how : "mixed";
    shared++;
  }
  const ancestorA = shared > 0 ? pathA[shared - 1] : undefined;
  const ancestorB = shared > 0 ? pathB[shared - 1] : undefined;
  let relation: BranchDiff["relation"];
  if (!sameSession) {
    if (b.session.header.parentSession === a.session.id) relation = "b-forked-from-a";
    else if (a.session.header.parentSession === b.session.id) relation = "a-forked-from-b";
  }
  return {
    sameSession,
    matchedBy,
    relation,
    commonAncestor:
      ancestorA === undefined || ancestorB === undefined
        ? undefined
        : { a: ancestorA, b: ancestorB, position: shared },
    a: sideResult(a, pathA, shared),
    b: sideResult(b, pathB, shared),
  };
}
