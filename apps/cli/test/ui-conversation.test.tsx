import { defineTool, Type } from "@arbor/agent-core";
import { script } from "@arbor/ai-providers/testing";
import { addToTotals, EMPTY_TOTALS, formatCost, formatTokens } from "@arbor/session-view";
import { describe, expect, test } from "vitest";
import { bottomOf, createTestRuntime, renderApp, tick } from "./ui-helpers.js";

const ANSWER = [
  "# Release notes",
  "",
  "The build is **green** and the `parser` is *faster*; see [the docs](https://example.com/docs).",
  "",
  "- first point",
  "- second point",
  "",
  "```ts",
  "const answer = 42;",
  "```",
  "",
  "Done &amp; dusted.",
].join("\n");

describe("a conversation in the interactive mode", () => {
  test("a prompt shows, the answer streams in progressively and ends rendered as Markdown", async () => {
    // 4-character chunks 2 ms apart: the reply streams over more than a frame (16 ms), so frames show it grow.
    const runtime = await createTestRuntime({ steps: [script.text(ANSWER)], chunkDelayMs: 2 });
    const app = renderApp(runtime);
    await app.waitForFrame("Ask anything");
    await app.submit("What changed?");
    await app.waitForFrame("Done & dusted.");
    const frame = await app.settle();

    expect(frame).toContain("› What changed?");
    // Markdown is rendered, not shown as source.
    expect(frame).toContain("Release notes");
    expect(frame).not.toContain("# Release notes");
    // Without colours, inline code keeps its backticks (with colours it is coloured instead).
    expect(frame).toContain(
      "The build is green and the `parser` is faster; see the docs (https://example.com/docs).",
    );
    expect(frame).toContain("• first point");
    expect(frame).toContain("• second point");
    expect(frame).toContain("╭ ts");
    expect(frame).toContain("│ const answer = 42;");
    expect(frame).not.toContain("```");
    // The answer appeared progressively: frames held the start of the reply but not its end, and grew.
    const partial = app.frames.filter(
      (candidate) => candidate.includes("Release notes") && !candidate.includes("Done & dusted"),
    );
    expect(partial.length).toBeGreaterThan(1);
    expect(partial.some((candidate) => candidate.includes("• first point"))).toBe(true);
    expect(partial.some((candidate) => !candidate.includes("• first point"))).toBe(true);
    // The finished reply is printed once (it moved from the live part to the transcript).
    expect(frame.split("Done & dusted.").length).toBe(2);
    expect(frame).not.toContain("Waiting for the model");
    runtime.provider.assertDone();
  });

  test("a spinner shows while waiting for the first token", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runtime = await createTestRuntime({ steps: [script.text("Here.")] });
    const app = renderApp(runtime);
    // Hold the model call until the test has seen the spinner.
    runtime.session.on("before_provider_request", async () => {
      await gate;
      return undefined;
    });
    try {
      await app.submit("hello");
      await app.waitForFrame("Waiting for the model…");
      expect(app.lastFrame()).toContain("(Esc to interrupt)");
    } finally {
      release();
    }
    await app.waitForFrame("Here.");
    const frame = await app.settle();
    expect(frame).toContain("› hello");
    expect(frame).not.toContain("Waiting for the model…");
  });

  test("tool calls show with their arguments and the first lines of their results; errors are marked", async () => {
    const notes = defineTool({
      name: "read_notes",
      description: "Read the notes",
      parameters: Type.Object({ path: Type.String(), limit: Type.Integer() }),
      async execute({ path }) {
        const lines = Array.from({ length: 10 }, (_, index) => `${path} line ${index + 1}`);
        return { content: [{ type: "text", text: lines.join("\n") }] };
      },
    });
    const broken = defineTool({
      name: "broken",
      description: "Always fails",
      parameters: Type.Object({}),
      async execute() {
        throw new Error("disk on fire");
      },
    });
    const runtime = await createTestRuntime({
      tools: [notes, broken],
      steps: [
        script.toolCalls([
          { name: "read_notes", arguments: { path: "todo.txt", limit: 10 } },
          { name: "broken", arguments: {} },
        ]),
        script.text("I read the notes."),
      ],
    });
    const app = renderApp(runtime);
    await app.submit("read my notes");
    await app.waitForFrame("I read the notes.");
    const frame = await app.settle();

    expect(frame).toContain("✓ read_notes path: todo.txt, limit: 10");
    expect(frame).toContain("⎿ todo.txt line 1");
    expect(frame).toContain("todo.txt line 6");
    expect(frame).not.toContain("todo.txt line 7");
    expect(frame).toContain("… 4 more lines");
    expect(frame).toContain("✗ broken");
    expect(frame).toContain("disk on fire");
    // Each call shows once.
    expect(frame.split("✓ read_notes").length).toBe(2);
  });

  test("thinking shows collapsed and dimmed, not in full", async () => {
    const thoughts = "First I consider the question.\nThen I look at the files.\nFinally I answer.";
    const runtime = await createTestRuntime({ steps: [script.thinking(thoughts, "The answer is 4.")] });
    const app = renderApp(runtime);
    await app.submit("2+2?");
    await app.waitForFrame("The answer is 4.");
    const frame = await app.settle();
    expect(frame).toContain("✻ thought (14 words): First I consider the question.");
    expect(frame).not.toContain("Then I look at the files.");
  });

  test("the footer shows the model, thinking level, tokens, cost, context usage and session", async () => {
    const runtime = await createTestRuntime({
      steps: [script.text("Short answer."), script.text("Another.")],
    });
    const app = renderApp(runtime);
    await app.submit("first");
    await app.waitForFrame("Short answer.");
    await app.settle();
    await app.submit("second");
    await app.waitForFrame("Another.");
    await app.settle();

    let totals = EMPTY_TOTALS;
    for (const message of runtime.session.state.messages) {
      if (message.role === "assistant") totals = addToTotals(totals, message.usage);
    }
    expect(totals.input).toBeGreaterThan(0);
    const usage = runtime.session.contextUsage();
    const footer = bottomOf(
      await app.waitForFrame(`↑${formatTokens(totals.input)} ↓${formatTokens(totals.output)}`),
    );
    expect(footer).toContain("scripted/scripted-model · thinking off");
    expect(footer).toContain(formatCost(totals.cost));
    expect(footer).toContain(`session ${runtime.session.id.slice(0, 8)}`);
    expect(footer).toContain(`${usage.percent.toFixed(0)}% of 128k`);
    expect(footer).toContain(`compacts at ${formatTokens(usage.compactionThreshold)}`);
    expect(footer).toContain("┃");
  });

  test("a session with history replays its last messages when the UI attaches", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("Earlier answer.")] });
    await runtime.session.prompt("an earlier question");
    const app = renderApp(runtime);
    const frame = await app.waitForFrame("Earlier answer.");
    expect(frame).toContain("› an earlier question");
    // The history feeds the editor's ↑.
    await app.press("\u001b[A");
    expect(
      bottomOf(await app.waitForFrame((candidate) => bottomOf(candidate).includes("an earlier question"))),
    ).toContain("› an earlier question");
  });

  test("an initial prompt is sent at start", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("Started.")] });
    const app = renderApp(runtime, { initialPrompt: "begin" });
    const frame = await app.waitForFrame("Started.");
    expect(frame).toContain("› begin");
  });

  test("a failing model call shows its error as a notice, and the UI keeps running", async () => {
    const runtime = await createTestRuntime({
      steps: [script.error("401 invalid x-api-key"), script.text("Recovered.")],
      settings: { retry: { enabled: false } },
    });
    const app = renderApp(runtime);
    await app.submit("hi");
    await app.waitForFrame("✗ error: 401 invalid x-api-key");
    await app.settle();
    await app.submit("again");
    await app.waitForFrame("Recovered.");
  });

  test("a transient failure shows a retry notice, and the retried answer follows", async () => {
    const waits: number[] = [];
    const runtime = await createTestRuntime({
      steps: [script.error("529 overloaded_error: Overloaded"), script.text("Back again.")],
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const app = renderApp(runtime);
    await app.submit("hi");
    await app.waitForFrame("Back again.");
    const frame = await app.settle();
    expect(waits).toHaveLength(1);
    expect(frame).toContain(
      `! 529 overloaded_error: Overloaded — retrying in ${Math.round(waits[0]! / 1000)}s (attempt 1 of 3)`,
    );
    expect(frame.indexOf("retrying in")).toBeLessThan(frame.indexOf("Back again."));
    // The failure shows once, in the retry notice.
    expect(frame.split("529 overloaded_error").length).toBe(2);
  });

  test("a long transcript is printed across <Static> generations, every item exactly once", async () => {
    const runtime = await createTestRuntime();
    const app = renderApp(runtime);
    await app.waitForFrame("Ask anything");
    for (let index = 0; index < 150; index++) {
      app.store.notice("info", `note number ${index}.`);
      // Some appends reach React together, some one by one.
      if (index % 7 === 0) await tick();
    }
    const frame = await app.waitForFrame("note number 149.");
    expect(app.store.transcript.generation).toBeGreaterThan(1);
    for (let index = 0; index < 150; index++) {
      expect(frame.split(`note number ${index}.`).length, `note ${index}`).toBe(2);
    }
    expect(frame.indexOf("note number 0.")).toBeLessThan(frame.indexOf("note number 149."));
  });

  test("a running tool shows with a spinner and its latest output line", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const build = defineTool({
      name: "build",
      description: "Builds",
      parameters: Type.Object({ target: Type.String() }),
      async execute(_args, { onUpdate }) {
        onUpdate({ content: [{ type: "text", text: "compiling a.ts\ncompiling b.ts\n" }] });
        await gate;
        return { content: [{ type: "text", text: "built 2 files" }] };
      },
    });
    const runtime = await createTestRuntime({
      tools: [build],
      steps: [script.toolCall("build", { target: "all" }), script.text("Built.")],
    });
    const app = renderApp(runtime);
    try {
      await app.submit("build");
      const running = await app.waitForFrame("⎿ compiling b.ts");
      expect(running).toContain("… build target: all");
      expect(running).toContain("Running build…");
    } finally {
      release();
    }
    await app.waitForFrame("Built.");
    const frame = await app.settle();
    expect(frame).toContain("✓ build target: all");
    expect(frame).toContain("⎿ built 2 files");
    expect(frame).not.toContain("compiling b.ts");
  });
});
