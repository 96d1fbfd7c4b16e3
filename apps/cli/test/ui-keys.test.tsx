import { defineTool, Type } from "@arbor/agent-core";
import { script } from "@arbor/ai-providers/testing";
import { describe, expect, test } from "vitest";
import { bottomOf, createTestRuntime, KEYS, renderApp, tick, waitUntil } from "./ui-helpers.js";

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

  test("keys that arrive in one chunk act as typed one by one: editing keys, Ctrl-U then /quit", async () => {
    const runtime = await createTestRuntime();
    const app = renderApp(runtime);
    app.type("abc\u007f\u007fZ");
    await app.waitForFrame((frame) => bottomOf(frame).includes("› aZ "));
    await app.press(KEYS.ctrlC);
    app.type("abc\u0001Q");
    await app.waitForFrame((frame) => bottomOf(frame).includes("› Qabc"));
    await app.press(KEYS.ctrlC);
    app.type("draft\u0017two words\u0017\u0017x\u0002y");
    await app.waitForFrame((frame) => bottomOf(frame).includes("› yx"));
    await app.press(KEYS.ctrlC);
    app.type("some draft text\u0015/quit\r");
    await waitUntil(
      () => app.quit(),
      () => `the app to quit; last frame:\n${app.lastFrame()}`,
    );
    expect(runtime.provider.calls).toHaveLength(0);
  });

  test("a picker takes the keys of a chunk one by one: / then 'con' and Enter in one chunk", async () => {
    const runtime = await createTestRuntime();
    const app = renderApp(runtime);
    await app.press("/");
    await app.waitForFrame("type to filter");
    app.type("con\r");
    await app.waitForFrame((frame) => bottomOf(frame).includes("› /context "));
    expect(app.lastFrame()).not.toContain("type to filter");
  });

  test("a chunk of many keys renders once", async () => {
    const runtime = await createTestRuntime();
    const app = renderApp(runtime);
    await app.waitForFrame("Ask anything");
    const before = app.frames.length;
    app.type(`${"x\u007f".repeat(5_000)}done`);
    await app.waitForFrame((frame) => bottomOf(frame).includes("› done"));
    await tick();
    expect(app.frames.length - before).toBe(1);
  });

  test("a bracketed paste is text (line breaks and tabs kept), and a tab does not break the editor's box", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("Pasted.")] });
    const app = renderApp(runtime);
    app.type("\u001b[200~if (a) {\r\treturn b;\r}\u001b[201~");
    const frame = await app.waitForFrame((text) => bottomOf(text).includes("return b;"));
    const box = bottomOf(frame)
      .split("\n")
      .filter((line) => /^[│╭╰]/.test(line));
    expect(box.some((line) => line.includes("│       return b;"))).toBe(true);
    expect(box.join("\n")).not.toContain("\t");
    // Every line of the box is as wide as its border.
    expect(new Set(box.map((line) => line.length)).size).toBe(1);
    expect(runtime.provider.calls).toHaveLength(0);
    await app.press(KEYS.enter);
    await app.waitForFrame("Pasted.");
    await app.settle();
    expect(userTexts(runtime.provider.calls[0]!.context)).toEqual(["if (a) {\n\treturn b;\n}"]);
  });
});
