/**
 * `--permissions ask` on the demo page in Chromium (as browser.test.ts: playwright-core and Debian's
 * Chromium): the offline model's `write` waits on a dialog showing the path; Deny writes nothing, Allow once
 * writes, and the chat shows each decision. Screenshot: `test-output/08-permission.png`.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { defaultWebRoot } from "../src/index.js";
import { testDemo } from "./helpers.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const ARTIFACTS = fileURLToPath(new URL("../test-output/", import.meta.url));
const LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"];

let context: Awaited<ReturnType<typeof testDemo>>;
let browser: Browser;
let page: Page;

async function send(text: string): Promise<void> {
  await page.getByTestId("prompt").fill(text);
  await page.getByTestId("send").click();
}

async function idle(): Promise<void> {
  await context.demo.hub.idle();
  await expect.poll(() => page.getByTestId("send").isEnabled()).toBe(true);
}

describe.skipIf(!HAVE_CHROMIUM)("the demo page asks for permission", () => {
  beforeAll(async () => {
    if (!existsSync(`${defaultWebRoot()}/index.html`)) {
      throw new Error("The page is not built: run `pnpm --filter @arbor/demo build` first.");
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    context = await testDemo({ webRoot: defaultWebRoot(), pace: 5, permissions: "ask" });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
    page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
    await page.goto(context.demo.url);
    await page.getByTestId("context-meter").waitFor({ state: "visible" });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await context?.stop();
  });

  test("Deny writes nothing; Allow once writes; the chat shows both decisions", async () => {
    const cwd = context.demo.runtime.cwd;
    await send("write denied.txt: not wanted");
    const dialog = page.getByTestId("permission-dialog");
    await dialog.waitFor({ state: "visible", timeout: 15_000 });
    expect(await page.getByTestId("permission-summary").textContent()).toBe("denied.txt");
    expect(await dialog.getAttribute("data-tool")).toBe("write");
    await page.screenshot({ path: `${ARTIFACTS}08-permission.png` });
    // A page opened while the question waits shows it too (get_state's permissionRequests).
    await page.reload();
    await page.getByTestId("context-meter").waitFor({ state: "visible" });
    await dialog.waitFor({ state: "visible", timeout: 15_000 });
    await page.getByTestId("permission-deny").click();
    await dialog.waitFor({ state: "hidden" });
    await idle();
    expect(existsSync(join(cwd, "denied.txt"))).toBe(false);
    const chat = page.locator("[data-testid=chat-entry]");
    await expect
      .poll(() => chat.allTextContents(), { timeout: 10_000 })
      .toEqual(expect.arrayContaining([expect.stringContaining('write "denied.txt" denied by the user')]));

    await send("write allowed.txt: wanted");
    await dialog.waitFor({ state: "visible", timeout: 15_000 });
    await page.getByTestId("permission-once").click();
    await dialog.waitFor({ state: "hidden" });
    await idle();
    expect(readFileSync(join(cwd, "allowed.txt"), "utf8")).toContain("wanted");
    await expect
      .poll(() => chat.allTextContents(), { timeout: 10_000 })
      .toEqual(
        expect.arrayContaining([expect.stringContaining('write "allowed.txt" allowed once by the user')]),
      );
  });
});
