/**
 * `!command` / `!!command` and `@path` mentions in the editor: a shell command's output is shown and
 * recorded as a `bashExecution` message (sent to the model with `!`, kept from it with `!!`); a mention
 * completes on Tab and attaches the file (an image as an image block) when the prompt is sent.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { script } from "@arbor/ai-providers/testing";
import { describe, expect, test } from "vitest";
import { createTestRuntime, KEYS, renderApp, waitUntil } from "./ui-helpers.js";

const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

describe("the editor's ! and @", () => {
  test("!command shows its output and adds it to the context; !!command keeps it from the model", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("Seen it.")] });
    const app = renderApp(runtime);
    await app.submit("!echo hello-from-the-shell");
    await app.waitForFrame("hello-from-the-shell");
    await app.settle();
    await app.submit("!!echo keep-this-private");
    await app.waitForFrame("not added to the context (!!)");
    await app.settle();
    expect(app.lastFrame()).toContain("keep-this-private");

    const recorded = runtime.session.session
      .getBranch()
      .flatMap((entry) => (entry.type === "message" ? [entry.message as { role: string }] : []));
    expect(recorded.map((message) => message.role)).toEqual(["bashExecution", "bashExecution"]);
    expect(recorded[0]).toMatchObject({ command: "echo hello-from-the-shell", exitCode: 0 });
    expect((recorded[0] as unknown as { output: string }).output).toBe("hello-from-the-shell");
    expect(recorded[1]).toMatchObject({ excludeFromContext: true });

    await app.submit("what did I run?");
    await app.waitForFrame("Seen it.");
    await app.settle();
    const sent = JSON.stringify(runtime.provider.calls[0]!.context.messages);
    expect(sent).toContain("The user ran `echo hello-from-the-shell`");
    expect(sent).not.toContain("keep-this-private");
  });

  test("@path completes on Tab and attaches the file's text; an image goes as an image block", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("Read them.")] });
    writeFileSync(join(runtime.cwd, "release-notes.txt"), "the parser is 2x faster\n");
    writeFileSync(join(runtime.cwd, "pixel.png"), Buffer.from(PNG_1X1, "base64"));
    const app = renderApp(runtime);
    await waitUntil(
      () => app.controller().complete("@rel") !== undefined,
      () => "the project's file list",
    );
    app.type("summarize @rel");
    await app.waitForFrame("summarize @rel");
    await app.press(KEYS.tab);
    await app.waitForFrame("summarize @release-notes.txt");
    app.type("and @pixel.png");
    await app.waitForFrame("and @pixel.png");
    await app.press(KEYS.enter);
    await app.waitForFrame("Read them.");
    const frame = await app.settle();
    expect(frame).toContain("attached @release-notes.txt, @pixel.png");

    const user = runtime.provider.calls[0]!.context.messages.at(-1) as {
      content: { type: string; text?: string; mimeType?: string }[];
    };
    const text = user.content.find((block) => block.type === "text")!.text!;
    expect(text).toContain("summarize @release-notes.txt and @pixel.png");
    expect(text).toContain('<file path="release-notes.txt">');
    expect(text).toContain("the parser is 2x faster");
    expect(user.content.some((block) => block.type === "image" && block.mimeType === "image/png")).toBe(true);
  });

  test("the first Tab after @ completes (the project's files are listed on that Tab)", async () => {
    const runtime = await createTestRuntime({ steps: [] });
    writeFileSync(join(runtime.cwd, "release-notes.txt"), "notes\n");
    writeFileSync(join(runtime.cwd, "readme.md"), "readme\n");
    const app = renderApp(runtime);
    app.type("see @rel");
    await app.waitForFrame("see @rel");
    await app.press(KEYS.tab);
    await app.waitForFrame("see @release-notes.txt");
    expect(app.lastFrame()).not.toContain("no file matches");
    app.type("and @re");
    await app.waitForFrame("and @re");
    await app.press(KEYS.tab);
    await app.waitForFrame("@readme.md  @release-notes.txt");
    app.type("x");
    await app.press(KEYS.tab);
    await app.waitForFrame("no file matches @rex");
  });

  test("a mention of no file stays text, with a warning", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("Nothing attached.")] });
    const app = renderApp(runtime);
    await app.submit("look at @missing-file.ts");
    await app.waitForFrame("Nothing attached.");
    const frame = await app.settle();
    expect(frame).toContain("! @missing-file.ts: File not found");
    const sent = JSON.stringify(runtime.provider.calls[0]!.context.messages.at(-1));
    expect(sent).toContain("look at @missing-file.ts");
    expect(sent).not.toContain("<file");
  });
});
