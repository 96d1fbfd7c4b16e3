/**
 * Which entries a context reads, from the tree alone: what `Session.open` with `bodies: "context"` loads
 * before it builds the context (see docs/decisions/0019-deferred-entry-bodies.md).
 */
import { keptSpan } from "./build-context.js";
import { NONE, type SessionIndex } from "./session-index.js";

/**
 * The orders whose bodies `buildSessionContext(index, leaf)` and `sessionSettings` read beyond the
 * entries of `EAGER_BODY_TYPES` (which must be readable already): the path from the leaf back to its
 * latest valid compaction (or to the root) and that compaction's kept span — the walk
 * `buildSessionContext` makes, done over the tree.
 *
 * Contract: reads only compaction bodies; the result is in no particular order.
 */
export function contextOrders(index: SessionIndex, leaf: number): number[] {
  const orders: number[] = [];
  let anchor = index.compactionAnchorOf(leaf);
  for (let node = leaf; node !== NONE; node = index.parentOf(node)) {
    if (node === anchor) {
      const entry = index.validEntry(node);
      if (entry?.type === "compaction") {
        orders.push(...keptSpan(index, node, entry));
        break;
      }
      const parent = index.parentOf(node);
      anchor = parent === NONE ? NONE : index.compactionAnchorOf(parent);
    }
    orders.push(node);
  }
  return orders;
}
