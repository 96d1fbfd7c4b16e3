/**
 * The rows of the `/tree` and `/fork` pickers: every entry of the session, in drawing order, with the same
 * guides and one-line previews as `arbor sessions show --tree` (reused from there). Previews are computed
 * only for the rows on screen, so opening the picker on a long session parses almost nothing.
 */
import type { Session } from "@arbor/session-store";
import { treeEntryLine } from "../commands/sessions/tree-text.js";
import { treeRuns } from "../export/tree-walk.js";
import type { PickerItem } from "./components/select-list.js";

/** Longest preview of an entry in a row. */
const PREVIEW_CHARS = 64;

/** The session tree as picker rows and the index of the current leaf's row. */
export interface TreeRows {
  items: PickerItem[];
  /** The row of the current leaf (0 when the session is empty). */
  leafIndex: number;
}

/**
 * Picker rows of every entry of a session (drawing order: a run, then the branches of its last entry).
 *
 * Contract: O(entries) and no parsing; each row's label parses its entry once, when first shown.
 */
export function treeRows(session: Session): TreeRows {
  const leafId = session.leafId;
  const items: PickerItem[] = [];
  let leafIndex = 0;
  for (const run of treeRuns(session.getTree())) {
    run.nodes.forEach((node, position) => {
      const prefix = position === 0 ? run.firstPrefix : run.prefix;
      if (node.id === leafId) leafIndex = items.length;
      let label: string | undefined;
      items.push({
        key: node.id,
        current: node.id === leafId,
        label: () => {
          label ??= prefix + treeEntryLine(node, leafId, PREVIEW_CHARS);
          return label;
        },
      });
    });
  }
  return { items, leafIndex };
}
