import { defineTool, Type } from "@arbor/agent-core";
import { script } from "@arbor/ai-providers/testing";
import { describe, expect, test } from "vitest";
import { bottomOf, createTestRuntime, KEYS, renderApp } from "./ui-helpers.js";

/** A tool that runs until the test lets it finish. */
function gatedTool() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tool = defineTool({
    name: "wait_for_build",
    description: "Waits for the build",
    parameters: Type.Object({}),
    async execute(_args, { signal }) {
      await Promise.race([gate, new Promise((resolve) => signal.addEventListener("abort", resolve))]);
      return { content: [{ type: "text", text: "build ok" }] };
    },
  });
  return { tool, release };
}

/** The user texts of a model call's context. */
function userTexts(context: { messages: { role: string; content: unknown }[] }): string[] {
  return context.messages
    .filter((message) => message.role === "user")
    .map((message) =>
      typeof message.content === "string"
        ? message.content
        : (message.content as { type: string; text?: string }[]).map((block) => block.text ?? "").join(""),
    );
}

describe("keys of the interactive mode", () => {
  test("Enter while the agent runs steers it: the message is queued, then injected before the next call", async () => {
    const { tool, release } = gatedTool();
    const runtime = await createTestRuntime({
      tools: [tool],
      steps: [script.toolCall("wait_for_build", {}), script.text("Build done; linting next.")],
    });
    const app = renderApp(runtime);
    try {
      await app.submit("build it");
      await app.waitForFrame("Running wait_for_build…");
      expect(bottomOf(app.lastFrame())).toContain("Enter: steer the agent");
      await app.submit("also run the linter");
      await app.waitForFrame("⏵ steer (queued): also run the linter");
    } finally {
      release();
    }
    await app.waitForFrame("Build done; linting next.");
    const frame = await app.settle();

    expect(userTexts(runtime.provider.calls[1]!.context)).toEqual(["build it", "also run the linter"]);
    expect(frame).toContain("› also run the linter  (steer)");
    expect(frame).not.toContain("⏵ steer (queued)");
    runtime.provider.assertDone();
  });

  test("Alt+Enter queues a follow-up, sent when the agent would stop", async () => {
    const { tool, release } = gatedTool();
    const runtime = await createTestRuntime({
      tools: [tool],
      steps: [script.toolCall("wait_for_build", {}), script.text("Built."), script.text("Linted.")],
    });
    const app = renderApp(runtime);
    try {
      await app.submit("build");
      await app.waitForFrame("Running wait_for_build…");
      app.type("then lint");
      await app.press(KEYS.altEnter);
      await app.waitForFrame("⏵ follow-up (queued): then lint");
    } finally {
      release();
    }
    await app.waitForFrame("Linted.");
    const frame = await app.settle();
    expect(runtime.provider.calls).toHaveLength(3);
    // The follow-up waited for the agent to finish its work (after "Built.").
    expect(userTexts(runtime.provider.calls[1]!.context)).toEqual(["build"]);
    expect(userTexts(runtime.provider.calls[2]!.context)).toEqual(["build", "then lint"]);
    expect(frame).toContain("› then lint  (follow-up)");
    expect(frame.indexOf("Built.")).toBeLessThan(frame.indexOf("› then lint"));
  });

  test("Esc aborts the run; the UI is ready for the next prompt", async () => {
    const runtime = await createTestRuntime({ steps: [script.delay(60_000, script.text("never shown"))] });
    const app = renderApp(runtime);
    await app.submit("slow question");
    await app.waitForFrame("Waiting for the model…");
    await app.press(KEYS.escape);
    await app.waitForFrame("! aborted");
    const frame = await app.settle();
    expect(runtime.provider.calls[0]!.aborted).toBe(true);
    expect(frame).not.toContain("never shown");
    expect(frame).not.toContain("Waiting for the model…");
    expect(bottomOf(frame)).toContain("Ask anything");

    runtime.provider.push(script.text("A fresh answer."));
    await app.submit("again");
    await app.waitForFrame("A fresh answer.");
  });

  test("Ctrl-C aborts a run in flight; twice while idle it quits", async () => {
    const runtime = await createTestRuntime({ steps: [script.delay(60_000, script.text("never shown"))] });
    const app = renderApp(runtime);
    await app.submit("slow");
    await app.waitForFrame("Waiting for the model…");
    await app.press(KEYS.ctrlC);
    await app.waitForFrame("! aborted");
    await app.settle();
    expect(app.quit()).toBe(false);

    // With text in the editor, Ctrl-C clears it.
    app.type("draft");
    await app.waitForFrame((frame) => bottomOf(frame).includes("› draft"));
    await app.press(KEYS.ctrlC);
    await app.waitForFrame((frame) => bottomOf(frame).includes("Ask anything"));
    // Once: a hint; another key disarms it; twice in a row: quit.
    await app.press(KEYS.ctrlC);
    await app.waitForFrame("Press Ctrl-C again to quit");
    await app.press("x");
    await app.waitForFrame((frame) => !frame.includes("Press Ctrl-C again to quit"));
    await app.press(KEYS.backspace);
    await app.press(KEYS.ctrlC);
    await app.press(KEYS.ctrlC);
    await app.settle();
    expect(app.quit()).toBe(true);
  });

  test("Esc in a picker closes it without aborting or quitting", async () => {
    const runtime = await createTestRuntime();
    const app = renderApp(runtime);
    await app.submit("/thinking");
    await app.waitForFrame("Thinking level");
    await app.press(KEYS.escape);
    await app.waitForFrame((frame) => bottomOf(frame).includes("Ask anything"));
    expect(app.lastFrame()).not.toContain("Thinking level");
    expect(runtime.session.state.thinkingLevel).toBe("off");
    expect(app.quit()).toBe(false);
  });

  test("the editor takes several lines (Ctrl-J, or \\ before Enter) and browses the history with ↑ and ↓", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("Two lines received.")] });
    const app = renderApp(runtime);
    app.type("line one");
    app.type("\n");
    app.type("line two\\");
    await app.press(KEYS.enter);
    app.type("line three");
    await app.waitForFrame((frame) => bottomOf(frame).includes("line three"));
    const editor = bottomOf(app.lastFrame());
    expect(editor).toContain("› line one");
    expect(editor).toContain("  line two");
    await app.press(KEYS.enter);
    await app.waitForFrame("Two lines received.");
    await app.settle();
    expect(userTexts(runtime.provider.calls[0]!.context)).toEqual(["line one\nline two\nline three"]);

    await app.submit("/name first");
    await app.submit("/name second");
    await app.waitForFrame('named the session "second"');
    await app.press(KEYS.up);
    await app.waitForFrame((frame) => bottomOf(frame).includes("› /name second"));
    await app.press(KEYS.up);
    await app.waitForFrame((frame) => bottomOf(frame).includes("› /name first"));
    await app.press(KEYS.down);
    await app.waitForFrame((frame) => bottomOf(frame).includes("› /name second"));
    await app.press(KEYS.down);
    await app.waitForFrame((frame) => bottomOf(frame).includes("Ask anything"));
  });
});
