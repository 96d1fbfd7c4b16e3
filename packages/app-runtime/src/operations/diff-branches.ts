/**
 * The one JSON shape of a branch diff, for every front end (`diff` of the protocol, `arbor sessions diff
 * --json`): `diffBranches` of `@arbor/session-store` computes where two branches diverge, `branchDiffView`
 * of `@arbor/session-view` adds previews and file lists, and {@link branchDiffResult} makes it plain JSON
 * (no `undefined`, `null` where nothing is known).
 */
import type { HarnessSession } from "@arbor/harness";
import { type BranchDiffView, branchDiffView, type DiffItem, type DiffSideResult } from "@arbor/session-view";
import { entryOf } from "./operation-host.js";

/** One side of a {@link BranchDiffResult}: what its branch holds after the common ancestor. */
export interface BranchDiffSideJson {
  sessionId: string;
  leafId: string | null;
  /** Entries on the whole branch (root to leaf). */
  branchLength: number;
  /** Entries after the common ancestor (all of them, also when `items` is cut short). */
  entries: number;
  /** `message` entries among them. */
  messages: number;
  /** Files read and changed by the tool calls after the common ancestor. */
  readFiles: string[];
  modifiedFiles: string[];
  /** The entries after the common ancestor, oldest first (the first `maxItems` when a limit was given). */
  items: DiffItem[];
}

/** Where two branches diverge and what each holds after (see the module comment). */
export interface BranchDiffResult {
  sameSession: boolean;
  /** How shared entries were matched (see `BranchDiffView.matchedBy`). */
  matchedBy: BranchDiffView["matchedBy"];
  relation: "b-forked-from-a" | "a-forked-from-b" | null;
  /** The last shared entry (`idInB`: its id in `b`, another when matched by content); `null`: none. */
  commonAncestor: { id: string; idInB: string; position: number; type: string; preview: string } | null;
  a: BranchDiffSideJson;
  b: BranchDiffSideJson;
}

/** Most items listed per side of a diff the protocol answers with (`entries` counts them all). */
export const MAX_DIFF_ITEMS = 500;

/**
 * The JSON of a diff view; `maxItems` cuts each side's `items` (not its counts).
 *
 * Contract: pure.
 */
export function branchDiffResult(
  diff: BranchDiffView,
  options: { maxItems?: number } = {},
): BranchDiffResult {
  const side = (result: DiffSideResult): BranchDiffSideJson => ({
    sessionId: result.sessionId,
    leafId: result.leafId,
    branchLength: result.branchLength,
    entries: result.entries,
    messages: result.messages,
    readFiles: result.files.readFiles,
    modifiedFiles: result.files.modifiedFiles,
    items: options.maxItems === undefined ? result.items : result.items.slice(0, options.maxItems),
  });
  const ancestor = diff.commonAncestor;
  return {
    sameSession: diff.sameSession,
    matchedBy: diff.matchedBy,
    relation: diff.relation ?? null,
    commonAncestor:
      ancestor === undefined
        ? null
        : {
            id: ancestor.id,
            idInB: ancestor.idInB,
            position: ancestor.position,
            type: ancestor.item.type,
            preview: ancestor.item.preview,
          },
    a: side(diff.a),
    b: side(diff.b),
  };
}

/**
 * Diffs two branches of the current session, ending at `a` and `b` (at most {@link MAX_DIFF_ITEMS} items
 * per side).
 *
 * Contract: reads only; refuses with `not_found` for an unknown entry.
 */
export function diffSessionBranches(session: HarnessSession, a: string, b: string): BranchDiffResult {
  const tree = session.session;
  entryOf(tree, a);
  entryOf(tree, b);
  return branchDiffResult(branchDiffView({ session: tree, leafId: a }, { session: tree, leafId: b }), {
    maxItems: MAX_DIFF_ITEMS,
  });
}
