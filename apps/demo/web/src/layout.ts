/**
 * Placing the graph's nodes: dagre's layered layout, top to bottom, on the nodes the server sent (long
 * runs already collapsed, so a huge session is a few hundred nodes), turned into React Flow nodes and
 * edges. The edges of the current path are marked.
 */
import dagre from "@dagrejs/dagre";
import type { Edge, Node } from "@xyflow/react";
import type { GraphNode } from "./api.js";

/** Size of a node box, in px. */
export const NODE_WIDTH = 230;
export const NODE_HEIGHT = 46;

/** The data a React Flow node carries. */
export type EntryNodeData = { node: GraphNode; selected: boolean; second: boolean };

/** React Flow nodes and edges of the graph, laid out. */
export function layoutGraph(
  nodes: readonly GraphNode[],
  selection: readonly string[],
): { nodes: Node<EntryNodeData>[]; edges: Edge[] } {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: "TB", nodesep: 24, ranksep: 28, marginx: 20, marginy: 20 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  const edges: Edge[] = [];
  for (const node of nodes) {
    if (node.parentId === null) continue;
    graph.setEdge(node.parentId, node.id);
    edges.push({
      id: `${node.parentId}->${node.id}`,
      source: node.parentId,
      target: node.id,
      className: node.onPath ? "edge-path" : "edge",
    });
  }
  dagre.layout(graph);
  return {
    nodes: nodes.map((node) => {
      const placed = graph.node(node.id);
      return {
        id: node.id,
        type: "entry",
        position: { x: (placed?.x ?? 0) - NODE_WIDTH / 2, y: (placed?.y ?? 0) - NODE_HEIGHT / 2 },
        data: { node, selected: selection[0] === node.id, second: selection[1] === node.id },
        draggable: false,
      };
    }),
    edges,
  };
}
