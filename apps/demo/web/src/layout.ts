/**
 * Placing the graph's nodes: d3-hierarchy's tidy tree layout (Reingold–Tilford, O(nodes)), top to bottom,
 * on the nodes the server sent (long runs already collapsed, so a huge session is a few hundred nodes),
 * turned into React Flow nodes and edges. Several roots hang under an invisible one. The edges of the
 * current path are marked. The layout depends on the nodes only; the selection is applied after it.
 */
import type { Edge, Node } from "@xyflow/react";
import { stratify, tree } from "d3-hierarchy";
import type { GraphNode } from "./api.js";

/** Size of a node box, in px, and the gaps between boxes. */
export const NODE_WIDTH = 230;
export const NODE_HEIGHT = 46;
const GAP_X = 24;
const GAP_Y = 28;

/** The data a React Flow node carries. */
export type EntryNodeData = { node: GraphNode; selected: boolean; second: boolean };

/** Where each node goes, and the edges; computed once per graph. */
export interface GraphLayout {
  positions: Map<string, { x: number; y: number }>;
  edges: Edge[];
}

const ROOT = "\u0000root";

/** The layout of the graph's nodes (see the module comment). */
export function layoutGraph(nodes: readonly GraphNode[]): GraphLayout {
  const positions = new Map<string, { x: number; y: number }>();
  const edges: Edge[] = [];
  if (nodes.length === 0) return { positions, edges };
  const ids = new Set(nodes.map((node) => node.id));
  type Row = { id: string; parentId: string | null };
  const rows: Row[] = [{ id: ROOT, parentId: null }];
  for (const node of nodes) {
    const parent = node.parentId !== null && ids.has(node.parentId) ? node.parentId : ROOT;
    rows.push({ id: node.id, parentId: parent });
    if (parent !== ROOT) {
      edges.push({
        id: `${parent}->${node.id}`,
        source: parent,
        target: node.id,
        className: node.onPath ? "edge-path" : "edge",
      });
    }
  }
  const root = stratify<Row>()
    .id((row) => row.id)
    .parentId((row) => row.parentId)(rows);
  tree<Row>().nodeSize([NODE_WIDTH + GAP_X, NODE_HEIGHT + GAP_Y])(root);
  for (const placed of root.descendants()) {
    if (placed.id === ROOT) continue;
    positions.set(placed.id!, {
      x: (placed.x ?? 0) - NODE_WIDTH / 2,
      y: (placed.depth - 1) * (NODE_HEIGHT + GAP_Y),
    });
  }
  return { positions, edges };
}

/**
 * React Flow nodes of a layout, with the selection marked. Each has its box's size, so that the minimap
 * and the viewport helpers know it before (and without) React Flow measuring the box.
 */
export function flowNodes(
  nodes: readonly GraphNode[],
  layout: GraphLayout,
  selection: readonly string[],
): Node<EntryNodeData>[] {
  return nodes.map((node) => ({
    id: node.id,
    type: "entry",
    position: layout.positions.get(node.id) ?? { x: 0, y: 0 },
    data: { node, selected: selection[0] === node.id, second: selection[1] === node.id },
    width: NODE_WIDTH,
    height: NODE_HEIGHT,
    draggable: false,
  }));
}
