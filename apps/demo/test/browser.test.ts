/// <reference lib="dom" />
/**
 * The page in a real browser: playwright-core driving Debian's Chromium (`/usr/bin/chromium`, or
 * `CHROMIUM_PATH`) against a demo server started here on 127.0.0.1. Screenshots go to `test-output/`.
 * Without Chromium the suite is skipped on a developer's machine and fails under CI.
 */
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { defaultWebRoot } from "../src/index.js";
import { testDemo } from "./helpers.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const ARTIFACTS = fileURLToPath(new URL("../test-output/", import.meta.url));
const PI_FILE = fileURLToPath(
  new URL("../../../fixtures/pi-sessions/08-branch-with-branch-summary.anthropic.jsonl", import.meta.url),
);
/** Where the page puts the leaf: at 70 % of the graph's height (`LEAF_HEIGHT_FRACTION` of web/src/viewport.ts). */
const LEAF_HEIGHT = 0.7;
/** The launch flags of the toolchain notes (playwright-core adds --headless and a temporary profile). */
const LAUNCH_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

if (!HAVE_CHROMIUM && process.env.CI === "true") {
  throw new Error(`The browser tests need Chromium at ${CHROMIUM} (.ci/run installs the chromium package).`);
}

let context: Awaited<ReturnType<typeof testDemo>>;
let browser: Browser;
let page: Page;

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}${name}.png` });
}

function graphNodes(kind?: string) {
  return page.locator(
    kind === undefined ? "[data-testid=graph-node]" : `[data-testid=graph-node][data-kind=${kind}]`,
  );
}

async function nodeCount(): Promise<number> {
  return Number(await page.getByTestId("graph").getAttribute("data-node-count"));
}

async function meterTokens(): Promise<number> {
  return Number(await page.getByTestId("context-meter").getAttribute("data-tokens"));
}

async function idle(): Promise<void> {
  await context.demo.hub.idle();
  await expect.poll(() => page.getByTestId("send").isEnabled()).toBe(true);
}

async function send(text: string): Promise<void> {
  await page.getByTestId("prompt").fill(text);
  await page.getByTestId("send").click();
}

/** A box on the screen (Playwright's bounding box). */
type Box = { x: number; y: number; width: number; height: number };

/** The part of `a` inside `b` (zero-sized when they do not meet). */
function intersection(a: Box, b: Box): Box {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const width = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - x);
  const height = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - y);
  return { x, y, width, height };
}

/** The graph's zoom, read from React Flow's viewport transform (`translate(…) scale(z)`). */
async function zoomOf(on: Page): Promise<number> {
  const transform = await on.locator(".react-flow__viewport").evaluate((element) => element.style.transform);
  return Number(/scale\(([\d.]+)\)/.exec(transform)?.[1] ?? Number.NaN);
}

/**
 * How far (px) the middle of an entry's node box is from the middle of the graph's pane (or, with
 * `heightFraction`, from that height of the pane at the middle of its width: where the leaf goes).
 */
async function offCentre(on: Page, entryId: string, heightFraction = 0.5): Promise<number> {
  const pane = (await on.locator(".react-flow").boundingBox())!;
  const box = await on.locator(`[data-testid=graph-node][data-entry-id="${entryId}"]`).boundingBox();
  if (box === null) return Number.POSITIVE_INFINITY;
  return Math.hypot(
    box.x + box.width / 2 - (pane.x + pane.width / 2),
    box.y + box.height / 2 - (pane.y + pane.height * heightFraction),
  );
}

/** Selects an entry through its chat label (which centers and selects its node). */
async function selectInChat(index: number, kind = "user"): Promise<string> {
  const entry = page.locator(`[data-testid=chat-entry][data-kind=${kind}]`).nth(index);
  await entry.locator(".chat-label").click();
  const panel = page.getByTestId("node-panel");
  await expect.poll(() => panel.getAttribute("data-entry-id")).not.toBeNull();
  return (await panel.getAttribute("data-entry-id"))!;
}

describe.skipIf(!HAVE_CHROMIUM)("the demo page in Chromium", () => {
  beforeAll(async () => {
    if (!existsSync(`${defaultWebRoot()}/index.html`)) {
      throw new Error("The page is not built: run `pnpm --filter @arbor/demo build` first.");
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    context = await testDemo({ webRoot: defaultWebRoot(), pace: 12, compaction: { keepRecentTokens: 20 } });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
    page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    await page.goto(context.demo.url);
    await page.getByTestId("context-meter").waitFor({ state: "visible" });
    if (problems.length > 0) throw new Error(`The page reported: ${problems.join("; ")}`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await context?.stop();
  });

  test("a prompt streams its answer into the chat and the tree gains its nodes", async () => {
    // The prompt and the answer (a new session's model and thinking level join it with its first prompt).
    const turns = async () => (await graphNodes("user").count()) + (await graphNodes("assistant").count());
    const before = await turns();
    await send("Tell me about Arbor's session trees, please, in a few words.");
    await page.getByTestId("live-message").waitFor({ state: "visible", timeout: 10_000 });
    await idle();
    const answer = page.locator("[data-testid=chat-entry][data-kind=assistant]").last();
    await expect.poll(() => answer.textContent()).toContain("session trees");
    await expect.poll(turns).toBe(before + 2);
    expect(await nodeCount()).toBeGreaterThanOrEqual(before + 2);
    await shot("01-streamed-answer");
  });

  test("an edit shows as a red/green diff in the chat and in the node panel", async () => {
    await send("write math.js: // math\nconst a = 1;\nexport { a };");
    await idle();
    await send("edit math.js: const a = 1; => const a = 2;");
    await idle();
    const diff = page
      .locator("[data-testid=chat-entry][data-kind=toolResult] [data-testid=diff-view]")
      .last();
    await diff.waitFor({ state: "visible" });
    expect(await diff.locator(".diff-head").textContent()).toBe("math.js +1 −1");
    const rows = diff.locator("tr");
    expect(await rows.evaluateAll((cells) => cells.map((row) => row.getAttribute("data-kind")))).toEqual([
      "context",
      "remove",
      "add",
      "context",
    ]);
    expect(await diff.locator("tr[data-kind=remove]").textContent()).toBe("2-const a = 1;");
    expect(await diff.locator("tr[data-kind=add]").textContent()).toBe("2+const a = 2;");
    // Removed lines red, added lines green.
    const background = (kind: string) =>
      diff.locator(`tr[data-kind=${kind}]`).evaluate((row) => getComputedStyle(row).backgroundColor);
    expect(await background("remove")).toBe("rgba(248, 81, 73, 0.18)");
    expect(await background("add")).toBe("rgba(63, 185, 80, 0.18)");
    // The new file shows as added lines; the tree's node and the node panel show the edit too.
    const created = page
      .locator("[data-testid=chat-entry][data-kind=toolResult] [data-testid=diff-view]")
      .nth(-2);
    expect(await created.locator(".diff-head").textContent()).toBe("math.js new file, +3");
    await page
      .locator("[data-testid=chat-entry][data-kind=toolResult]")
      .last()
      .locator(".chat-label")
      .click();
    const panel = page.getByTestId("node-panel");
    await panel.getByTestId("diff-view").waitFor({ state: "visible" });
    expect(await panel.getByTestId("diff-view").locator("tr[data-kind=add]").textContent()).toBe(
      "2+const a = 2;",
    );
    await shot("07-diff");
  });

  test("compact now: a compaction node, the entries it covers, and the meter drops", async () => {
    // Long answers (the scripted model's `words <n>`), so that the summary is smaller than what it replaces.
    for (const text of ["words 300", "words 300", "A question about compaction."]) {
      await send(text);
      await idle();
    }
    await expect.poll(meterTokens).toBeGreaterThan(0);
    const before = await meterTokens();
    await page.getByTestId("compact").click();
    await idle();
    // The click's request may reach the server after idle() looked (nothing was running yet): the
    // compaction then ends within the poll, which waits as long as a busy CI machine needs.
    await expect.poll(() => graphNodes("compaction").count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(meterTokens).toBeLessThan(before);
    await expect.poll(() => page.locator(".entry-node.compacted").count()).toBeGreaterThan(0);
    await page.getByTestId("context-meter").getByRole("button", { name: "compaction summary" }).click();
    const details = page.getByTestId("summary-details");
    await details.waitFor({ state: "visible" });
    expect(await page.getByTestId("summary-tokens").textContent()).toContain("tokens before");
    await expect.poll(() => page.getByTestId("covered-entries").locator("li").count()).toBeGreaterThan(0);
    // A covered entry links to its node.
    const first = page.getByTestId("covered-entries").locator("button").first();
    const coveredId = await first.getAttribute("data-entry-id");
    await first.click();
    await expect.poll(() => page.getByTestId("node-panel").getAttribute("data-entry-id")).toBe(coveredId);
    await shot("02-compaction");
  });

  test("navigate to an earlier node with a summary: a branch summary node", async () => {
    await selectInChat(0);
    // No summary unless asked (it is a model call).
    expect(await page.getByTestId("navigate-summarize").isChecked()).toBe(false);
    await page.getByTestId("navigate-summarize").check();
    await page.getByTestId("navigate").click();
    await idle();
    await expect.poll(() => graphNodes("branchSummary").count()).toBe(1);
    await shot("03-branch-summary");
  });

  test("edit a user message and re-run: a new branch with the edited text", async () => {
    await send("Something to edit later.");
    await idle();
    const users = page.locator("[data-testid=chat-entry][data-kind=user]");
    const index = (await users.count()) - 1;
    await selectInChat(index);
    await page.getByTestId("edit-text").fill("The edited question, run again.");
    await page.getByTestId("edit-rerun").click();
    await idle();
    await expect.poll(() => users.last().textContent()).toContain("The edited question, run again.");
    const session = context.demo.runtime.session.session;
    const parent = session.getEntry(session.getBranch().at(-2)!.parentId!);
    expect(session.children(parent?.id ?? null).length).toBe(2);
    await shot("04-edit-rerun");
  });

  test("a slash command typed in the prompt runs there: /compact compacts, /compcat is a notice", async () => {
    const compactions = await graphNodes("compaction").count();
    await send("words 300");
    await idle();
    await send("/compact");
    await expect
      .poll(() => graphNodes("compaction").count(), { timeout: 30_000 })
      .toBeGreaterThan(compactions);
    await idle();
    await send("/compcat");
    const notice = page.locator('[data-testid=extension-notices] li[data-source="/compcat"]');
    await expect.poll(() => notice.textContent()).toContain("Did you mean /compact");
    // Neither text reached the model: the session holds no user message with either.
    const session = context.demo.runtime.session.session;
    const userTexts = session
      .getBranch()
      .flatMap((entry) => (entry.type === "message" && entry.message.role === "user" ? [entry.message] : []))
      .map((message) => JSON.stringify(message.content));
    expect(userTexts.some((text) => text.includes("words 300"))).toBe(true);
    expect(userTexts.filter((text) => text.includes("/compact") || text.includes("/compcat"))).toEqual([]);
    await shot("03b-slash-compact");
  });

  test("fork into a new session from a node", async () => {
    const source = context.demo.runtime.session.id;
    await selectInChat(0, "assistant");
    await page.getByTestId("fork").click();
    await expect.poll(() => context.demo.runtime.session.id).not.toBe(source);
    const forkId = context.demo.runtime.session.id;
    await expect
      .poll(() => page.locator(`[data-testid=session-item][data-session-id="${forkId}"]`).count())
      .toBe(1);
    await expect.poll(() => page.locator("header").textContent()).toContain(`session ${forkId.slice(0, 8)}`);
    await shot("05-fork");
  });

  test("open a pi agent file: its tree, with its branch summary", async () => {
    await page.getByTestId("import-file").setInputFiles(PI_FILE);
    await expect.poll(() => context.demo.runtime.session.id).toBe("01a22c6c-f517-76b8-8742-bd9adee7e3cc");
    await expect.poll(() => page.locator("header").textContent()).toContain("session 01a22c6c");
    // Its branch summary, opened from the chat: the node, the summary and the entries it stands for.
    await expect
      .poll(() => page.locator("[data-testid=chat-entry][data-kind=branchSummary]").count())
      .toBe(1);
    const summaryId = await selectInChat(0, "branchSummary");
    expect(summaryId).toBe("5b4acce3");
    await page.getByTestId("summary-details").waitFor({ state: "visible" });
    await expect.poll(() => graphNodes("branchSummary").count()).toBe(1);
    expect(await page.getByTestId("summary-details").textContent()).toContain("Covers");
    // pi's <read-files> block reads as a line of words.
    expect(await page.getByTestId("summary-details").textContent()).toContain("Files read: notes.txt");
    expect(await page.getByTestId("summary-details").textContent()).not.toContain("<read-files>");
    await shot("06-pi-file");
  });

  test("the first view of a real tree: readable boxes around the leaf, a minimap beside them", async () => {
    // A fresh page on the pi file imported above (its tree is taller than the pane).
    const fresh = await browser.newPage({ viewport: { width: 1500, height: 950 } });
    try {
      await fresh.goto(context.demo.url);
      const leaf = fresh.locator("[data-testid=graph-node] .leaf-tag");
      await leaf.waitFor({ state: "visible" });
      const leafId = (await fresh
        .locator("[data-testid=graph-node]")
        .filter({ has: fresh.locator(".leaf-tag") })
        .getAttribute("data-entry-id"))!;
      // Readable: zoom 1 (not fit-to-view's tiny boxes), the boxes at their size, the leaf in the middle.
      await expect.poll(() => zoomOf(fresh)).toBeGreaterThanOrEqual(0.75);
      const node = (await fresh
        .locator(`[data-testid=graph-node][data-entry-id="${leafId}"]`)
        .boundingBox())!;
      expect(node.height).toBeGreaterThanOrEqual(24);
      await expect.poll(() => offCentre(fresh, leafId, LEAF_HEIGHT)).toBeLessThan(4);
      // The minimap: drawn (a box per node), beside the pane, over no node box.
      const minimap = fresh.getByTestId("minimap");
      await minimap.waitFor({ state: "visible" });
      const nodes = Number(await fresh.getByTestId("graph").getAttribute("data-node-count"));
      await expect.poll(() => minimap.locator(".react-flow__minimap-node").count()).toBe(nodes);
      const map = (await minimap.boundingBox())!;
      const pane = (await fresh.locator(".react-flow").boundingBox())!;
      for (const box of await fresh
        .locator("[data-testid=graph-node]")
        .evaluateAll((elements) =>
          elements.map((element) => element.getBoundingClientRect().toJSON() as Box),
        )) {
        const shown = intersection(box, pane);
        expect(intersection(shown, map).width * intersection(shown, map).height).toBe(0);
      }
      await fresh.screenshot({ path: `${ARTIFACTS}00-first-view.png` });

      // A clicked node is centred.
      const inside = await fresh.locator("[data-testid=graph-node]:not(.leaf)").evaluateAll(
        (elements, frame) =>
          elements
            .filter((element) => {
              const box = element.getBoundingClientRect();
              return box.top >= frame.y && box.bottom <= frame.y + frame.height && box.left >= frame.x;
            })
            .map((element) => element.getAttribute("data-entry-id")),
        pane,
      );
      const otherId = inside[0]!;
      const other = fresh.locator(`[data-testid=graph-node][data-entry-id="${otherId}"]`);
      expect(await offCentre(fresh, otherId)).toBeGreaterThan(20);
      await other.click();
      await expect.poll(() => offCentre(fresh, otherId)).toBeLessThan(4);
      expect(await fresh.getByTestId("node-panel").getAttribute("data-entry-id")).toBe(otherId);

      // Fit all shows the whole tree (smaller), the leaf control goes back to a readable zoom.
      await fresh.locator(".react-flow__controls-fitview").click();
      await expect.poll(() => zoomOf(fresh)).toBeLessThan(0.75);
      await fresh.getByTestId("centre-leaf").click();
      await expect.poll(() => zoomOf(fresh)).toBeGreaterThanOrEqual(0.75);
      await expect.poll(() => offCentre(fresh, leafId, LEAF_HEIGHT)).toBeLessThan(4);

      // The minimap can be hidden, and shown again.
      await fresh.getByTestId("hide-minimap").click();
      await expect.poll(() => fresh.getByTestId("minimap").count()).toBe(0);
      await fresh.getByTestId("show-minimap").click();
      await minimap.waitFor({ state: "visible" });
    } finally {
      await fresh.close();
    }
  });

  test("a new session is in the list at once, without a reload, and stays there once saved", async () => {
    const before = context.demo.runtime.session.id;
    await page.getByTestId("new-session").click();
    await expect.poll(() => context.demo.runtime.session.id).not.toBe(before);
    const created = context.demo.runtime.session.id;
    const item = page.locator(`[data-testid=session-item][data-session-id="${created}"]`);
    await expect.poll(() => item.count()).toBe(1);
    expect(await item.textContent()).toContain("New session");
    // Its first prompt stores it: the list shows it as stored (its first message), still without a reload.
    await send("The first words of a new session.");
    await idle();
    await expect.poll(() => item.textContent()).toContain("The first words of a new session.");
    expect(await item.count()).toBe(1);
    await shot("07-new-session-listed");
  });

  test("a session is deleted from the list after asking (no: kept), and the store no longer has it", async () => {
    const current = context.demo.runtime.session.id;
    const { sessions } = await context.demo.runtime.store.listSessions({ limit: 50 });
    const victim = sessions.find((session) => session.id !== current);
    expect(victim).toBeDefined();
    const item = page.locator(`[data-testid=session-item][data-session-id="${victim!.id}"]`);
    await expect.poll(() => item.count()).toBe(1);
    const remove = item.locator("xpath=..").getByTestId("delete-session");
    // The current session has no delete button.
    const currentItem = page.locator(`[data-testid=session-item][data-session-id="${current}"]`);
    expect(await currentItem.locator("xpath=..").getByTestId("delete-session").count()).toBe(0);

    page.once("dialog", (dialog) => void dialog.dismiss());
    await remove.click();
    await expect.poll(() => item.count()).toBe(1);
    await context.demo.runtime.store.readSession(victim!.id);

    page.once("dialog", (dialog) => {
      expect(dialog.message()).toContain("cannot be undone");
      void dialog.accept();
    });
    await remove.click();
    await expect.poll(() => item.count()).toBe(0);
    await expect(context.demo.runtime.store.readSession(victim!.id)).rejects.toMatchObject({
      code: "session_not_found",
    });
  });
});
