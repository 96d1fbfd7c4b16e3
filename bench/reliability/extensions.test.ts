/**
 * Bad extensions through the real `arbor` (print and json mode with the scripted provider, rpc mode's
 * abort): a hook, an event handler or a default export that never settles, one that throws, one that throws
 * what is not an Error, a hook that loops without yielding (ended by Ctrl-C twice), and an extension's
 * provider whose key must not reach the bash tool. Each must end — never a hang, never Node's silent exit
 * code 13, never a stack trace — with one line naming the file and the hook, and the turn saved (or, when
 * Ctrl-C stopped it, exit 1 and nothing claimed).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  type Box,
  CONCURRENCY,
  finished,
  inParallel,
  jsonLines,
  type Run,
  record,
  runArbor,
  STACK_TRACE,
  sandbox,
  startArbor,
  trials,
} from "./support.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/extensions/${name}`, import.meta.url));

/** The limits the never-settling cases set in `settings.json`, as a user would (defaults: 10 s, 5 s, 5 s). */
const LIMITS = { loadMs: 2000, hookMs: 1000, eventMs: 1000 };

/** How long past its limit a case may take (the process's start and end on a busy machine). */
const SLACK_MS = 15_000;

/** A key an extension's provider reads (`credentials.apiKeyEnv: "MYEXT_API_KEY"`). */
const SECRET = "sk-myext-0123456789-must-not-leak";

type Mode = "print" | "json";

interface Case {
  name: string;
  /** The extension file in `fixtures/extensions/`. */
  file: string;
  /** The hook the one warning line names (`load` for a failed load). */
  hook: string;
  /** Extra arguments and environment. */
  args?: string[];
  env?: Record<string, string>;
  /** The time limit that must end it, in ms (the run may take it, never much more). */
  limitMs: number;
}

const CASES: Case[] = [
  {
    name: "a hook that never settles (before_agent_start)",
    file: "hook-never-settles.mjs",
    hook: "before_agent_start",
    limitMs: LIMITS.hookMs,
  },
  {
    name: "an event handler that never settles (turn_end)",
    file: "event-never-settles.mjs",
    hook: "turn_end",
    limitMs: LIMITS.eventMs,
  },
  {
    name: "a default export that never settles",
    file: "load-never-settles.mjs",
    hook: "load",
    limitMs: LIMITS.loadMs,
  },
  { name: "a hook that throws an Error", file: "throws.mjs", hook: "before_agent_start", limitMs: 0 },
  {
    name: "a default export that throws a non-Error (an object without prototype)",
    file: "throws-non-error.mjs",
    hook: "load",
    limitMs: 0,
  },
];

function writeSettings(box: Box, value: Record<string, unknown>): void {
  writeFileSync(join(box.home, "settings.json"), `${JSON.stringify(value)}\n`);
}

interface StoredMessage {
  role: string;
  text: string;
  stopReason?: string;
}

/** The messages of every session file in the box (role, content as text, stop reason), oldest first. */
function storedMessages(box: Box): StoredMessage[] {
  const found: StoredMessage[] = [];
  const sessions = join(box.home, "sessions");
  let directories: string[] = [];
  try {
    directories = readdirSync(sessions);
  } catch {
    return found;
  }
  for (const directory of directories) {
    let names: string[] = [];
    try {
      names = readdirSync(join(sessions, directory)).filter((name) => name.endsWith(".jsonl"));
    } catch {
      continue;
    }
    for (const name of names) {
      for (const line of readFileSync(join(sessions, directory, name), "utf8").split("\n")) {
        if (!line.startsWith("{")) continue;
        const entry = JSON.parse(line) as {
          type: string;
          message?: { role: string; content: unknown; stopReason?: string };
        };
        if (entry.type !== "message" || entry.message === undefined) continue;
        const { role, content, stopReason } = entry.message;
        found.push({
          role,
          text: JSON.stringify(content),
          ...(stopReason === undefined ? {} : { stopReason }),
        });
      }
    }
  }
  return found;
}

/** Everything a box's sessions hold, as text (for a secret search). */
function storedText(box: Box): string {
  return storedMessages(box)
    .map((message) => message.text)
    .join("\n");
}

/** What is wrong with how a run ended, besides its own checks. */
function commonProblems(run: Run, started: number, limitMs: number): string[] {
  const problems: string[] = [];
  const took = Date.now() - started;
  if (run.hung) problems.push("hung");
  else if (took > limitMs + SLACK_MS) problems.push(`took ${took} ms (limit ${limitMs} ms)`);
  if (run.code === 13) problems.push("exit 13 (an unsettled await, no message)");
  if (STACK_TRACE.test(run.stderr)) problems.push("stack trace");
  return problems;
}

/** One bad extension in one mode: exit 0, one line naming file and hook, the answer given and saved. */
async function tryCase(item: Case, mode: Mode): Promise<string[]> {
  const box = sandbox();
  writeSettings(box, { extensionTimeouts: LIMITS });
  const path = fixture(item.file);
  const started = Date.now();
  const run = await runArbor(
    box,
    [
      "-p",
      "hello",
      "--provider",
      "scripted",
      "--extension",
      path,
      ...(mode === "json" ? ["--mode", "json"] : []),
    ],
    { timeoutMs: item.limitMs + SLACK_MS + 30_000 },
  );
  const problems = commonProblems(run, started, item.limitMs);
  if (run.code !== 0) problems.push(`exit ${run.code}: ${run.stderr.slice(0, 300)}`);
  const lines = run.stderr.split("\n").filter((line) => line.startsWith(`arbor: extension ${path}`));
  if (lines.length !== 1)
    problems.push(`${lines.length} lines about the extension: ${JSON.stringify(run.stderr.slice(0, 300))}`);
  const named = item.hook === "load" ? `${path} failed to load: ` : `${path}, ${item.hook}: `;
  if (lines.length === 1 && !lines[0]!.includes(named)) problems.push(`does not name the hook: ${lines[0]}`);
  const answered =
    mode === "print"
      ? run.stdout.trim() !== ""
      : jsonLines(run.stdout).some((line) => line.type === "result" && line.exitCode === 0);
  if (!answered) problems.push("no answer");
  const roles = storedMessages(box).map((message) => message.role);
  if (!(roles.includes("user") && roles.includes("assistant")))
    problems.push(`turn not saved (${roles.join(",")})`);
  return problems;
}

/**
 * A hook that loops without yielding, with a limit far longer than the test: Ctrl-C twice must end it
 * (exit 1 or 130, one line saying so) — the first stops the loop, the second exits at once if the first's
 * abort is still pending.
 */
async function tryBusyLoop(mode: Mode): Promise<string[]> {
  const box = sandbox();
  writeSettings(box, { extensionTimeouts: { hookMs: 120_000 } });
  const path = fixture("busy-loop.mjs");
  const child = startArbor(box, [
    "-p",
    "hello",
    "--provider",
    "scripted",
    "--extension",
    path,
    ...(mode === "json" ? ["--mode", "json"] : []),
  ]);
  const done = finished(child, 60_000);
  let looping = false;
  child.stderr.on("data", (chunk: Buffer) => {
    if (chunk.toString("utf8").includes("busy-loop: looping")) looping = true;
  });
  const waitUntil = Date.now() + 30_000;
  while (!looping && child.exitCode === null && Date.now() < waitUntil)
    await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const started = Date.now();
  child.kill("SIGINT");
  await new Promise((resolve) => setTimeout(resolve, 300));
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
  const run = await done;
  const problems = commonProblems(run, started, 0);
  if (run.code !== 1 && run.code !== 130) problems.push(`exit ${run.code} (signal ${run.signal})`);
  // Print mode says it on stderr, json mode in its result record (a second Ctrl-C in time: on stderr).
  const result = jsonLines(run.stdout).find((line) => line.type === "result");
  const said =
    /arbor: (aborted: interrupted|interrupted again)/.test(run.stderr) ||
    /interrupted/.test(String(result?.error));
  if (!said) problems.push(`does not say it was interrupted: ${JSON.stringify(run.stderr.slice(0, 300))}`);
  if (!run.stderr.includes(`arbor: extension ${path}, before_agent_start: stopped by Ctrl-C`))
    problems.push("does not name the hook Ctrl-C stopped");
  // The model call that started meanwhile was cut off: saved as aborted, never as a whole answer.
  const answers = storedMessages(box).filter((message) => message.role === "assistant");
  if (answers.some((message) => message.stopReason !== "aborted"))
    problems.push("a whole answer was saved after Ctrl-C");
  return problems;
}

/** The extension's provider runs `env` in the bash tool: its key is in neither output nor session. */
async function tryKeyProvider(mode: Mode): Promise<string[]> {
  const box = sandbox();
  const path = fixture("key-provider.mjs");
  const started = Date.now();
  const run = await runArbor(
    box,
    [
      "-p",
      "print the environment",
      "--provider",
      "myext",
      "--extension",
      path,
      ...(mode === "json" ? ["--mode", "json"] : []),
    ],
    { env: { MYEXT_API_KEY: SECRET } },
  );
  const problems = commonProblems(run, started, 0);
  if (run.code !== 0) problems.push(`exit ${run.code}: ${run.stderr.slice(0, 300)}`);
  const stored = storedText(box);
  if (!stored.includes("ARBOR_HOME=")) problems.push("env did not run");
  if (stored.includes(SECRET) || stored.includes("MYEXT_API_KEY="))
    problems.push("the key is in the session");
  if (run.stdout.includes(SECRET) || run.stderr.includes(SECRET)) problems.push("the key is in the output");
  return problems;
}

/** rpc mode: a hook that never settles (limit 2 min); `abort` must answer at once and the session go idle. */
async function tryRpcAbort(): Promise<string[]> {
  const box = sandbox();
  writeSettings(box, { extensionTimeouts: { hookMs: 120_000 } });
  const path = fixture("hook-never-settles.mjs");
  const child = startArbor(box, ["--mode", "rpc", "--provider", "scripted", "--extension", path], {
    keepStdin: true,
  });
  const done = finished(child, 60_000);
  const output: string[] = [];
  child.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
  const lines = () => jsonLines(output.join(""));
  const until = async (test: () => boolean, ms: number) => {
    const end = Date.now() + ms;
    while (!test() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
    return test();
  };
  const problems: string[] = [];
  child.stdin.write('{"type":"prompt","id":"p","text":"hello"}\n');
  if (!(await until(() => lines().some((line) => line.id === "p"), 30_000)))
    problems.push("no answer to prompt");
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = Date.now();
  child.stdin.write('{"type":"abort","id":"a"}\n');
  const answered = await until(() => lines().some((line) => line.id === "a"), 10_000);
  if (!answered) problems.push("abort did not answer within 10 s");
  else if (Date.now() - started > 5_000) problems.push(`abort took ${Date.now() - started} ms`);
  child.stdin.end();
  const run = await done;
  problems.push(...commonProblems(run, started, 0));
  if (run.code !== 0) problems.push(`exit ${run.code}: ${run.stderr.slice(0, 300)}`);
  return problems;
}

interface Trial {
  kind: string;
  run: () => Promise<string[]>;
}

function trialsOf(kind: string, count: number, run: (index: number) => Promise<string[]>): Trial[] {
  return Array.from({ length: count }, (_, index) => ({ kind, run: () => run(index) }));
}

const MODES: readonly Mode[] = ["print", "json"];
const PER_MODE = trials(1, 5);

const TRIALS: Trial[] = [
  ...CASES.flatMap((item) =>
    trialsOf(`${item.name}: exit 0, one line, turn saved`, PER_MODE * 2, (index) =>
      tryCase(item, MODES[index % 2]!),
    ),
  ),
  ...trialsOf(
    "a hook that loops without yielding, Ctrl-C twice: exit 1, the turn saved as aborted",
    PER_MODE * 2,
    (index) => tryBusyLoop(MODES[index % 2]!),
  ),
  ...trialsOf(
    "an extension's provider (credentials.apiKeyEnv): its key not in env, output or session",
    PER_MODE * 2,
    (index) => tryKeyProvider(MODES[index % 2]!),
  ),
  ...trialsOf("rpc: abort while a hook never settles (limit 2 min): answered at once", PER_MODE, () =>
    tryRpcAbort(),
  ),
];

describe("extensions", () => {
  it(`${TRIALS.length} trials of bad extensions: each ends within its limit with one line, never a hang or exit 13`, async () => {
    const outcomes = await inParallel(TRIALS, CONCURRENCY, (trial) => trial.run());
    const kinds = [...new Set(TRIALS.map((trial) => trial.kind))];
    const failures: string[] = [];
    for (const kind of kinds) {
      const problems = TRIALS.flatMap((trial, index) =>
        trial.kind === kind && (outcomes[index] ?? []).length > 0 ? [(outcomes[index] ?? []).join("; ")] : [],
      );
      const count = TRIALS.filter((trial) => trial.kind === kind).length;
      if (problems.length > 0) failures.push(`${kind}: ${problems.join(" | ")}`);
      record({
        category: "extensions",
        kind,
        trials: count,
        failures: problems.length,
        lost: problems.length > 0 ? problems.join(" | ") : "nothing",
      });
    }
    expect(failures).toEqual([]);
  });
});
