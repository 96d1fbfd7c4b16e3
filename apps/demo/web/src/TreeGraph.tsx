/**
 * The session tree as a graph (React Flow): a node per entry or collapsed run, styled by kind; the leaf,
 * the current path and the context highlighted; entries a compaction covers shown as covered, entries an
 * abandoned branch summary stands for as summarized, failed responses dimmed. Click selects and centres a
 * node (Shift-click a second node, for a diff or a merge); double-click on a run expands it. It opens at a
 * readable zoom around the focused node: the leaf, placed below the middle so that its path fills the view;
 * the controls zoom, fit the whole tree and go back to the leaf. A tree bigger than the pane gets a minimap beside the pane (never over the nodes), which can be hidden.
 */
import {
  Background,
  ControlButton,
  Controls,
  Handle,
  MiniMap,
  type Node,
  type NodeProps,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  useStore,
} from "@xyflow/react";
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { GraphNode } from "./api.js";
import { type EntryNodeData, flowNodes, layoutGraph } from "./layout.js";
import { useElementSize } from "./use-element-size.js";
import {
  boxCentre,
  centredViewport,
  LEAF_HEIGHT_FRACTION,
  layoutBounds,
  outgrowsPane,
  READABLE_ZOOM,
  SMALLEST_READABLE_ZOOM,
} from "./viewport.js";

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

/** Width of the minimap's column beside the pane, in px (see `.graph-map` in styles.css). */
const MAP_COLUMN = 172;

/** How long a move of the view takes, in ms (the first view is placed at once). */
const MOVE_MS = 300;

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
  /**
   * The node to bring into view (the leaf after a change, a covered entry clicked in a summary): centred at
   * a readable zoom when it changes, or when it first appears (an expanded run).
   */
  focusId: string | undefined;
  onSelect: (node: GraphNode, additive: boolean) => void;
  onExpand: (node: GraphNode) => void;
}

/** The graph (see the module comment); re-renders only when its props change (not on every streamed delta). */
export const TreeGraph = memo(function TreeGraph(props: TreeGraphProps) {
  return (
    <ReactFlowProvider>
      <TreeGraphView {...props} />
    </ReactFlowProvider>
  );
});

function TreeGraphView(props: TreeGraphProps) {
  const layout = useMemo(() => layoutGraph(props.nodes), [props.nodes]);
  const nodes = useMemo(
    () => flowNodes(props.nodes, layout, props.selection),
    [props.nodes, layout, props.selection],
  );
  const byId = useMemo(() => new Map(props.nodes.map((node) => [node.id, node])), [props.nodes]);
  const flow = useReactFlow<Node<EntryNodeData>>();
  const ready = useStore((state) => state.panZoom !== null);
  const area = useRef<HTMLDivElement>(null);
  const size = useElementSize(area);
  const [mapHidden, setMapHidden] = useState(false);
  const large = outgrowsPane(layoutBounds(layout), size);
  const mapShown = large && !mapHidden;
  // The pane's size once the minimap's column is there (React Flow measures it a moment later).
  const pane = useMemo(
    () => ({ width: Math.max(0, size.width - (mapShown ? MAP_COLUMN : 0)), height: size.height }),
    [size, mapShown],
  );

  /**
   * Centres the node box at `position` (a leaf: below the middle), at the current zoom if readable, else at
   * the readable one.
   */
  const centre = useCallback(
    (position: { x: number; y: number }, duration: number, leaf = false) => {
      const zoom = flow.getZoom();
      const readable = zoom >= SMALLEST_READABLE_ZOOM ? zoom : READABLE_ZOOM;
      const height = leaf ? LEAF_HEIGHT_FRACTION : 0.5;
      void flow.setViewport(centredViewport(boxCentre(position), pane, readable, height), { duration });
    },
    [flow, pane],
  );

  // The focused node, centred once when the focus changes (not at each refresh, nor when the user moved).
  const centred = useRef<string | undefined>(undefined);
  useEffect(() => {
    const focusId = props.focusId;
    if (!ready || focusId === undefined || pane.width === 0 || centred.current === focusId) return;
    const target = props.nodes.find((node) => node.id === focusId || node.entryId === focusId);
    const position = target === undefined ? undefined : layout.positions.get(target.id);
    if (position === undefined) return;
    const first = centred.current === undefined;
    centred.current = focusId;
    centre(position, first ? 0 : MOVE_MS, target?.leaf === true);
  }, [ready, props.focusId, props.nodes, layout, pane, centre]);

  const leaf = props.nodes.find((node) => node.leaf);
  return (
    <div className="graph" data-testid="graph" data-node-count={nodes.length} ref={area}>
      <div className="graph-pane">
        <ReactFlow
          nodes={nodes}
          edges={layout.edges}
          nodeTypes={NODE_TYPES}
          onNodeClick={(event, node) => {
            const graphNode = byId.get(node.id);
            if (graphNode !== undefined) props.onSelect(graphNode, event.shiftKey);
            centre(node.position, MOVE_MS);
          }}
          onNodeDoubleClick={(_event, node) => {
            const graphNode = byId.get(node.id);
            if (graphNode?.kind === "run") props.onExpand(graphNode);
          }}
          nodesDraggable={false}
          nodesConnectable={false}
          onlyRenderVisibleElements
          minZoom={0.05}
          maxZoom={2}
          proOptions={{ hideAttribution: true }}
          ariaLabelConfig={{ "controls.fitView.ariaLabel": "Fit the whole tree" }}
        >
          <Background gap={24} />
          <Controls showInteractive={false} fitViewOptions={{ padding: 0.05, duration: MOVE_MS }}>
            {leaf !== undefined && (
              <ControlButton
                title="Centre the leaf"
                aria-label="Centre the leaf"
                data-testid="centre-leaf"
                onClick={() => {
                  const position = layout.positions.get(leaf.id);
                  if (position !== undefined) centre(position, MOVE_MS, true);
                }}
              >
                ↩
              </ControlButton>
            )}
            {large && mapHidden && (
              <ControlButton
                title="Show the minimap"
                aria-label="Show the minimap"
                data-testid="show-minimap"
                onClick={() => setMapHidden(false)}
              >
                ▦
              </ControlButton>
            )}
          </Controls>
        </ReactFlow>
      </div>
      {mapShown && (
        <div className="graph-map" data-testid="minimap">
          <div className="graph-map-head">
            <span>Map</span>
            <button
              type="button"
              className="link"
              title="Hide the minimap (the ▦ control shows it again)"
              data-testid="hide-minimap"
              onClick={() => setMapHidden(true)}
            >
              hide
            </button>
          </div>
          <MiniMap
            pannable
            zoomable
            bgColor="#222a36"
            maskColor="rgba(8, 10, 13, 0.72)"
            maskStrokeColor="#58a6ff"
            maskStrokeWidth={2}
            style={{ width: MAP_COLUMN - 12, height: Math.max(80, Math.min(420, size.height - 40)) }}
            nodeColor={(node) => MINIMAP_COLORS[(node.data as EntryNodeData).node.kind] ?? "#30363d"}
          />
        </div>
      )}
    </div>
  );
}
