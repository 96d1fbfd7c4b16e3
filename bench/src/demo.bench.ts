/**
 * The web demo on a big session: a 60,000-entry session with 60 compactions (JSONL store), opened in the
 * demo's page in Chromium (`/usr/bin/chromium` or `CHROMIUM_PATH`; skipped without it).
 *
 * - Time to first paint (`first-contentful-paint`) and to an interactive tree (the first graph node in
 *   the DOM, measured from navigation start), against the same page on an empty session in the same run,
 *   and against React Flow alone on the same nodes (`demo-floor.ts`: a page rendering only React Flow with
 *   the nodes precomputed by the demo's layout, at the demo's first view), the two pages loaded in turns.
 * - The `get_graph` command on the big session (the server's part of the tree): right after opening the
 *   session, the same call again, and after two entries were appended, against a floor — a round trip of
 *   `GET /api/info` plus `JSON.stringify` and `JSON.parse` of the same answer — in turns.
 * - Event latency: from a text delta's harness event on the server (the moment the hub's listener turns
 *   it into its record, synchronously, and writes it to the stream) to its arrival in the page's
 *   EventSource, per delta, against the round trip of `GET /api/info`.
 *
 * Both processes run on this machine and share its wall clock (`Date.now()`, 1 ms resolution).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { AssistantMessage } from "@arbor/ai-providers";
import { startDemo } from "@arbor/demo";
import { Session } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import type { GraphNode } from "@arbor/session-view";
import { chromium } from "playwright-core";
import type { Bench } from "./bench.js";
import { startFloorPage } from "./demo-floor.js";
import { ms } from "./measure.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ENTRIES = Number(process.env.DEMO_BENCH_ENTRIES ?? 60_000);
const COMPACTIONS = 60;
const ROUNDS = Number(process.env.ARBOR_BENCH_RUNS ?? 5);
const VIEWPORT = { width: 1500, height: 950 };

function assistant(text: string): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "bench",
    provider: "bench",
    model: "bench",
    usage: {
      input: 10,
      output: 10,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 20,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: Date.now(),
  };
}

/** Writes the big session into a JSONL store under `home`; returns its id. */
async function bigSession(home: string, cwd: string): Promise<string> {
  const store = new JsonlSessionStore({ home, durability: "flush" });
  const session = await Session.create(store, { cwd });
  const perSpan = Math.floor(ENTRIES / COMPACTIONS);
  for (let span = 0; span < COMPACTIONS; span++) {
    let kept = "";
    for (let index = 0; index < perSpan - 1; index += 2) {
      const user = session.appendMessage({
        role: "user",
        content: `question ${span}.${index}`,
        timestamp: 1,
      });
      session.appendMessage(assistant(`answer ${span}.${index}: ${"lorem ipsum ".repeat(6)}`));
      if (index === Math.max(0, perSpan - 12)) kept = user.id;
    }
    session.appendCompaction({
      summary: `## Goal\nspan ${span}`,
      firstKeptEntryId: kept,
      tokensBefore: 90_000,
    });
    await session.flush();
  }
  await session.flush();
  const id = session.id;
  await store.close?.();
  return id;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

const bench: Bench = {
  name: `web demo: ${ENTRIES.toLocaleString("en-US")}-entry session with ${COMPACTIONS} compactions`,
  async run() {
    if (!existsSync(CHROMIUM)) return [`skipped: no Chromium at ${CHROMIUM}`];
    const folder = mkdtempSync(join(tmpdir(), "arbor-bench-demo-"));
    const home = join(folder, "home");
    const lines: string[] = [];
    const written = performance.now();
    const bigId = await bigSession(home, folder);
    lines.push(`session written in ${ms(performance.now() - written)}`);
    const demo = await startDemo({
      port: 0,
      pace: 1,
      coalesceMs: 0,
      cwd: folder,
      home,
      env: { HOME: folder },
    });
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    try {
      const token = new URL(demo.url).searchParams.get("token")!;
      const post = async (body: Record<string, unknown>) => {
        const response = await fetch(new URL("/api/command", demo.url), {
          method: "POST",
          headers: { "content-type": "application/json", "x-arbor-token": token },
          body: JSON.stringify(body),
        });
        return (await response.json()) as { ok: boolean; data: { nodes?: unknown[] }; error?: string };
      };
      const emptyId = demo.runtime.session.id;

      /** Loads the page on the current session: first paint and the first graph node, from navigation start. */
      const load = async () => {
        const page = await browser.newPage({ viewport: VIEWPORT });
        await page.goto(demo.url);
        await page
          .locator("[data-testid=graph-node]")
          .first()
          .waitFor({ state: "attached", timeout: 120_000 });
        const interactive = await page.evaluate(() => performance.now());
        const paint = await page.evaluate(
          () => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
        );
        const nodes = Number(await page.getByTestId("graph").getAttribute("data-node-count"));
        await page.close();
        return { paint, interactive, nodes };
      };

      // Baseline: the page on a session of two entries.
      await post({ type: "prompt", text: "hello" });
      await demo.hub.idle();
      await load(); // warm-up (browser start, caches)
      const small = [await load(), await load(), await load()];
      const opened = await post({ type: "open_session", sessionId: bigId });
      if (!opened.ok) throw new Error(opened.error);
      const graph = await post({ type: "get_graph" });
      const floorPage = await startFloorPage(graph.data.nodes as GraphNode[], VIEWPORT);
      /** The floor page: React Flow alone on the same nodes, to its first node in the DOM. */
      const loadFloor = async () => {
        const page = await browser.newPage({ viewport: VIEWPORT });
        await page.goto(floorPage.url);
        await page.locator(".react-flow__node").first().waitFor({ state: "attached", timeout: 120_000 });
        const interactive = await page.evaluate(() => performance.now());
        await page.close();
        return interactive;
      };
      const big: Awaited<ReturnType<typeof load>>[] = [];
      const floor: number[] = [];
      try {
        await load();
        await loadFloor(); // warm-up of both pages
        // In turns, the order swapped each round.
        for (let round = 0; round < ROUNDS; round++) {
          if (round % 2 === 0) {
            floor.push(await loadFloor());
            big.push(await load());
          } else {
            big.push(await load());
            floor.push(await loadFloor());
          }
        }
      } finally {
        await floorPage.close();
      }
      const smallPaint = median(small.map((run) => run.paint));
      const bigPaint = median(big.map((run) => run.paint));
      const smallTree = median(small.map((run) => run.interactive));
      const bigTree = median(big.map((run) => run.interactive));
      const floorTree = median(floor);
      lines.push(
        `first paint:        ${ms(bigPaint)} (empty session ${ms(smallPaint)}, ×${(bigPaint / smallPaint).toFixed(2)})`,
        `interactive tree:   ${ms(bigTree)} (empty session ${ms(smallTree)}, ×${(bigTree / smallTree).toFixed(2)}); ${big[0]!.nodes} graph nodes for ${ENTRIES.toLocaleString("en-US")} entries`,
        `  against React Flow alone, same nodes: ${ms(floorTree)}, ×${(bigTree / floorTree).toFixed(2)} (${ROUNDS} rounds in turns; demo ${big.map((run) => run.interactive.toFixed(0)).join(", ")} ms; React Flow ${floor.map((value) => value.toFixed(0)).join(", ")} ms)`,
      );

      // The server's part: get_graph right after opening the session, again, and after an append, against
      // the floor (a round trip of GET /api/info plus JSON of the same answer), in turns.
      const times = {
        cold: [] as number[],
        again: [] as number[],
        appended: [] as number[],
        floor: [] as number[],
      };
      const timedPost = async (body: Record<string, unknown>) => {
        const start = performance.now();
        const answer = await post(body);
        if (!answer.ok) throw new Error(answer.error);
        return performance.now() - start;
      };
      for (let round = 0; round < ROUNDS; round++) {
        await post({ type: "open_session", sessionId: emptyId });
        await post({ type: "open_session", sessionId: bigId });
        times.cold.push(await timedPost({ type: "get_graph" }));
        times.again.push(await timedPost({ type: "get_graph" }));
        const session = demo.runtime.session.session;
        session.appendMessage({ role: "user", content: `more ${round}`, timestamp: 1 });
        session.appendMessage(assistant(`answer ${round}`));
        times.appended.push(await timedPost({ type: "get_graph" }));
        const start = performance.now();
        await fetch(new URL("/api/info", demo.url), { headers: { "x-arbor-token": token } });
        JSON.parse(JSON.stringify(graph));
        times.floor.push(performance.now() - start);
      }
      const graphFloor = median(times.floor);
      const graphRow = (name: string, values: number[]) =>
        `  ${name.padEnd(34)} ${ms(median(values)).padStart(9)}  ×${(median(values) / graphFloor).toFixed(2)} (${values.map((value) => value.toFixed(0)).join(", ")} ms)`;
      lines.push(
        `get_graph (floor: GET /api/info round trip + JSON of the answer, ${ms(graphFloor)}; ${ROUNDS} rounds in turns):`,
        graphRow("first call after open_session", times.cold),
        graphRow("the same call again", times.again),
        graphRow("after two entries appended", times.appended),
      );

      // Event latency: provider delta (server) → EventSource message (page).
      await post({ type: "open_session", sessionId: emptyId });
      const page = await browser.newPage();
      await page.goto(demo.url);
      await page.getByTestId("context-meter").waitFor();
      await page.evaluate((pageToken) => {
        const arrivals: { at: number; chars: number }[] = [];
        let chars = 0;
        (globalThis as unknown as { arrivals: typeof arrivals }).arrivals = arrivals;
        const source = new EventSource(`api/events?token=${pageToken}`);
        source.onmessage = (message) => {
          const event = JSON.parse(message.data) as { type: string; delta?: string };
          if (event.type === "text_delta") {
            chars += event.delta?.length ?? 0;
            arrivals.push({ at: Date.now(), chars });
          }
        };
        return new Promise<void>((resolve) => {
          source.onopen = () => resolve();
        });
      }, token);
      const sent: { at: number; chars: number }[] = [];
      let sentChars = 0;
      // The hub turns each harness event into its record synchronously, in the harness's listener.
      const stop = demo.hub.log.subscribe((record) => {
        const event = JSON.parse(record.data) as { type: string; delta?: string };
        if (event.type === "text_delta") {
          sentChars += event.delta?.length ?? 0;
          sent.push({ at: Date.now(), chars: sentChars });
        }
      });
      await post({
        type: "prompt",
        text: `Please repeat: ${"a fairly long sentence to stream. ".repeat(12)}`,
      });
      await demo.hub.idle();
      await new Promise((resolve) => setTimeout(resolve, 200));
      stop();
      const arrivals = await page.evaluate(
        () => (globalThis as unknown as { arrivals: { at: number; chars: number }[] }).arrivals,
      );
      // The page's clock against this process's (they may differ): the best of a few bracketed readings.
      let offset = 0;
      let best = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 10; run++) {
        const before = Date.now();
        const pageNow = await page.evaluate(() => Date.now());
        const after = Date.now();
        if (after - before < best) {
          best = after - before;
          offset = pageNow - (before + after) / 2;
        }
      }
      // Each delta's latency: until the page has received the text up to its end (merged deltas count once).
      const latencies: number[] = [];
      let next = 0;
      for (const delta of sent) {
        while (next < arrivals.length && arrivals[next]!.chars < delta.chars) next++;
        if (next < arrivals.length) latencies.push(arrivals[next]!.at - offset - delta.at);
      }
      const pings: number[] = [];
      for (let run = 0; run < 20; run++) {
        const start = performance.now();
        await fetch(new URL("/api/info", demo.url), { headers: { "x-arbor-token": token } });
        pings.push(performance.now() - start);
      }
      lines.push(
        `event latency:      median ${ms(median(latencies))}, p95 ${ms(percentile(latencies, 0.95))} over ${latencies.length} deltas (GET /api/info round trip ${ms(median(pings))}; page clock offset ${ms(offset)} ± ${ms(best / 2)})`,
      );
      await page.close();
    } finally {
      await browser.close();
      await demo.close();
      rmSync(folder, { recursive: true, force: true });
    }
    return lines;
  },
};

export default bench;
