/**
 * Secrets and files: a fake key given by flag and by environment never reaches a session, lock, torn
 * or cassette file, an export or a tool's output; store files are 0600 and directories 0700 also under
 * umask 000; `--no-session` writes nothing; the bash tool's timeout and abort kill the whole process
 * tree; ids like `../../etc/x` never escape the store.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  arborCommand,
  type Box,
  CONCURRENCY,
  filesUnder,
  finished,
  inParallel,
  jsonLines,
  type Run,
  record,
  runArbor,
  STACK_TRACE,
  type StrictServer,
  sandbox,
  startArbor,
  startStrictServer,
  storesUnderTest,
} from "./support.js";

const FLAG_KEY = "sk-fake-FLAG-7a1c-never-store";
const ENV_KEY = "sk-fake-ENV-93be-never-store";

let leaky: StrictServer;
beforeAll(async () => {
  // The model prints the environment and echoes the key variable in a tool call.
  leaky = await startStrictServer({ toolRounds: 1, command: "env; echo key=$OPENAI_API_KEY" });
});
afterAll(async () => {
  await leaky?.close();
});

/** Runs `arbor` under `umask 000`. */
function runWithUmask(box: Box, args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(
    "/bin/sh",
    ["-c", 'umask 000 && exec "$@"', "sh", process.execPath, ...arborCommand(), ...args],
    {
      cwd: box.cwd,
      env: { ...box.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  child.stdin.end();
  return finished(child);
}

function contains(text: string, secrets: readonly string[]): string[] {
  return secrets.filter((secret) => text.includes(secret));
}

/** Whether a process is still running. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits up to 5 s (the kill's SIGTERM-to-SIGKILL grace is 2 s) for a process to end. */
async function untilDead(pid: number): Promise<void> {
  for (let waited = 0; waited < 5000 && alive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("secrets and files", () => {
  it("a key by flag or by environment is never stored, exported or shown to a tool", async () => {
    const failures: string[] = [];
    const combinations = (["flag", "env"] as const).flatMap((how) =>
      storesUnderTest().map((store) => ({ how, store })),
    );
    // Each combination in its own home, CONCURRENCY at a time.
    await inParallel(combinations, CONCURRENCY, async ({ how, store }) => {
      const box = sandbox();
      const flags = [...store.flags(box), "--base-url", leaky.url, "--model", "wire-model"];
      const keyArgs = how === "flag" ? ["--api-key", FLAG_KEY] : [];
      const env: Record<string, string> =
        how === "env" ? { OPENAI_API_KEY: ENV_KEY, ANTHROPIC_API_KEY: ENV_KEY, VLLM_API_KEY: ENV_KEY } : {};
      const cassette = join(box.cwd, "cassette.jsonl");
      const run = await runWithUmask(
        box,
        ["-p", "print the environment", "--mode", "json", "--record", cassette, ...keyArgs, ...flags],
        env,
      );
      if (run.code !== 0)
        failures.push(`${how}/${store.name}: exit ${run.code}: ${run.stderr.slice(0, 200)}`);
      const output = jsonLines(run.stdout);
      const id = String(output.find((line) => line.type === "session")?.sessionId ?? "");
      const toolOutput = JSON.stringify(output.filter((line) => String(line.type).startsWith("tool")));
      if (!toolOutput.includes("key=")) failures.push(`${how}/${store.name}: the tool did not run`);
      const texts = [run.stdout, run.stderr];
      for (const format of ["html", "md", "jsonl"]) {
        const exported = await runArbor(
          box,
          ["sessions", ...store.flags(box), "export", id, "--format", format],
          { env },
        );
        if (exported.code !== 0)
          failures.push(`${how}/${store.name}: export ${format} exit ${exported.code}`);
        texts.push(exported.stdout, exported.stderr);
      }
      for (const file of [...filesUnder(box.home), ...filesUnder(box.cwd)]) {
        if (!file.directory) texts.push(readFileSync(file.path, "latin1"));
      }
      const leaked = contains(texts.join("\n"), [FLAG_KEY, ENV_KEY]);
      if (leaked.length > 0) failures.push(`${how}/${store.name}: the key appears`);
      // Store files 0600, directories 0700, under umask 000 (sessions, .lock, .torn, .locks, databases).
      const stored =
        store.name === "jsonl"
          ? filesUnder(join(box.home, "sessions"))
          : filesUnder(box.home).filter((f) => f.path.includes("sessions.db"));
      for (const file of stored) {
        const want = file.directory ? 0o700 : 0o600;
        if (file.mode !== want)
          failures.push(`${how}/${store.name}: ${file.path} has mode ${file.mode.toString(8)}`);
      }
    });
    failures.sort();
    record({
      category: "secrets and files",
      kind: "fake key by flag and env: sessions, locks, cassette, exports, tool output; modes under umask 000",
      trials: 2 * storesUnderTest().length,
      failures: failures.length,
      lost: failures.length === 0 ? "nothing" : failures.join("; "),
    });
    expect(failures).toEqual([]);
  });

  it("--no-session writes nothing in the home", async () => {
    const server = await startStrictServer({ toolRounds: 1 });
    try {
      const box = sandbox();
      const run = await runArbor(box, ["-p", "hi", "--no-session", "--base-url", server.url, "--model", "m"]);
      expect(run.code).toBe(0);
      expect(readdirSync(box.home)).toEqual([]);
      record({
        category: "secrets and files",
        kind: "--no-session writes nothing",
        trials: 1,
        failures: 0,
        lost: "nothing",
      });
    } finally {
      await server.close();
    }
  });

  it("the bash tool's timeout and an abort kill the whole process tree", async () => {
    const box = sandbox();
    const pidFile = join(box.cwd, "grandchild.pid");
    const command = `sh -c 'sleep 300 & echo $! > ${pidFile}; wait'`;
    const failures: string[] = [];
    // Timeout: the tool call asks for 1 s.
    const timeoutServer = await startStrictServer({ toolRounds: 1, command: `${command} # timeout` });
    try {
      const { startOpenAIWireServer, chatFrames, chatToolCallChunks, chatTextChunks } = await import(
        "@internal/conformance"
      );
      const server = await startOpenAIWireServer([
        {
          kind: "sse",
          frames: chatFrames(
            chatToolCallChunks([{ id: "call_t", name: "bash", arguments: { command, timeout: 1 } }]),
          ),
        },
        { kind: "sse", frames: chatFrames(chatTextChunks("timed out")) },
      ]);
      const run = await runArbor(box, ["-p", "run", "--base-url", server.url, "--model", "m"]);
      await server.close();
      const pid = Number(readFileSync(pidFile, "utf8"));
      await untilDead(pid);
      if (run.code !== 0) failures.push(`timeout run exit ${run.code}`);
      if (alive(pid)) {
        failures.push(`timeout: grandchild ${pid} still runs`);
        process.kill(pid, "SIGKILL");
      }
      // Abort: Ctrl-C while the command runs.
      const abortServer = await startOpenAIWireServer([
        {
          kind: "sse",
          frames: chatFrames(chatToolCallChunks([{ id: "call_a", name: "bash", arguments: { command } }])),
        },
      ]);
      const child = startArbor(box, ["-p", "run", "--base-url", abortServer.url, "--model", "m"]);
      const done = finished(child);
      const started = Date.now();
      while (
        Date.now() - started < 20_000 &&
        !(existsSync(pidFile) && statSync(pidFile).mtimeMs > started - 1)
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      child.kill("SIGINT");
      const aborted = await done;
      await abortServer.close();
      const abortedPid = Number(readFileSync(pidFile, "utf8"));
      await untilDead(abortedPid);
      if (aborted.code !== 1) failures.push(`abort exit ${aborted.code}`);
      if (alive(abortedPid)) {
        failures.push(`abort: grandchild ${abortedPid} still runs`);
        process.kill(abortedPid, "SIGKILL");
      }
    } finally {
      await timeoutServer.close();
    }
    record({
      category: "secrets and files",
      kind: "bash timeout and Ctrl-C kill the process tree",
      trials: 2,
      failures: failures.length,
      lost: failures.length === 0 ? "nothing" : failures.join("; "),
    });
    expect(failures).toEqual([]);
  });

  it("ids and paths like ../../etc/x never escape the store", async () => {
    const server = await startStrictServer();
    const failures: string[] = [];
    try {
      const box = sandbox();
      const name = `arbor-escape-${process.pid}`;
      const references = [`../../etc/${name}`, `..%2F..%2F${name}`, `a/../../${name}`, `/tmp/../${name}`];
      for (const reference of references) {
        for (const args of [
          ["-p", "hi", "--session", reference, "--base-url", server.url, "--model", "m"],
          ["-p", "hi", "-r", reference, "--base-url", server.url, "--model", "m"],
          ["sessions", "show", reference],
        ]) {
          const run = await runArbor(box, args);
          if (STACK_TRACE.test(run.stderr)) failures.push(`${args.join(" ")}: stack trace`);
          if (run.hung) failures.push(`${args.join(" ")}: hung`);
        }
      }
      // Where an escape would land: next to the box, in its parent's etc/, or in the box's root.
      const parent = join(box.root, "..");
      const candidates = [parent, join(parent, "etc"), box.root, box.cwd].flatMap((directory) => {
        try {
          return readdirSync(directory)
            .filter((entry) => entry.includes(name))
            .map((entry) => ({ path: join(directory, entry) }));
        } catch {
          return [];
        }
      });
      const outside = candidates;
      if (outside.length > 0) failures.push(`escaped: ${outside.map((file) => file.path).join(", ")}`);
      const inHome = filesUnder(box.home).filter(
        (file) => !file.path.startsWith(join(box.home, "sessions")) && !file.directory,
      );
      if (inHome.length > 0) failures.push(`unexpected files: ${inHome.map((file) => file.path).join(", ")}`);
    } finally {
      await server.close();
    }
    record({
      category: "secrets and files",
      kind: "../../etc/x ids and paths",
      trials: 12,
      failures: failures.length,
      lost: failures.length === 0 ? "nothing" : failures.join("; "),
    });
    expect(failures).toEqual([]);
  });
});
