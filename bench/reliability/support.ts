/**
 * What the reliability suite shares: the `arbor` binary (the build when there is one, else the source
 * through tsx), throwaway homes, a strict OpenAI-compatible wire server that answers tool loops and
 * refuses malformed requests, the readers of what a run stored, and the table of trials every test
 * records (printed by `pnpm bench:reliability`).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  chatFrames,
  chatTextChunks,
  chatToolCallChunks,
  type OpenAIWireReply,
  type OpenAIWireRequest,
  type OpenAIWireServer,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterAll } from "vitest";

/** `ci` (the default: what `.ci/run` runs) or `bench` (larger N). */
export const SCALE = process.env.RELIABILITY_SCALE === "bench" ? "bench" : "ci";

/** The number of trials of a kind at this scale. */
export function trials(ci: number, bench: number): number {
  return SCALE === "bench" ? bench : ci;
}

const CLI_DIST = fileURLToPath(new URL("../../apps/cli/dist/arbor.js", import.meta.url));
const CLI_SOURCE = fileURLToPath(new URL("../../apps/cli/src/cli.ts", import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/**
 * How `arbor` is started: the build (`apps/cli/dist`, what `.ci/run` builds first) unless
 * `RELIABILITY_FROM_SOURCE=1` or there is none.
 */
export function arborCommand(): string[] {
  if (process.env.RELIABILITY_FROM_SOURCE !== "1" && existsSync(CLI_DIST)) return [CLI_DIST];
  return ["--conditions=@arbor/source", "--import", TSX, CLI_SOURCE];
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A throwaway Arbor home and project directory, removed after the file's tests. */
export interface Box {
  root: string;
  home: string;
  cwd: string;
  env: Record<string, string>;
}

/** A fresh {@link Box}: no API keys, no local server, no colours. */
export function sandbox(): Box {
  const root = mkdtempSync(join(tmpdir(), "arbor-reliability-"));
  roots.push(root);
  const home = join(root, "home");
  const cwd = join(root, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: root,
    ARBOR_HOME: home,
    ARBOR_LOCAL_SERVER_URL: "http://127.0.0.1:9/v1",
    NO_COLOR: "1",
    TMPDIR: tmpdir(),
  };
  return { root, home, cwd, env };
}

/** How a finished `arbor` ended. */
export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Killed by the suite after `timeoutMs`: a hang. */
  hung: boolean;
}

/** Options of {@link startArbor} and {@link runArbor}. */
export interface ArborOptions {
  env?: Record<string, string>;
  /** Written to stdin, which is then closed (closed at once when absent, unless `keepStdin`). */
  input?: string;
  keepStdin?: boolean;
  /** After this long the process is killed and the run counts as hung (default 60 s). */
  timeoutMs?: number;
}

/** Starts `arbor <args>` in the box's project directory. */
export function startArbor(box: Box, args: readonly string[], options: ArborOptions = {}) {
  const child = spawn(process.execPath, [...arborCommand(), ...args], {
    cwd: box.cwd,
    env: { ...box.env, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  if (!options.keepStdin) child.stdin.end(options.input ?? "");
  return child;
}

/** Collects a started process's output until it ends. */
export function finished(child: ChildProcessWithoutNullStreams, timeoutMs = 60_000): Promise<Run> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    child.kill("SIGKILL");
  }, timeoutMs);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        hung,
      });
    });
  });
}

/** Runs `arbor <args>` to its end. */
export function runArbor(box: Box, args: readonly string[], options: ArborOptions = {}): Promise<Run> {
  return finished(startArbor(box, args, options), options.timeoutMs);
}

/** The JSON lines of a `--mode json` / rpc output (other lines skipped). */
export function jsonLines(text: string): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // A line cut by a kill.
    }
  }
  return lines;
}

/** The entry ids every `save_point` of a json/rpc output reported. */
export function savedIds(stdout: string): string[] {
  return jsonLines(stdout).flatMap((line) =>
    line.type === "save_point" && Array.isArray(line.entryIds) ? (line.entryIds as string[]) : [],
  );
}

/** A stack trace in a process's output (never acceptable for a user's situation). */
export const STACK_TRACE = /\n\s+at .+\(.+:\d+:\d+\)|internal error/;

/** Every file under `directory` (recursively), with its mode. */
export function filesUnder(directory: string): { path: string; mode: number; directory: boolean }[] {
  if (!existsSync(directory)) return [];
  const found: { path: string; mode: number; directory: boolean }[] = [];
  const visit = (path: string) => {
    const stat = statSync(path);
    found.push({ path, mode: stat.mode & 0o777, directory: stat.isDirectory() });
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(directory);
  return found;
}

/** What the strict server found wrong in the requests it received. */
export interface StrictServer extends OpenAIWireServer {
  violations: string[];
}

/**
 * Problems of a Chat Completions request a strict provider would refuse: a tool call without its
 * result, a result without its call, an empty message list, a message with no content.
 */
export function requestProblems(body: Record<string, unknown> | undefined): string[] {
  const messages = (body?.messages ?? []) as {
    role: string;
    content?: unknown;
    tool_calls?: { id: string }[];
    tool_call_id?: string;
  }[];
  const problems: string[] = [];
  if (messages.length === 0) problems.push("no messages");
  let open = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === "tool") {
      if (message.tool_call_id === undefined || !open.has(message.tool_call_id))
        problems.push(`message ${index}: a tool result without its call (${message.tool_call_id})`);
      else open.delete(message.tool_call_id);
      continue;
    }
    if (open.size > 0) problems.push(`message ${index}: tool calls ${[...open].join(", ")} have no result`);
    open = new Set((message.tool_calls ?? []).map((call) => call.id));
    const empty = message.content === undefined || message.content === null || message.content === "";
    if (message.role !== "assistant" && empty) problems.push(`message ${index} (${message.role}) is empty`);
  }
  return problems;
}

/** Options of {@link startStrictServer}. */
export interface StrictServerOptions {
  /** Tool-call rounds before the final text (default 0: answer at once). */
  toolRounds?: number;
  /** Pause before each SSE frame, in ms (default 0). */
  frameDelayMs?: number;
  /** The command each tool round runs (default `echo step`). */
  command?: string;
  /** Text chunks of each answer (default 6). */
  answer?: string;
}

/**
 * A strict OpenAI-compatible server: every request is checked with {@link requestProblems} (a 400 and a
 * recorded violation when it fails); a valid one gets `toolRounds` rounds of a bash call (counted per
 * conversation by the tool results it carries), then a text answer.
 */
export async function startStrictServer(options: StrictServerOptions = {}): Promise<StrictServer> {
  const violations: string[] = [];
  const delay = options.frameDelayMs ?? 0;
  const reply = (request: OpenAIWireRequest): OpenAIWireReply => {
    const problems = requestProblems(request.body);
    if (problems.length > 0) {
      violations.push(...problems);
      return {
        kind: "json",
        status: 400,
        body: { error: { message: problems.join("; "), type: "invalid_request_error" } },
      };
    }
    const messages = (request.body?.messages ?? []) as { role: string }[];
    const lastUser = messages.map((message) => message.role).lastIndexOf("user");
    const rounds = messages.slice(lastUser).filter((message) => message.role === "tool").length;
    if (rounds < (options.toolRounds ?? 0)) {
      const id = `call_${rounds}_${Math.random().toString(36).slice(2, 8)}`;
      return {
        kind: "sse",
        frameDelayMs: delay,
        frames: chatFrames(
          chatToolCallChunks([
            { id, name: "bash", arguments: { command: options.command ?? `echo step ${rounds}` } },
          ]),
        ),
      };
    }
    return {
      kind: "sse",
      frameDelayMs: delay,
      frames: chatFrames(chatTextChunks(options.answer ?? "All steps are done now.", { size: 6 })),
    };
  };
  const server = await startOpenAIWireServer([]);
  // Every request gets a reply: refill the script whenever it runs low.
  const refill = () => {
    while (server.remaining < 64) server.push(reply);
  };
  refill();
  const timer = setInterval(refill, 20);
  const close = server.close.bind(server);
  return Object.assign(server, {
    violations,
    close: async () => {
      clearInterval(timer);
      await close();
    },
  });
}

/** The provider flags for a wire server. */
export function serverFlags(server: { url: string }): string[] {
  return ["--base-url", server.url, "--model", "wire-model"];
}

/** One row of the suite's table: a kind of trial, how many ran, how many failed, what was lost. */
export interface TrialRow {
  category: string;
  kind: string;
  trials: number;
  failures: number;
  lost: string;
}

/**
 * Records a row (appended as a JSON line to `$RELIABILITY_REPORT` when set: `pnpm bench:reliability`
 * prints them as tables).
 */
export function record(row: TrialRow): void {
  const report = process.env.RELIABILITY_REPORT;
  if (report !== undefined && report !== "") appendFileSync(report, `${JSON.stringify(row)}\n`);
}

/** A small seeded random generator (mulberry32), so a failing trial can be replayed by its seed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A gate that lets at most `limit` pieces of work run at once, in the order they asked: one gate shared by
 * the tests of a file (run with `it.concurrent`) bounds the processes they start together.
 */
export function limiter(limit: number): <R>(work: () => Promise<R>) => Promise<R> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next === undefined) running--;
      else next();
    }
  };
}

/** Runs `work` over `items` with at most `limit` at a time (or through a shared {@link limiter}). */
export function inParallel<T, R>(
  items: readonly T[],
  limit: number | (<S>(work: () => Promise<S>) => Promise<S>),
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const gate = typeof limit === "number" ? limiter(limit) : limit;
  return Promise.all(items.map((item) => gate(() => work(item))));
}

/**
 * How many `arbor` trials a file runs at once (`RELIABILITY_CONCURRENCY`, default 4): the trials mostly
 * wait (on slowed streams, retries, a kill's moment), so more than the 2 cores keeps them busy.
 */
export const CONCURRENCY = Math.max(1, Number(process.env.RELIABILITY_CONCURRENCY) || 4);

/** The store URLs the suite covers: JSONL always, SQLite always, PostgreSQL with `DATABASE_URL`. */
export interface StoreUnderTest {
  name: "jsonl" | "sqlite" | "postgres";
  /** `--store` flags for a box (none for the default JSONL store). */
  flags(box: Box): string[];
}

/** The stores of this run (PostgreSQL only when `DATABASE_URL` is set). */
export function storesUnderTest(): StoreUnderTest[] {
  const stores: StoreUnderTest[] = [
    { name: "jsonl", flags: () => [] },
    { name: "sqlite", flags: (box) => ["--store", `sqlite:${join(box.home, "sessions.db")}`] },
  ];
  const url = process.env.DATABASE_URL;
  if (url !== undefined && url !== "") stores.push({ name: "postgres", flags: () => ["--store", url] });
  return stores;
}

/** Fails the file in CI when PostgreSQL is missing (as the Postgres store's own tests do). */
export function postgresRequiredInCi(): string | undefined {
  const url = process.env.DATABASE_URL;
  if (process.env.CI === "true" && (url === undefined || url === ""))
    return "CI=true but DATABASE_URL is not set: .ci/run must start PostgreSQL (scripts/pg-start.sh).";
  return undefined;
}
