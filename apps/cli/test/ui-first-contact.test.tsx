/**
 * What a new user reaches for in the interactive mode: confirmations after /fork and /resume, the resume
 * picker's first prompts, an "aborted" notice for Esc mid-stream, /cost, /hotkeys, /clear, and /export's
 * formats.
 */
import { defineTool, Type } from "@arbor/agent-core";
import { script } from "@arbor/ai-providers/testing";
import { formatTokens, sessionContextUsage } from "@arbor/session-view";
import { describe, expect, test } from "vitest";
import { bottomOf, createTestRuntime, KEYS, type RenderedApp, renderApp } from "./ui-helpers.js";

async function exchange(app: RenderedApp, prompt: string, answer: string): Promise<void> {
  await app.submit(prompt);
  await app.waitForFrame(answer);
  await app.settle();
}

describe("first contact: the interactive mode", () => {
  test("/fork and /resume say what they did; the resume picker shows each session's first prompt", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("First answer.")] });
    const app = renderApp(runtime);
    await exchange(app, "plan the parser rewrite", "First answer.");
    const first = runtime.session.id;
    await app.submit("/fork");
    await app.waitForFrame("Fork — choose the last entry");
    await app.press(KEYS.enter);
    await app.waitForFrame("✓ forked");
    await app.settle();
    const forked = runtime.session.id;
    expect(app.lastFrame()).toContain(`✓ forked session ${first.slice(0, 8)} into ${forked.slice(0, 8)}`);

    await app.submit("/clear");
    await app.waitForFrame("✓ new session");
    await app.settle();
    expect([first, forked]).not.toContain(runtime.session.id);

    await app.submit("/resume");
    const picker = await app.waitForFrame("Resume a session");
    expect(picker).toContain("plan the parser rewrite");
    expect(picker).not.toContain("(unnamed)");
    // The fork and the session it was copied from are told apart.
    const rows = picker.slice(picker.lastIndexOf("Resume a session")).split("\n");
    const forkRow = rows.find((row) => row.includes(forked.slice(0, 8)));
    const firstRow = rows.find((row) => row.includes(first.slice(0, 8)) && !row.includes(forked.slice(0, 8)));
    expect(forkRow).toContain(`(fork of ${first.slice(0, 8)}) plan the parser rewrite`);
    expect(firstRow).toContain("plan the parser rewrite");
    expect(firstRow).not.toContain("fork of");
    app.type(first.slice(0, 8));
    await app.waitForFrame(`filter: ${first.slice(0, 8)}`);
    await app.press(KEYS.enter);
    await app.waitForFrame(`✓ resumed session ${first.slice(0, 8)}`);
    expect(runtime.session.id).toBe(first);
  });

  test("the resume picker leaves out sessions without a message", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("An answer.")] });
    const app = renderApp(runtime);
    await exchange(app, "a prompt worth resuming", "An answer.");
    const kept = runtime.session.id;
    await app.submit("/new");
    await app.waitForFrame("✓ new session");
    await app.settle();
    const empty = runtime.session.id;
    await app.submit("/new");
    await app.waitForFrame(`✓ new session`);
    await app.settle();
    expect(runtime.session.id).not.toBe(empty);
    await app.submit("/resume");
    const frame = await app.waitForFrame("Resume a session");
    const picker = frame.slice(frame.lastIndexOf("Resume a session"));
    expect(picker).toContain("a prompt worth resuming");
    expect(picker).not.toContain(empty.slice(0, 8));
    expect(kept).not.toBe(empty);
  });

  test("Esc while a reply streams stops it with an aborted notice", async () => {
    const runtime = await createTestRuntime({
      steps: [script.text(`streaming ${"word ".repeat(4000)}`)],
      chunkDelayMs: 5,
    });
    const app = renderApp(runtime);
    await app.submit("talk a lot");
    await app.waitForFrame("streaming word");
    await app.press(KEYS.escape);
    const frame = await app.settle();
    expect(frame).toContain("! aborted");
  });

  test("Esc while a tool runs stops the run with an aborted notice", async () => {
    const slow = defineTool({
      name: "slow",
      description: "Waits until stopped",
      parameters: Type.Object({}),
      execute: (_args, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => reject(new Error("stopped")));
        }),
    });
    const runtime = await createTestRuntime({
      tools: [slow],
      steps: [script.toolCall("slow", {}), script.text("never asked")],
    });
    const app = renderApp(runtime);
    await app.submit("wait for it");
    await app.waitForFrame("slow");
    await app.press(KEYS.escape);
    const frame = await app.settle();
    expect(frame).toMatch(/! aborted/);
    expect(frame).not.toContain("never asked");
  });

  test("/cost totals the session's calls per model; /hotkeys lists the keys", async () => {
    const runtime = await createTestRuntime({
      steps: [script.text("Priced answer.", { usage: { input: 1200, output: 345 } })],
    });
    const app = renderApp(runtime);
    await exchange(app, "what does it cost", "Priced answer.");
    await app.submit("/cost");
    const frame = await app.waitForFrame("cost     ");
    expect(frame).toMatch(/cost {5}↑1\.2k ↓345 .*\(1 call\)/);
    expect(frame).toContain("scripted/scripted-model");
    await app.submit("/hotkeys");
    const keys = await app.waitForFrame("Alt+Enter");
    expect(keys).toContain("!cmd / !!cmd");
  });

  test("/context shows what fills the window by category, with the threshold", async () => {
    const lookup = defineTool({
      name: "lookup",
      description: "Looks a word up in the project's glossary and answers with its definition",
      parameters: Type.Object({ word: Type.String({ description: "the word to look up" }) }),
      execute: async () => ({ content: [{ type: "text", text: "a definition" }] }),
    });
    const runtime = await createTestRuntime({
      steps: [script.toolCall("lookup", { word: "arbor" }), script.text("A short answer.")],
      tools: [lookup],
    });
    const app = renderApp(runtime);
    await exchange(app, "a short question", "A short answer.");
    await app.submit("/context");
    const frame = await app.waitForFrame("compaction above");
    const usage = runtime.session.contextUsage();
    expect(frame).toContain(`of ${formatTokens(usage.contextWindow)} tokens`);
    expect(frame).toContain(`compaction above ${formatTokens(usage.compactionThreshold)}`);
    expect(frame).toMatch(/system prompt +\d/);
    expect(frame).toMatch(/tools \(\d+\) +\d/);
    expect(frame).toMatch(/messages \(3\) +\d/);
    expect(frame).toMatch(/tool results \(1\) +\d/);
  });

  test("/tools lists the tools with the active ones marked, and chooses the ones the model may call", async () => {
    const tool = (name: string) =>
      defineTool({
        name,
        description: `the ${name} tool`,
        parameters: Type.Object({}),
        execute: async () => ({ content: [{ type: "text", text: name }] }),
      });
    const runtime = await createTestRuntime({
      tools: [tool("lookup"), tool("mcp__docs__search"), tool("mcp__docs__fetch")],
    });
    const app = renderApp(runtime);
    await app.submit("/tools");
    const listed = await app.waitForFrame("active):");
    expect(listed).toMatch(/\* lookup/);
    expect(listed).toMatch(/\* mcp__docs__search/);
    await app.submit("/tools lookup");
    await app.waitForFrame("active tools: lookup");
    expect(runtime.session.state.activeToolNames).toEqual(["lookup"]);
    await app.submit("/tools mcp__docs");
    await app.waitForFrame("active tools: mcp__docs__search, mcp__docs__fetch");
    expect(runtime.session.state.activeToolNames).toEqual(["mcp__docs__search", "mcp__docs__fetch"]);
    await app.submit("/tools nosuch");
    const refused = await app.waitForFrame("unknown tool nosuch");
    expect(refused).toContain("/tools: unknown tool nosuch; the tools are lookup, mcp__docs__search");
    expect(runtime.session.state.activeToolNames).toEqual(["mcp__docs__search", "mcp__docs__fetch"]);
  });

  test("/export with an unknown format lists the formats and writes nothing", async () => {
    const runtime = await createTestRuntime();
    const app = renderApp(runtime);
    await app.submit("/export pdf");
    const frame = await app.waitForFrame("unknown export format");
    expect(frame).toContain('/export: unknown export format "pdf": choose html, md, jsonl');
  });

  test("the footer's context figure is the compacted context's right after /compact", async () => {
    const long = (word: string) => `${word} `.repeat(600).trim();
    const runtime = await createTestRuntime({
      steps: [
        script.text(long("alpha"), { usage: { input: 20, output: 1500 } }),
        script.text(long("beta"), { usage: { input: 1600, output: 1500 } }),
        script.text("## Goal\n- ship the parser"),
      ],
      settings: { compaction: { keepRecentTokens: 400 } },
    });
    const app = renderApp(runtime);
    await exchange(app, "first question", "alpha alpha");
    await exchange(app, "second question", "beta beta");
    const before = runtime.session.contextUsage().tokens;
    await app.submit("/compact");
    await app.waitForFrame("◆ compacted:");
    const frame = await app.settle();
    // The figure every front end shows (the footer, /context): the messages' estimate and the fixed part.
    const after = sessionContextUsage(runtime.session).tokens;
    expect(after).toBeLessThan(before);
    expect(after).toBeGreaterThan(runtime.session.contextUsage().tokens);
    expect(bottomOf(frame)).toMatch(new RegExp(`\\(~?${formatTokens(after)}; compacts at`));
  });

  test("typing / in an empty editor opens the command menu; a choice goes into the editor", async () => {
    const runtime = await createTestRuntime();
    const app = renderApp(runtime);
    await app.press("/");
    const menu = await app.waitForFrame("Commands");
    expect(menu).toContain("/compact [instructions]");
    expect(menu).toContain("/tree");
    app.type("hotk");
    await app.waitForFrame("filter: hotk");
    await app.press(KEYS.enter);
    await app.waitForFrame((frame) => bottomOf(frame).includes("/hotkeys"));
    await app.press(KEYS.enter);
    await app.waitForFrame("Alt+Enter");
    // Esc leaves the menu with the / in the editor, to type a path or a command by hand.
    await app.press("/");
    await app.waitForFrame("Commands");
    await app.press(KEYS.escape);
    await app.waitForFrame((frame) => !frame.includes("Commands") && bottomOf(frame).includes("/"));
  });

  test("a large paste collapses to a marker in the editor and is sent whole", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("Got the log.")] });
    const app = renderApp(runtime);
    const log = Array.from({ length: 42 }, (_, index) => `log line ${index + 1}`).join("\n");
    app.type("look: ");
    await app.waitForFrame("look:");
    app.type(log);
    const editor = bottomOf(await app.waitForFrame("[paste #1 +42 lines]"));
    expect(editor).not.toContain("log line 2");
    await app.press(KEYS.enter);
    await app.waitForFrame("Got the log.");
    await app.settle();
    const sent = JSON.stringify(runtime.provider.calls[0]!.context.messages.at(-1));
    expect(sent).toContain("look: log line 1\\nlog line 2");
    expect(sent).toContain("log line 42");
    expect(sent).not.toContain("[paste #1");
  });
});
