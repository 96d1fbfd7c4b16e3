import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { script } from "@arbor/ai-providers/testing";
import { describe, expect, test } from "vitest";
import {
  bottomOf,
  createTestRuntime,
  KEYS,
  type RenderedApp,
  renderApp,
  type TestRuntime,
} from "./ui-helpers.js";

async function exchange(app: RenderedApp, prompt: string, answer: string): Promise<void> {
  await app.submit(prompt);
  await app.waitForFrame(answer);
  await app.settle();
}

/** Ids of the current branch's message entries, in order. */
function messageIds(runtime: TestRuntime): string[] {
  return runtime.session.session
    .getBranch()
    .filter((entry) => entry.type === "message")
    .map((entry) => entry.id);
}

describe("slash commands", () => {
  test("/name names the session; the footer shows it", async () => {
    const runtime = await createTestRuntime();
    const app = renderApp(runtime);
    await app.submit("/name Release work");
    await app.waitForFrame('named the session "Release work"');
    expect(runtime.session.state.name).toBe("Release work");
    expect(bottomOf(app.lastFrame())).toContain('session "Release work"');
  });

  test("/compact [instructions] compacts with the scripted summary and shows what it freed", async () => {
    const long = (word: string) => `${word} `.repeat(300).trim();
    const runtime = await createTestRuntime({
      steps: [
        script.text(long("alpha")),
        script.text(long("beta")),
        script.text("## Goal\n- ship the parser\n\n## Progress\n- alpha and beta discussed"),
      ],
      settings: { compaction: { keepRecentTokens: 400 } },
    });
    const app = renderApp(runtime);
    await exchange(app, "first question", "alpha alpha");
    await exchange(app, "second question", "beta beta");
    await app.submit("/compact keep the parser decisions");
    const frame = await app.waitForFrame("◆ compacted:");
    await app.settle();

    const summarizerCall = runtime.provider.calls[2]!;
    expect(JSON.stringify(summarizerCall.context)).toContain("keep the parser decisions");
    const compaction = runtime.session.session.getBranch().find((entry) => entry.type === "compaction");
    expect(compaction).toBeDefined();
    expect(frame).toMatch(/◆ compacted: [\d.]+k? → [\d.]+k? tokens, freed [\d.]+k?/);
    expect(bottomOf(app.lastFrame())).toMatch(/last compaction freed [\d.]+k?/);
    runtime.provider.assertDone();

    // After the compaction, the footer's figure is /context's (the system prompt counted in both).
    const footer = /context .* \(~?([\d.]+k?); compacts at/.exec(bottomOf(app.lastFrame()))?.[1];
    await app.submit("/context");
    const report = await app.waitForFrame("compaction above");
    const total = /context {2}([\d.]+k?) of /.exec(report)?.[1];
    expect(footer).toBeDefined();
    expect(total).toBe(footer);
    expect(runtime.session.contextUsage().anchored).toBe(false);
    expect(Number.parseFloat(footer!)).toBeGreaterThan(runtime.session.contextUsage().tokens / 1000);
  });

  test("/compact while the agent runs is refused with a notice", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runtime = await createTestRuntime({ steps: [script.text("Done.")] });
    runtime.session.on("before_provider_request", async () => {
      await gate;
      return undefined;
    });
    const app = renderApp(runtime);
    try {
      await app.submit("work");
      await app.waitForFrame("Waiting for the model…");
      await app.submit("/compact");
      await app.waitForFrame("/compact waits for the agent");
    } finally {
      release();
    }
    await app.waitForFrame("Done.");
    await app.settle();
  });

  test("/tree moves to a picked entry without a summary", async () => {
    const runtime = await createTestRuntime({
      steps: [script.text("Answer one."), script.text("Answer two.")],
    });
    const app = renderApp(runtime);
    await exchange(app, "question one", "Answer one.");
    await exchange(app, "question two", "Answer two.");
    const [, answerOne, , answerTwo] = messageIds(runtime);
    expect(runtime.session.state.leafId).toBe(answerTwo);

    await app.submit("/tree");
    await app.waitForFrame("Session tree — choose the entry to continue from");
    expect(app.lastFrame()).toContain("question one");
    await app.press(KEYS.up);
    await app.press(KEYS.up);
    await app.press(KEYS.enter);
    const question = await app.waitForFrame("summarize the branch you leave?");
    // Enter takes the first answer: no summary, no model call.
    expect(question.slice(question.lastIndexOf("summarize the branch you leave?"))).toMatch(
      /› +No: move without a summary/,
    );
    await app.press(KEYS.enter);
    const frame = await app.waitForFrame(`moved to ${answerOne!.slice(0, 8)}`);
    await app.settle();

    expect(runtime.session.state.leafId).toBe(answerOne);
    expect(frame).not.toContain("◇ branch summary");
    expect(runtime.provider.calls).toHaveLength(2); // the two answers; no summary was asked for
    // The new branch's context no longer holds the second exchange.
    const texts = JSON.stringify(runtime.session.state.messages);
    expect(texts).not.toContain("question two");
  });

  test("/tree with a summary writes a branch summary of the branch left behind", async () => {
    const runtime = await createTestRuntime({
      steps: [
        script.text("Answer one."),
        script.text("Answer two."),
        script.text("Explored question two; answered it."),
      ],
    });
    const app = renderApp(runtime);
    await exchange(app, "question one", "Answer one.");
    await exchange(app, "question two", "Answer two.");
    const [, answerOne] = messageIds(runtime);

    await app.submit("/tree");
    await app.waitForFrame("Session tree");
    await app.press(KEYS.up);
    await app.press(KEYS.up);
    await app.press(KEYS.enter);
    await app.waitForFrame("summarize the branch you leave?");
    await app.press(KEYS.down);
    await app.press(KEYS.enter);
    const frame = await app.waitForFrame("◇ branch summary");
    await app.settle();

    expect(frame).toContain("Explored question two; answered it.");
    const leaf = runtime.session.session.getEntry(runtime.session.state.leafId!);
    expect(leaf?.type).toBe("branch_summary");
    expect(leaf?.parentId).toBe(answerOne);
    // Shown once, with the new branch (not also when it was written).
    expect(app.lastFrame().split("◇ branch summary").length).toBe(2);
  });

  test("/model opens a picker of the registry's models; choosing one switches the model", async () => {
    const runtime = await createTestRuntime();
    const app = renderApp(runtime);
    await app.submit("/model");
    await app.waitForFrame("Choose a model");
    expect(app.lastFrame()).toContain("scripted/scripted-model");
    expect(app.lastFrame()).toContain("other/big-model");
    app.type("big");
    await app.waitForFrame("filter: big");
    expect(app.lastFrame()).not.toContain("scripted/scripted-model  Scripted model");
    await app.press(KEYS.enter);
    await app.waitForFrame("model: other/big-model (400k context)");
    await app.settle();
    expect(runtime.session.state.model.id).toBe("big-model");
    expect(bottomOf(app.lastFrame())).toContain("other/big-model · thinking off");
    expect(bottomOf(app.lastFrame())).toContain("of 400k");
  });

  test("/model provider/id and /thinking level change the settings directly; bad values are notices", async () => {
    const runtime = await createTestRuntime();
    const app = renderApp(runtime);
    await app.submit("/model other/big-model");
    await app.waitForFrame("model: other/big-model");
    await app.submit("/thinking high");
    await app.waitForFrame("thinking: high");
    expect(runtime.session.state.thinkingLevel).toBe("high");
    expect(bottomOf(app.lastFrame())).toContain("thinking high");
    await app.submit("/thinking loud");
    await app.waitForFrame('unknown thinking level "loud"');
    await app.submit("/model nowhere/none");
    await app.waitForFrame("✗ /model:");
    expect(runtime.session.state.model.id).toBe("big-model");
  });

  test("/thinking without an argument opens a picker of the levels", async () => {
    const runtime = await createTestRuntime();
    const app = renderApp(runtime);
    await app.submit("/thinking");
    await app.waitForFrame("Thinking level");
    await app.press(KEYS.down);
    await app.press(KEYS.down);
    await app.press(KEYS.enter);
    await app.waitForFrame("thinking: low");
    expect(runtime.session.state.thinkingLevel).toBe("low");
  });

  test("/label labels the current entry; /session describes the session", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("Labelled answer.")] });
    const app = renderApp(runtime);
    await exchange(app, "question", "Labelled answer.");
    const leafId = runtime.session.state.leafId!;
    await app.submit("/label checkpoint");
    await app.waitForFrame("labelled");
    expect(runtime.session.session.getLabel(leafId)).toBe("checkpoint");
    await app.submit("/session");
    const frame = await app.waitForFrame(`session  ${runtime.session.id}`);
    expect(frame).toContain("file     memory");
    expect(frame).toMatch(/entries {2}\d+ \(2 messages in context/);
    expect(frame).toContain("model    scripted/scripted-model  thinking off");
  });

  test("/export writes the session in the format asked for", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("Exported answer.")] });
    const app = renderApp(runtime);
    await exchange(app, "export me", "Exported answer.");
    await app.submit("/export md notes.md");
    await app.waitForFrame("exported the session (md)");
    const path = join(runtime.cwd, "notes.md");
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(path, "utf8")).toContain("Exported answer.");
  });

  test("/new, /fork and /resume switch sessions", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("First session answer.")] });
    const app = renderApp(runtime);
    await exchange(app, "in the first session", "First session answer.");
    const first = runtime.session.id;

    await app.submit("/fork");
    await app.waitForFrame("Fork — choose the last entry");
    await app.press(KEYS.enter);
    await app.waitForFrame("forked at");
    await app.settle();
    const forked = runtime.session.id;
    expect(forked).not.toBe(first);
    expect(JSON.stringify(runtime.session.state.messages)).toContain("in the first session");
    expect(bottomOf(app.lastFrame())).toContain(`session ${forked.slice(0, 8)}`);

    await app.submit("/new");
    await app.waitForFrame("── new session");
    await app.settle();
    expect(runtime.session.state.messages).toHaveLength(0);
    expect([first, forked]).not.toContain(runtime.session.id);

    await app.submit("/resume");
    await app.waitForFrame("Resume a session");
    app.type(first.slice(0, 8));
    await app.waitForFrame(`filter: ${first.slice(0, 8)}`);
    await app.press(KEYS.enter);
    await app.waitForFrame(`resumed session ${first.slice(0, 8)}`);
    await app.settle();
    expect(runtime.session.id).toBe(first);
  });

  test("unknown commands get a notice with the nearest command; /help lists commands and keys", async () => {
    const runtime = await createTestRuntime();
    const app = renderApp(runtime);
    await app.submit("/compcat");
    await app.waitForFrame("unknown command /compcat. Did you mean /compact?");
    await app.submit("/skill:nothing");
    await app.waitForFrame('no skill named "nothing"');
    await app.submit("/help");
    const frame = await app.waitForFrame("Keys:");
    expect(frame).toContain("/compact [instructions]");
    expect(frame).toContain("/tree");
    expect(frame).toContain("Alt+Enter");
    // Nothing reached the model.
    expect(runtime.provider.calls).toHaveLength(0);
  });

  test("a path is a message, not a command; Tab completes a command", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("It is a directory.")] });
    const app = renderApp(runtime);
    await app.submit("/usr/bin is what?");
    await app.waitForFrame("It is a directory.");
    await app.settle();
    app.type("/comp");
    await app.press(KEYS.tab);
    await app.waitForFrame((frame) => bottomOf(frame).includes("› /compact"));
  });

  test("/quit leaves", async () => {
    const runtime = await createTestRuntime();
    const app = renderApp(runtime);
    await app.submit("/quit");
    await app.settle();
    expect(app.quit()).toBe(true);
  });

  test("/skill:name and /<template> pass through to the session, which expands them", async () => {
    const runtime = await createTestRuntime({
      files: {
        ".arbor/skills/review/SKILL.md":
          "---\nname: review\ndescription: Reviews code for bugs\n---\nCheck every error path.\n",
        ".arbor/prompts/fix.md": "Fix the bug in $1 and add a test.",
      },
      steps: [script.text("Reviewed."), script.text("Fixed.")],
    });
    const app = renderApp(runtime);
    await app.submit("/skill:review src/api.ts");
    await app.waitForFrame("Reviewed.");
    await app.settle();
    await app.submit("/fix parser.ts");
    await app.waitForFrame("Fixed.");
    const frame = await app.settle();

    const [skillCall, templateCall] = runtime.provider.calls;
    const skillPrompt = JSON.stringify(skillCall!.context.messages.at(-1));
    expect(skillPrompt).toContain('<skill name=\\"review\\"');
    expect(skillPrompt).toContain("Check every error path.");
    expect(JSON.stringify(templateCall!.context.messages.at(-1))).toContain(
      "Fix the bug in parser.ts and add a test.",
    );
    // The transcript shows what the user typed for the skill, and the template's expansion.
    expect(frame).toContain("› /skill:review src/api.ts");
    expect(frame).toContain("› Fix the bug in parser.ts and add a test.");
    await app.submit("/help");
    expect(await app.waitForFrame("Keys:")).toContain("/skill:<name> [args]  load a skill: review");
  });
});
