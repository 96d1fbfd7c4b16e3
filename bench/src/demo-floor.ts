/**
 * The demo bench's floor page: React Flow alone (`demo-floor-page.tsx`, bundled here with esbuild, minified, in
 * production mode) on the nodes of a graph laid out by the demo page's own layout (`apps/demo/web/src/layout.ts`
 * and `viewport.ts`, bundled for Node) and its first view, served by a small HTTP server of its own.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { GraphNode } from "@arbor/session-view";
import { build } from "esbuild";

const WEB = join(import.meta.dirname, "../../apps/demo/web/src");

/** The functions of the demo page's layout this bench uses. */
interface DemoLayout {
  layoutGraph(nodes: readonly GraphNode[]): {
    positions: Map<string, { x: number; y: number }>;
    edges: { id: string; source: string; target: string }[];
  };
  centredViewport(
    point: { x: number; y: number },
    pane: { width: number; height: number },
    zoom: number,
    heightFraction?: number,
  ): { x: number; y: number; zoom: number };
  boxCentre(position: { x: number; y: number }): { x: number; y: number };
  LEAF_HEIGHT_FRACTION: number;
  NODE_WIDTH: number;
  NODE_HEIGHT: number;
}

/** A running floor page. */
export interface FloorPage {
  url: string;
  close(): Promise<void>;
}

/** Builds the floor page for `nodes` in a pane of `pane` px and serves it. */
export async function startFloorPage(
  nodes: readonly GraphNode[],
  pane: { width: number; height: number },
): Promise<FloorPage> {
  const folder = mkdtempSync(join(tmpdir(), "arbor-bench-floor-"));
  const layoutFile = join(folder, "layout.mjs");
  await build({
    stdin: {
      contents: `export * from "./layout.ts"; export * from "./viewport.ts";`,
      resolveDir: WEB,
      loader: "ts",
    },
    outfile: layoutFile,
    bundle: true,
    format: "esm",
    platform: "node",
    logLevel: "error",
  });
  const demo = (await import(pathToFileURL(layoutFile).href)) as DemoLayout;
  const layout = demo.layoutGraph(nodes);
  const leaf = nodes.find((node) => node.leaf) ?? nodes[0];
  const leafAt = (leaf && layout.positions.get(leaf.id)) ?? { x: 0, y: 0 };
  const graph = {
    nodes: nodes.map((node) => ({
      id: node.id,
      position: layout.positions.get(node.id) ?? { x: 0, y: 0 },
      data: { label: node.preview },
      width: demo.NODE_WIDTH,
      height: demo.NODE_HEIGHT,
      draggable: false,
    })),
    edges: layout.edges,
    viewport: demo.centredViewport(demo.boxCentre(leafAt), pane, 1, demo.LEAF_HEIGHT_FRACTION),
  };
  const bundled = await build({
    entryPoints: [join(import.meta.dirname, "demo-floor-page.tsx")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    minify: true,
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "error",
  });
  const script = bundled.outputFiles[0]!.contents;
  const require = createRequire(import.meta.url);
  const css = readFileSync(join(dirname(require.resolve("@xyflow/react/package.json")), "dist/style.css"));
  const files: Record<string, { type: string; body: string | Uint8Array }> = {
    "/": {
      type: "text/html",
      body: `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><link rel="stylesheet" href="style.css"><style>body{margin:0}</style></head><body><div id="root"></div><script type="module" src="floor.js"></script></body></html>`,
    },
    "/floor.js": { type: "text/javascript", body: script },
    "/style.css": { type: "text/css", body: css },
    "/nodes.json": { type: "application/json", body: JSON.stringify(graph) },
  };
  const server = createServer((request, response) => {
    const file = files[new URL(request.url ?? "/", "http://floor").pathname];
    if (file === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": file.type }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
