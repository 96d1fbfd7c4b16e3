/**
 * The session tree as text for `arbor sessions show --tree`: one line per entry (id, a one-line preview,
 * its label, `← leaf` on the current leaf), `├─` / `└─` guides at branch points, compactions (`◆`),
 * branch summaries (`◇`) and prunes (`✂`) marked. Long spans of plain entries inside a run are folded into one line, so a
 * 60k-entry session prints a bounded outline; only printed entries are parsed.
 */
import type { Session, SessionTreeNode } from "@arbor/session-store";
import { previewView, viewEntry } from "./entry-view.js";
import { countOf } from "./format.js";
import { type FoldOptions, runItems, treeRuns } from "./tree-walk.js";

/** Options of {@link treeTextLines}. */
export interface TreeTextOptions {
  /** Fold long spans of plain entries (default true). */
  fold?: boolean;
  /** Longest preview, in characters (default 72). */
  previewChars?: number;
  /** The session's tree when the caller already has it (`session.getTree()`). */
  roots?: readonly SessionTreeNode[];
}

/** Entries kept at each end of a folded span, and the fewest entries worth folding. */
const FOLD_HEAD = 6;
const FOLD_TAIL = 6;
const FOLD_MINIMUM = 4;

const MARKS: Partial<Record<string, string>> = { compaction: "◆ ", branch_summary: "◇ ", prune: "✂ " };

/**
 * One entry's line (without the guides): `id ◆ preview  [label]  ← leaf`.
 *
 * Contract: parses the entry once; never throws.
 */
export function treeEntryLine(node: SessionTreeNode, leafId: string | null, previewChars: number): string {
  const preview = previewView(viewEntry(node.entry(), node), previewChars);
  const label = node.label === undefined ? "" : `  [${node.label}]`;
  const leaf = node.id === leafId ? "  ← leaf" : "";
  return `${node.id} ${MARKS[node.type] ?? ""}${preview}${label}${leaf}`;
}

/**
 * The tree's lines, roots first, in drawing order.
 *
 * Contract: O(entries) time and no recursion; parses only the entries it prints. Folded, the output has at
 * most about (2 × 6 + 3) lines per run plus one per kept entry (labelled, compaction, branch summary, prune,
 * leaf).
 */
export function treeTextLines(session: Session, options: TreeTextOptions = {}): string[] {
  const roots = options.roots ?? session.getTree();
  if (roots.length === 0) return ["(no entries)"];
  const leafId = session.leafId;
  const previewChars = options.previewChars ?? 72;
  const fold: FoldOptions | undefined =
    options.fold === false
      ? undefined
      : {
          head: FOLD_HEAD,
          tail: FOLD_TAIL,
          minimum: FOLD_MINIMUM,
          keep: (node) =>
            node.label !== undefined ||
            node.type === "compaction" ||
            node.type === "branch_summary" ||
            node.type === "prune" ||
            node.id === leafId,
        };
  const lines: string[] = [];
  for (const run of treeRuns(roots)) {
    runItems(run, fold).forEach((item, position) => {
      const prefix = position === 0 ? run.firstPrefix : run.prefix;
      if (item.kind === "entry") lines.push(prefix + treeEntryLine(item.node, leafId, previewChars));
      else {
        const count = item.nodes.length;
        lines.push(
          `${prefix}┆ … ${countOf(count, "entry", "entries")} (${countOf(item.messages, "message")}) folded; --no-fold shows them`,
        );
      }
    });
  }
  return lines;
}
