/**
 * `/tree` as users expect it: choosing a prompt puts it back in the editor from its parent (no two user
 * messages in a row), retried failures are hidden until `h` shows them, and the picker fills the terminal.
 */
import { script } from "@arbor/ai-providers/testing";
import { withoutRetriedFailures } from "@arbor/session-view";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { pickerSize } from "../src/ui/components/select-list.js";
import { runInteractive } from "../src/ui/run-interactive.js";
import {
  bottomOf,
  createTestRuntime,
  FakeTerminal,
  KEYS,
  type RenderedApp,
  renderApp,
  type TestRuntime,
  waitUntil,
} from "./ui-helpers.js";

// ink decides when it loads whether it runs in CI (then it renders only the last frame, and the live picker
// below could not be seen): it loads with CI hidden, as `arbor` itself loads the interactive UI.
const hiddenCi = vi.hoisted(() => {
  const value = process.env.CI;
  delete process.env.CI;
  return value;
});
beforeAll(() => {
  if (hiddenCi !== undefined) process.env.CI = hiddenCi;
});

async function exchange(app: RenderedApp, prompt: string, answer: string): Promise<void> {
  await app.submit(prompt);
  await app.waitForFrame(answer);
  await app.settle();
}

/** The roles of the current branch's messages, in order. */
function roles(runtime: TestRuntime): string[] {
  return runtime.session.state.messages.map((message) => message.role);
}

describe("/tree", () => {
  test("choosing a prompt moves to its parent and puts the prompt back in the editor to resend", async () => {
    const runtime = await createTestRuntime({
      steps: [script.text("Answer one."), script.text("Answer two."), script.text("Answer two, again.")],
    });
    const app = renderApp(runtime);
    await exchange(app, "first prompt", "Answer one.");
    await exchange(app, "second prompt", "Answer two.");
    const secondPrompt = runtime.session.session
      .getBranch()
      .find((entry) => entry.type === "message" && JSON.stringify(entry.message).includes("second prompt"))!;

    await app.submit("/tree");
    await app.waitForFrame("Session tree");
    await app.press(KEYS.up); // from the leaf (Answer two.) to the second prompt
    await app.waitForFrame((frame) => /›.*second prompt/.test(frame));
    await app.press(KEYS.enter);
    await app.waitForFrame("summarize the branch you leave?");
    await app.press(KEYS.enter); // the default: no summary
    await app.waitForFrame("the prompt is back in the editor");
    await app.settle();
    expect(runtime.session.state.leafId).toBe(secondPrompt.parentId);
    expect(bottomOf(app.lastFrame())).toContain("second prompt");

    app.type(", shorter");
    await app.waitForFrame("second prompt, shorter");
    await app.press(KEYS.enter);
    await app.waitForFrame("Answer two, again.");
    await app.settle();
    expect(roles(runtime)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(JSON.stringify(runtime.session.state.messages[2])).toContain("second prompt, shorter");
  });

  test("a retried failure is hidden; h shows it and hides it again", async () => {
    const runtime = await createTestRuntime({
      steps: [script.error("529 overloaded_error: Overloaded"), script.text("Back again.")],
      sleep: async () => {},
    });
    const app = renderApp(runtime);
    await exchange(app, "hi", "Back again.");
    const tree = runtime.session.session.getTree();
    const pruned = withoutRetriedFailures(tree);
    expect(pruned.hiddenFailures).toBe(1);
    expect(pruned.hiddenEntries).toBe(2);

    const picker = (frame: string) => frame.slice(frame.indexOf("Session tree"));
    await app.submit("/tree");
    const hidden = picker(await app.waitForFrame("Session tree"));
    expect(hidden).not.toContain("Overloaded");
    expect(hidden).toContain("h show 1 retried failure");
    await app.press("h");
    const shown = picker(await app.waitForFrame("h hide retried failures"));
    expect(shown).toContain("Overloaded");
    await app.press("h");
    await app.waitForFrame("h show 1 retried failure");
    await app.press(KEYS.escape);
  });

  test("the picker uses the terminal's height and width", async () => {
    expect(pickerSize(48, 160)).toEqual({ rows: 39, width: 153 });
    expect(pickerSize(undefined, undefined)).toEqual({ rows: 12, width: 92 });

    const long = "a long prompt that says a great deal about what it wants ".repeat(3).trim();
    const steps = Array.from({ length: 20 }, (_, index) => script.text(`Answer ${index}.`));
    const runtime = await createTestRuntime({ steps });
    for (let index = 0; index < 20; index++) await runtime.session.prompt(`${long} #${index}`);
    const terminal = new FakeTerminal();
    Object.assign(terminal.stdout, { rows: 48, columns: 160 });
    const exit = runInteractive(runtime, { stdin: terminal.stdin, stdout: terminal.stdout });
    await waitUntil(
      () => terminal.output.includes("Ask anything"),
      () => "the editor",
      15_000, // the first frame of 40 entries: slow on a loaded machine
    );
    terminal.write("/tree");
    terminal.write(KEYS.enter);
    await waitUntil(
      () => terminal.output.includes("Session tree"),
      () => `the tree picker; output:\n${terminal.output.slice(-2000)}`,
      15_000,
    );
    const drawn = terminal.output.slice(terminal.output.lastIndexOf("Session tree"));
    // 39 rows fit (12 did before) and a row is as wide as the terminal (75 columns were before).
    const entries = runtime.session.session.entryCount;
    expect(drawn).toContain(`↑ ${entries - 39} more`);
    expect(drawn).not.toMatch(/↓ \d+ more/);
    const row = drawn.split("\n").find((line) => line.includes("user: a long prompt"))!;
    expect(row).toContain("a great deal about what it wants a long prompt that says a great deal");
    const before = terminal.output.length;
    terminal.write(KEYS.escape);
    await waitUntil(
      () => terminal.output.slice(before).includes("Ask anything"),
      () => "the editor again",
      15_000,
    );
    terminal.write("/quit");
    terminal.write(KEYS.enter);
    expect(await exit).toBe(0);
  });
});
