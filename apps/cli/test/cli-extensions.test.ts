import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  jsonLines,
  RpcClient,
  runMainInProcess,
  type Sandbox,
  sandbox,
  sessionFiles,
  writeJson,
} from "./cli-helpers.js";

const HELLO = `
export default function hello(arbor) {
  arbor.registerCommand("hello", {
    description: "say hello and record it",
    arguments: "<name>",
    async run(args) {
      await arbor.appendCustom("hello", { name: args });
      arbor.ui.notify("hello " + args);
    },
  });
  arbor.registerCommand("explode", {
    description: "fails",
    run() {
      throw new Error("boom");
    },
  });
}
`;

/** A sandbox whose project has `.arbor/extensions/hello.mjs` (and, when asked, a broken extension). */
function withExtensions(broken = false): Sandbox {
  const box = sandbox();
  const directory = join(box.cwd, ".arbor", "extensions");
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, "hello.mjs"), HELLO);
  if (broken)
    writeFileSync(join(directory, "broken.ts"), 'export default () => { throw new Error("no config"); };\n');
  return box;
}

describe("extension commands in the CLI", () => {
  it("print mode runs a registered command instead of prompting; its notice goes to stderr", async () => {
    const box = withExtensions();
    const run = await runMainInProcess(box, ["--provider", "scripted", "-p", "/hello world"]);
    expect(run).toMatchObject({ code: 0, stdout: "" });
    expect(run.stderr).toContain("arbor: hello world");
    const [file] = sessionFiles(box.home);
    const custom = file!.lines.filter((line) => line.type === "custom");
    expect(custom).toEqual([expect.objectContaining({ customType: "hello", data: { name: "world" } })]);
    expect(file!.lines.some((line) => line.type === "message")).toBe(false);

    const failed = await runMainInProcess(box, ["--provider", "scripted", "-p", "/explode"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("/explode failed: boom");
    expect(failed.stderr).not.toContain("    at ");
  });

  it("--no-extensions turns them off: the line is a prompt again", async () => {
    const box = withExtensions();
    const run = await runMainInProcess(box, [
      "--provider",
      "scripted",
      "--no-extensions",
      "-p",
      "/hello world",
    ]);
    expect(run.stderr).not.toContain("hello world");
    const [file] = sessionFiles(box.home);
    expect(file!.lines.some((line) => line.type === "custom")).toBe(false);
  });

  it("rpc mode lists and runs commands (run_command, or a prompt that names one); notices are records", async () => {
    const box = sandbox();
    const extension = join(box.cwd, "ext", "hello.mjs");
    mkdirSync(join(box.cwd, "ext"), { recursive: true });
    writeFileSync(extension, HELLO);
    const client = RpcClient.start(box, ["--provider", "scripted", "--extension", "ext/hello.mjs"]);
    await client.waitFor((line) => line.type === "session");
    const commands = await client.send({ id: "c", type: "get_commands" });
    expect(commands.data).toEqual({
      commands: [
        { name: "hello", description: "say hello and record it", arguments: "<name>", source: extension },
        { name: "explode", description: "fails", source: extension },
      ],
    });
    const ran = await client.send({ id: "r", type: "run_command", name: "hello", args: "rpc" });
    expect(ran).toMatchObject({ success: true, data: { name: "hello" } });
    expect(await client.waitFor((line) => line.type === "notice")).toMatchObject({
      level: "info",
      message: "hello rpc",
      source: extension,
    });
    const prompt = await client.send({ id: "p", type: "prompt", text: "/hello again" });
    expect(prompt).toMatchObject({ success: true, data: { command: true } });
    const failed = await client.send({ id: "x", type: "run_command", name: "explode" });
    expect(failed).toMatchObject({ success: false, error: "/explode failed: boom" });
    const unknown = await client.send({ id: "u", type: "run_command", name: "nope" });
    expect(unknown.error).toMatch(/No extension command "nope". Commands: hello, explode/);
    expect(await client.end()).toBe(0);
    const [file] = sessionFiles(box.home);
    expect(file!.lines.filter((line) => line.type === "custom").map((line) => line.data)).toEqual([
      { name: "rpc" },
      { name: "again" },
    ]);
  });

  it("arbor extensions list shows what loaded, from where, and what failed", async () => {
    const box = withExtensions(true);
    const run = await runMainInProcess(box, ["extensions", "list"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`✓ ${join(box.cwd, ".arbor", "extensions", "hello.mjs")} (project)`);
    expect(run.stdout).toContain("commands /hello, /explode");
    expect(run.stdout).toContain(
      `✗ extension ${join(box.cwd, ".arbor", "extensions", "broken.ts")} failed to load: no config`,
    );
    const json = await runMainInProcess(box, ["extensions", "list", "--json"]);
    const [listing] = jsonLines(json.stdout);
    expect((listing!.loaded as unknown[]).length).toBe(1);
    expect(listing!.failures).toEqual([expect.objectContaining({ hook: "load", message: "no config" })]);
    const off = await runMainInProcess(box, ["--no-extensions", "extensions", "list"]);
    expect(off).toMatchObject({ code: 0, stdout: "Extensions are off (--no-extensions).\n" });
  });
});

describe("MCP servers in the CLI", () => {
  const serverScript = fileURLToPath(
    new URL("../../../packages/mcp/test/fixtures/mcp-test-server.mjs", import.meta.url),
  );
  const failScript = fileURLToPath(
    new URL("../../../packages/mcp/test/fixtures/fail-server.mjs", import.meta.url),
  );

  it("arbor mcp list starts each server, shows its state and tools, and one line for a failure", async () => {
    const box = sandbox();
    writeJson(join(box.home, "settings.json"), {
      mcpServers: {
        local: { command: process.execPath, args: [serverScript, "--stdio"] },
        broken: { command: process.execPath, args: [failScript] },
      },
    });
    const run = await runMainInProcess(box, ["mcp", "list"]);
    expect(run.code).toBe(1);
    const lines = run.stdout.split("\n");
    expect(lines).toContain("✓ local (stdio) ready");
    expect(lines).toContain("    mcp__local__echo");
    expect(lines).toContain("✗ broken (stdio) failed");
    expect(run.stdout).toMatch(/ {4}MCP server "broken" failed to start: .*missing API token/);
  });

  it("--tools accepts MCP tool names; an unknown name is still refused", async () => {
    const box = sandbox();
    const run = await runMainInProcess(box, [
      "--provider",
      "scripted",
      "--tools",
      "read,mcp__local__echo",
      "-p",
      "hi",
    ]);
    expect(run.code).toBe(0);
    const bad = await runMainInProcess(box, ["--tools", "reed", "-p", "hi"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('unknown tool "reed"');
    expect(bad.stderr).toContain("mcp__<server>__<tool>");
  });
});
