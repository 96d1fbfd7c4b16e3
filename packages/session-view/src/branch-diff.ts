/**
 * The diff of two branches as a front end shows it (`arbor sessions diff`): `diffBranches` of `@arbor/session-store`
 * (where the branches diverge, matched by id or by content) with one-line previews of the entries and the
 * files each side's tool calls read and changed.
 */
import { type FileOperations, FileOperationTracker } from "@arbor/compaction";
import {
  type BranchDiffSide,
  type BranchDiffSideResult,
  diffBranches as diffSessionBranches,
  type SessionEntryRef,
  type SessionMessage,
} from "@arbor/session-store";
import { previewView, viewEntry } from "./entry-view.js";

/** An entry as a diff lists it. */
export interface DiffItem {
  id: string;
  type: string;
  /** One-line preview (`user: …`, `tool read: …`). */
  preview: string;
}

/** What one side holds after the common ancestor. */
export interface DiffSideResult {
  sessionId: string;
  leafId: string | null;
  /** Entries on the whole branch (root to leaf). */
  branchLength: number;
  /** Entries after the common ancestor. */
  entries: number;
  /** `message` entries among them. */
  messages: number;
  /** Files read and changed by the tool calls after the common ancestor. */
  files: FileOperations;
  /** Every entry after the common ancestor, oldest first. */
  items: DiffItem[];
}

/** The result of {@link branchDiffView}: the store's diff with previews and file lists. */
export interface BranchDiffView {
  sameSession: boolean;
  /**
   * How the shared entries were matched: all by id (`id`), all by content only (`content`), some each way
   * (`mixed`: e.g. a fork's label entries, which are re-created with new ids), or nothing shared (`none`).
   */
  matchedBy: "id" | "content" | "mixed" | "none";
  /** `b-forked-from-a` / `a-forked-from-b` when a header names the other session as its parent. */
  relation: "b-forked-from-a" | "a-forked-from-b" | undefined;
  /** The last shared entry: its id in `a` (and in `b`, which differs when matched by content). */
  commonAncestor: { id: string; idInB: string; position: number; item: DiffItem } | undefined;
  a: DiffSideResult;
  b: DiffSideResult;
}

function item(ref: SessionEntryRef): DiffItem {
  return { id: ref.id, type: ref.type, preview: previewView(viewEntry(ref.entry(), ref), 90) };
}

function sideResult(side: BranchDiffSideResult): DiffSideResult {
  const tracker = new FileOperationTracker();
  for (const ref of side.after) {
    if (ref.type !== "message") continue;
    const message = (ref.entry() as { message?: SessionMessage } | undefined)?.message;
    if (message !== undefined) tracker.addMessage(message);
  }
  return {
    sessionId: side.sessionId,
    leafId: side.leafId,
    branchLength: side.branchLength,
    entries: side.after.length,
    messages: side.messages,
    files: tracker.result(),
    items: side.after.map(item),
  };
}

/**
 * Compares two branches (`diffBranches` of `@arbor/session-store`) and adds previews and file lists.
 *
 * Contract: O(length of the two branches); within one session parses only the entries after the
 * divergence; throws the session's `SessionEntryNotFoundError` for an unknown leaf.
 */
export function branchDiffView(a: BranchDiffSide, b: BranchDiffSide): BranchDiffView {
  const diff = diffSessionBranches(a, b);
  const ancestor = diff.commonAncestor;
  return {
    sameSession: diff.sameSession,
    matchedBy: diff.matchedBy,
    relation: diff.relation,
    commonAncestor:
      ancestor === undefined
        ? undefined
        : { id: ancestor.a.id, idInB: ancestor.b.id, position: ancestor.position, item: item(ancestor.a) },
    a: sideResult(diff.a),
    b: sideResult(diff.b),
  };
}
