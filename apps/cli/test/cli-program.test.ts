import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { flagConflicts } from "../src/cli-options.js";
import type { CliIo } from "../src/io.js";
import { main } from "../src/main.js";
import { CLOSED_LOCAL_URL, runArbor, sandbox } from "./cli-helpers.js";

const VERSION = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/** Runs `main()` in-process with captured streams (stdin: an ended stream, not a terminal). */
async function runMain(args: string[], env: Record<string, string>, cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (chunks: string[]) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        chunks.push(chunk.toString());
        callback();
      },
    });
  const { Readable } = await import("node:stream");
  const io: CliIo = { stdin: Readable.from([]), stdout: sink(out), stderr: sink(err), env, cwd };
  const code = await main(args, io);
  return { code, stdout: out.join(""), stderr: err.join("") };
}

describe("arbor: version, help, flags", () => {
  it("answers --version and -v with package.json's version and the commit of the checkout", async () => {
    const box = sandbox();
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    for (const flag of ["--version", "-v"]) {
      const run = await runArbor(box, [flag]);
      expect(run).toEqual({ code: 0, stdout: `arbor ${VERSION} (commit ${commit})\n`, stderr: "" });
    }
    // Through commander too (a flag after another one).
    const late = await runMain(["--no-session", "--version"], box.env, box.cwd);
    expect(late.stdout).toBe(`arbor ${VERSION} (commit ${commit})\n`);
  });

  it("prints the help with every flag and subcommand", async () => {
    const box = sandbox();
    const run = await runMain(["--help"], box.env, box.cwd);
    expect(run.code).toBe(0);
    for (const flag of [
      "--provider",
      "--model",
      "--base-url",
      "--api-key",
      "--thinking",
      "--tools",
      "--no-tools",
      "--continue",
      "--resume",
      "--session",
      "--no-session",
      "--fork",
      "--store",
      "--record",
      "--replay",
      "--system-prompt",
      "--append-system-prompt",
      "--mode",
      "--print",
      "--version",
      "sessions",
      "models",
      "tour",
      "completion",
    ]) {
      expect(run.stdout).toContain(flag);
    }
    // The environment it reads, each variable named.
    const environment = run.stdout.slice(run.stdout.indexOf("Environment:"));
    for (const variable of [
      "ANTHROPIC_API_KEY",
      "OPENAI_BASE_URL",
      "ARBOR_HOME",
      "HTTPS_PROXY",
      "NO_PROXY",
      "NO_COLOR",
    ]) {
      expect(environment).toContain(variable);
    }
    const sessions = await runMain(["sessions", "--help"], box.env, box.cwd);
    expect(sessions.code).toBe(0);
    expect(sessions.stdout).toContain("merge");
  });

  it("reports bad flags and conflicting ones", async () => {
    const box = sandbox();
    const thinking = await runMain(["-p", "x", "--thinking", "maximal"], box.env, box.cwd);
    expect(thinking.code).toBe(1);
    expect(thinking.stderr).toContain("expected one of off, minimal, low, medium, high, xhigh");
    const tools = await runMain(["-p", "x", "--tools", "read,rm"], box.env, box.cwd);
    expect(tools.code).toBe(1);
    expect(tools.stderr).toContain('unknown tool "rm"');
    expect(flagConflicts({ continue: true, fork: "a" })).toEqual([
      "-c/--continue and --fork each choose the session; give one of them.",
    ]);
    expect(flagConflicts({ record: "a", replay: "b" })).toHaveLength(1);
    expect(flagConflicts({ session: false, fork: "a" })).toEqual([]);
    const rpc = await runMain(["--mode", "rpc", "-p", "x"], box.env, box.cwd);
    expect(rpc.code).toBe(1);
    expect(rpc.stderr).toContain("--mode rpc reads commands on stdin");
  });

  it("--no-tools and --tools reach the model as its tool list", async () => {
    const box = sandbox();
    const none = await runMain(
      ["-p", "run ls", "--provider", "scripted", "--no-tools", "--no-session"],
      box.env,
      box.cwd,
    );
    expect(none.stdout).toContain("not available in this session");
    const some = await runMain(
      ["-p", "run echo allowed", "--provider", "scripted", "--tools", "bash", "--no-session"],
      box.env,
      box.cwd,
    );
    expect(some.stdout).toContain("allowed");
    const other = await runMain(
      ["-p", "read x.txt", "--provider", "scripted", "--tools", "bash", "--no-session"],
      box.env,
      box.cwd,
    );
    expect(other.stdout).toContain("`read` tool");
  });

  it("arbor models lists the configured providers' models and marks the default", async () => {
    const box = sandbox();
    const run = await runMain(
      ["models", "--provider", "scripted"],
      { ...box.env, ARBOR_LOCAL_SERVER_URL: CLOSED_LOCAL_URL },
      box.cwd,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\*\s+scripted\/demo\s+128,000/m);
    const all = await runMain(["models", "--all", "--json"], box.env, box.cwd);
    const models = all.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { model: string; default: boolean });
    expect(models.map((model) => model.model)).toEqual(
      expect.arrayContaining(["anthropic/claude-sonnet-5-5", "openai/gpt-5.5", "scripted/demo"]),
    );
    expect(models.filter((model) => model.default)).toEqual([]);
  });
});
