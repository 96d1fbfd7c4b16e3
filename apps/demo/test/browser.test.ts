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
    const users = await graphNodes("user").count();
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
    // Neither text reached the model: one user turn was added (the `words 300`).
    expect(await graphNodes("user").count()).toBe(users + 1);
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
});
