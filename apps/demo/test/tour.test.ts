/**
 * `pnpm demo --tour`: the tour runs live through the demo's session — its tree has the compaction, the
 * label and the branch summary the script promises — and the page shows it (its first view is the
 * README's screenshot). The browser part is skipped without Chromium on a developer's machine, never under CI.
 */
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { TOUR_LABEL } from "@arbor/app-runtime/demo";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { defaultWebRoot } from "../src/index.js";
import { command, type Json, testDemo } from "./helpers.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARTIFACTS = fileURLToPath(new URL("../test-output/", import.meta.url));

let context: Awaited<ReturnType<typeof testDemo>>;

beforeAll(async () => {
  context = await testDemo({ tour: true, webRoot: defaultWebRoot() });
  await context.demo.tour;
  await context.demo.hub.idle();
}, 60_000);

afterAll(async () => {
  await context?.stop();
});

describe("pnpm demo --tour", () => {
  test("the tour runs live: tool calls, a compaction, a label and a branch summary in the tree", async () => {
    const { base, token } = context;
    const graph = (await command(base, token, { type: "get_graph" })).answer.data;
    const kinds = new Set(graph.nodes.map((node: Json) => node.kind));
    expect(kinds).toContain("compaction");
    expect(kinds).toContain("branchSummary");
    expect(kinds).toContain("toolResult");
    expect(graph.nodes.some((node: Json) => node.label === TOUR_LABEL)).toBe(true);
    expect(graph.nodes.some((node: Json) => node.compactedBy !== undefined)).toBe(true);
    const events = context.demo.hub.log.since(0) ?? [];
    expect(events.some((event) => event.data.includes('"type":"tour_end"'))).toBe(true);
    expect(events.some((event) => event.data.includes('"type":"error"'))).toBe(false);
  });

  test.skipIf(!existsSync(CHROMIUM) && process.env.CI !== "true")(
    "the page shows the tour's tree",
    async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
        await page.goto(context.demo.url);
        // The first view (the README's screenshot): the leaf, readable, its path above it, the minimap beside.
        await page.locator("[data-testid=graph-node] .leaf-tag").waitFor({ state: "visible" });
        await page.getByTestId("minimap").waitFor({ state: "visible" });
        await page.waitForTimeout(400);
        await page.screenshot({ path: `${ARTIFACTS}tour-first-view.png` });
        const summary = page.locator("[data-testid=chat-entry][data-kind=branchSummary]");
        await summary.waitFor({ state: "visible" });
        await summary.locator(".chat-label").click();
        await page.locator("[data-testid=graph-node][data-kind=branchSummary]").waitFor({ state: "visible" });
        await page.getByTestId("summary-details").waitFor({ state: "visible" });
        await page.screenshot({ path: `${ARTIFACTS}tour.png` });
      } finally {
        await browser.close();
      }
    },
  );
});
