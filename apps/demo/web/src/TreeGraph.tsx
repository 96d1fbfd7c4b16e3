/**
 * The session tree as a graph (React Flow): a node per entry or collapsed run, styled by kind; the leaf,
 * the current path and the context highlighted; entries a compaction covers shown as covered, entries an
 * abandoned branch summary stands for as summarized, failed responses dimmed. Click selects (Shift-click
 * a second node, for a diff or a merge); double-click on a run expands it. Pan and zoom as usual.
 */
import {
  Background,
  Controls,
  Handle,
  MiniMap,
  type Node,
  type NodeProps,
  Position,
  ReactFlow,
  type ReactFlowInstance,
} from "@xyflow/react";
import { memo, useEffect, useMemo, useRef } from "react";
import type { GraphNode } from "./api.js";
import { type EntryNodeData, flowNodes, layoutGraph } from "./layout.js";

/** A short badge per kind, in glyphs every font has (no emoji: a headless browser may lack the font). */
const ICONS: Record<string, string> = {
  user: "U",
  assistant: "A",
  toolResult: "T",
  compaction: "◆",
  branchSummary: "◇",
  label: "#",
  setting: "S",
  leaf: "↩",
  run: "…",
  bash: "$",
  custom: "C",
  info: "i",
};

const MINIMAP_COLORS: Record<string, string> = {
  user: "#58a6ff",
  assistant: "#8b949e",
  compaction: "#d2a8ff",
  branchSummary: "#ff9bce",
  run: "#484f58",
};

function classesOf(node: GraphNode, data: EntryNodeData): string {
  return [
    "entry-node",
    `kind-${node.kind}`,
    node.onPath ? "on-path" : "",
    node.inContext ? "in-context" : "",
    node.leaf ? "leaf" : "",
    node.compactedBy !== undefined ? "compacted" : "",
    node.summarizedBy !== undefined ? "summarized" : "",
    node.failed ? "failed" : "",
    data.selected ? "selected" : "",
    data.second ? "second" : "",
  ]
    .filter((name) => name !== "")
    .join(" ");
}

const EntryNode = memo(function EntryNode({ data }: NodeProps<Node<EntryNodeData>>) {
  const node = data.node;
  return (
    <div
      className={classesOf(node, data)}
      data-testid="graph-node"
      data-entry-id={node.entryId}
      data-kind={node.kind}
      title={node.preview}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <span className="icon">{ICONS[node.kind] ?? "·"}</span>
      <span className="preview">{node.preview}</span>
      {node.label !== undefined && <span className="tag">{node.label}</span>}
      {node.leaf && <span className="tag leaf-tag">leaf</span>}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
});

const NODE_TYPES = { entry: EntryNode };

/** Props of {@link TreeGraph}. */
export interface TreeGraphProps {
  nodes: readonly GraphNode[];
  selection: readonly string[];
  /** The node to bring into view (the leaf after a change, a covered entry clicked in a summary). */
  focusId: string | undefined;
  onSelect: (node: GraphNode, additive: boolean) => void;
  onExpand: (node: GraphNode) => void;
}

/** The graph (see the module comment); re-renders only when its props change (not on every streamed delta). */
export const TreeGraph = memo(function TreeGraph(props: TreeGraphProps) {
  const layout = useMemo(() => layoutGraph(props.nodes), [props.nodes]);
  const nodes = useMemo(
    () => flowNodes(props.nodes, layout, props.selection),
    [props.nodes, layout, props.selection],
  );
  const edges = layout.edges;
  const byId = useMemo(() => new Map(props.nodes.map((node) => [node.id, node])), [props.nodes]);
  const flow = useRef<ReactFlowInstance<Node<EntryNodeData>> | null>(null);
  useEffect(() => {
    if (props.focusId === undefined || flow.current === null) return;
    const target = nodes.find(
      (node) => node.id === props.focusId || node.data.node.entryId === props.focusId,
    );
    if (target === undefined) return;
    void flow.current.setCenter(target.position.x + 115, target.position.y + 23, { zoom: 1, duration: 200 });
  }, [props.focusId, nodes]);
  return (
    <div className="graph" data-testid="graph" data-node-count={nodes.length}>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        onInit={(instance) => {
          flow.current = instance;
        }}
        onNodeClick={(event, node) => {
          const graphNode = byId.get(node.id);
          if (graphNode !== undefined) props.onSelect(graphNode, event.shiftKey);
        }}
        onNodeDoubleClick={(_event, node) => {
          const graphNode = byId.get(node.id);
          if (graphNode?.kind === "run") props.onExpand(graphNode);
        }}
        nodesDraggable={false}
        nodesConnectable={false}
        onlyRenderVisibleElements
        minZoom={0.05}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={24} />
        <Controls showInteractive={false} />
        <MiniMap
          pannable
          zoomable
          bgColor="#0d1117"
          maskColor="rgba(15, 18, 22, 0.55)"
          nodeColor={(node) => MINIMAP_COLORS[(node.data as EntryNodeData).node.kind] ?? "#30363d"}
        />
      </ReactFlow>
    </div>
  );
});
