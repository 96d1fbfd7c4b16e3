/**
 * Extension commands in the demo: an extension's `registerCommand` is listed (`get_commands`), runs from
 * the API (`run_command`, what the page's buttons send), and its `ui.notify` reaches the page's event
 * stream as a `notice`; a command that throws is one clear error, and the session goes on.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { command, readEvents, testDemo } from "./helpers.js";

let context: Awaited<ReturnType<typeof testDemo>>;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "arbor-demo-extension-"));
  const extension = join(folder, "greeter.mjs");
  writeFileSync(
    extension,
    `export default (arbor) => {
  arbor.registerCommand("greet", {
    description: "greets whoever is named",
    arguments: "<name>",
    run: (args, context) => context.notify(\`Hello, \${args || "world"}!\`),
  });
  arbor.registerCommand("explode", {
    description: "always fails",
    run: () => { throw new Error("boom"); },
  });
};
`,
  );
  context = await testDemo({ extensions: [extension] });
});

afterAll(async () => {
  await context?.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe("extension commands in the demo", () => {
  test("are listed, run from the API, and their notices reach the page's events", async () => {
    const { base, token } = context;
    const listed = await command(base, token, { type: "get_commands" });
    expect(listed.answer.data.commands.map((item: { name: string }) => item.name)).toEqual([
      "greet",
      "explode",
    ]);
    const listening = readEvents(base, token, (events) =>
      events.some((event) => event.data.type === "notice"),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ran = await command(base, token, { type: "run_command", name: "greet", args: "Ada" });
    expect(ran.answer).toMatchObject({ ok: true, data: { name: "greet" } });
    const notice = (await listening).find((event) => event.data.type === "notice");
    expect(notice?.data).toMatchObject({ level: "info", message: "Hello, Ada!" });
  });

  test("a failing command is one clear error; an unknown one lists the commands; the session still works", async () => {
    const { base, token } = context;
    const failed = await command(base, token, { type: "run_command", name: "explode" });
    expect(failed.answer.ok).toBe(false);
    expect(failed.answer.error).toContain("/explode failed: boom");
    const unknown = await command(base, token, { type: "run_command", name: "nope" });
    expect(unknown.answer.error).toBe('No extension command "nope". Commands: greet, explode.');
    const sent = await command(base, token, { type: "prompt", text: "still here?" });
    expect(sent.answer.ok).toBe(true);
    await context.demo.hub.idle();
    const graph = await command(base, token, { type: "get_graph" });
    expect(graph.answer.data.nodes.some((node: { kind: string }) => node.kind === "assistant")).toBe(true);
  });
});
