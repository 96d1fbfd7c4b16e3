/**
 * The rows of a tree picker (the CLI's `/tree` and `/fork`): every entry of the session, in drawing order,
 * with the same guides and one-line previews as {@link treeTextLines}. Previews are computed only for the
 * rows on screen, so opening the picker on a long session parses almost nothing.
 */
import type { Session, SessionTreeNode } from "@arbor/session-store";
import { treeEntryLine } from "./tree-text.js";
import { treeRuns } from "./tree-walk.js";

/** One row of the tree: an entry. */
export interface TreeRow {
  /** The entry's id. */
  readonly key: string;
  /**
   * The row's text (guides and preview) in `width` columns (default: a preview of 64 characters), computed
   * when first asked for.
   */
  readonly label: (width?: number) => string;
  /** True for the session's current leaf. */
  readonly current: boolean;
}

/** Longest preview of an entry in a row. */
const PREVIEW_CHARS = 64;

/** The session tree as picker rows and the index of the current leaf's row. */
export interface TreeRows {
  items: TreeRow[];
  /** The row of the current leaf (0 when the session is empty). */
  leafIndex: number;
}

/**
 * Picker rows of every entry of a session (drawing order: a run, then the branches of its last entry).
 *
 * (`roots`: a tree to draw instead of the session's, e.g. one without its retried failures.)
 *
 * Contract: O(entries) and no parsing; each row's label parses its entry once, when first shown.
 */
export function treeRows(session: Session, roots: readonly SessionTreeNode[] = session.getTree()): TreeRows {
  const leafId = session.leafId;
  const items: TreeRow[] = [];
  let leafIndex = 0;
  for (const run of treeRuns(roots)) {
    run.nodes.forEach((node, position) => {
      const prefix = position === 0 ? run.firstPrefix : run.prefix;
      if (node.id === leafId) leafIndex = items.length;
      let label: string | undefined;
      let labelWidth: number | undefined;
      items.push({
        key: node.id,
        current: node.id === leafId,
        label: (width) => {
          if (label === undefined || labelWidth !== width) {
            const preview =
              width === undefined ? PREVIEW_CHARS : Math.max(16, width - prefix.length - node.id.length - 4);
            label = prefix + treeEntryLine(node, leafId, preview);
            labelWidth = width;
          }
          return label;
        },
      });
    });
  }
  return { items, leafIndex };
}
