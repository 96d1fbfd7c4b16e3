/**
 * Where the graph's view goes: a readable zoom (boxes of {@link NODE_HEIGHT} px at zoom 1), the bounds of a
 * layout, whether the tree is bigger than the pane at that zoom (then the minimap is worth showing), and
 * the viewport that puts a point in the middle of a pane of known size.
 */
import type { Viewport } from "@xyflow/react";
import { type GraphLayout, NODE_HEIGHT, NODE_WIDTH } from "./layout.js";

/** The zoom the graph opens at and centres nodes at: the boxes' text at its own size. */
export const READABLE_ZOOM = 1;

/** Below this zoom, a centred node is brought back to {@link READABLE_ZOOM} (its text is too small). */
export const SMALLEST_READABLE_ZOOM = 0.75;

/** A rectangle in the graph's coordinates. */
export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The rectangle around every node box of a layout; undefined for an empty one. */
export function layoutBounds(layout: GraphLayout): Bounds | undefined {
  let left = Number.POSITIVE_INFINITY;
  let top = Number.POSITIVE_INFINITY;
  let right = Number.NEGATIVE_INFINITY;
  let bottom = Number.NEGATIVE_INFINITY;
  for (const { x, y } of layout.positions.values()) {
    left = Math.min(left, x);
    top = Math.min(top, y);
    right = Math.max(right, x + NODE_WIDTH);
    bottom = Math.max(bottom, y + NODE_HEIGHT);
  }
  if (left === Number.POSITIVE_INFINITY) return undefined;
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** Whether a tree of these bounds is bigger than a pane of this size at {@link READABLE_ZOOM}. */
export function outgrowsPane(bounds: Bounds | undefined, pane: { width: number; height: number }): boolean {
  if (bounds === undefined || pane.width <= 0 || pane.height <= 0) return false;
  return bounds.width * READABLE_ZOOM > pane.width || bounds.height * READABLE_ZOOM > pane.height;
}

/**
 * Where the leaf goes, as a fraction of the pane's height: below the middle, so that the path above it
 * (what led there) fills most of the view and new entries still have room under it.
 */
export const LEAF_HEIGHT_FRACTION = 0.7;

/**
 * The viewport that shows the point (`x`, `y`) of the graph in the middle of the pane's width, at
 * `heightFraction` of its height (default the middle), at `zoom`.
 */
export function centredViewport(
  point: { x: number; y: number },
  pane: { width: number; height: number },
  zoom: number,
  heightFraction = 0.5,
): Viewport {
  return { x: pane.width / 2 - point.x * zoom, y: pane.height * heightFraction - point.y * zoom, zoom };
}

/** The middle of a node box placed at `position`. */
export function boxCentre(position: { x: number; y: number }): { x: number; y: number } {
  return { x: position.x + NODE_WIDTH / 2, y: position.y + NODE_HEIGHT / 2 };
}
