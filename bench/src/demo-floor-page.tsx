/**
 * The floor of the demo bench's interactive-graph row: a page that renders only React Flow, with the nodes and
 * edges the bench precomputed (the demo page's layout of the same graph) and the demo's first view (zoom 1
 * around the leaf), fetched as JSON like the demo page fetches its graph. Bundled by the bench with esbuild.
 */
import { type Edge, type Node, ReactFlow, type Viewport } from "@xyflow/react";
import { createRoot } from "react-dom/client";

/** What `nodes.json` holds. */
export interface FloorGraph {
  nodes: Node[];
  edges: Edge[];
  viewport: Viewport;
}

async function main(): Promise<void> {
  const graph = (await (await fetch("nodes.json")).json()) as FloorGraph;
  const root = createRoot(document.getElementById("root")!);
  root.render(
    <div style={{ width: "100vw", height: "100vh" }}>
      <ReactFlow
        nodes={graph.nodes}
        edges={graph.edges}
        defaultViewport={graph.viewport}
        nodesDraggable={false}
        nodesConnectable={false}
        onlyRenderVisibleElements
        minZoom={0.05}
        maxZoom={2}
        proOptions={{ hideAttribution: true }}
      />
    </div>,
  );
}

void main();
