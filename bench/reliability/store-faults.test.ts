/**
 * Store faults: `arbor -p` runs an 8-step bash loop against a strict wire server while its store fails
 * mid-run — the JSONL session file made immutable (`chattr +i`; root only) or its disk full (ENOSPC injected
 * into the store's writes by a preload: a small tmpfs needs a root mount, so the full disk is emulated), the
 * SQLite database locked by another process, the PostgreSQL server (a throwaway cluster of the test's own)
 * stopped. The fault either ends within the save's retry window (the run must go on and complete) or outlasts
 * it (the run must stop and keep what ran in a recovery file). Each bash command appends its tool-call id to a
 * log outside the project, so what really ran is known from outside. Per trial: tool runs whose call the store
 * did not hold (a tool run after a failed save; goal 0), tool runs whose result is neither in the store nor in
 * a recovery file (lost; goal 0), and whether `arbor sessions recover` then `arbor -r` continue the session with
 * a request the strict server accepts.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SessionEntry, SessionStore } from "@arbor/session-store";
import { PostgresSessionStore } from "@arbor/session-store-postgres";
import {
  chatFrames,
  chatTextChunks,
  chatToolCallChunks,
  type OpenAIWireReply,
  type OpenAIWireRequest,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterAll, beforeAll, describe, it } from "vitest";
import { libraryStore } from "./stored.js";
import {
  type Box,
  finished,
  inParallel,
  limiter,
  record,
  requestProblems,
  runArbor,
  STACK_TRACE,
  type StrictServer,
  sandbox,
  serverFlags,
  startArbor,
  startStrictServer,
  trials,
} from "./support.js";

const STEPS = 8;
const gate = limiter(3);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The strict server of a trial's loop: `STEPS` rounds of a bash call whose command logs its own call id. */
async function startLoopServer(log: string): Promise<StrictServer> {
  const violations: string[] = [];
  const reply = (request: OpenAIWireRequest): OpenAIWireReply => {
    const problems = requestProblems(request.body);
    if (problems.length > 0) {
      violations.push(...problems);
      return { kind: "json", status: 400, body: { error: { message: problems.join("; ") } } };
    }
    const messages = (request.body?.messages ?? []) as { role: string }[];
    const rounds = messages.filter((message) => message.role === "tool").length;
    if (rounds >= STEPS) {
      return { kind: "sse", frameDelayMs: 5, frames: chatFrames(chatTextChunks("All steps are done.")) };
    }
    const id = `call_${rounds}_${Math.random().toString(36).slice(2, 8)}`;
    const command = `echo ${id} >> ${log}`;
    return {
      kind: "sse",
      frameDelayMs: 10,
      frames: chatFrames(chatToolCallChunks([{ id, name: "bash", arguments: { command } }])),
    };
  };
  const server = await startOpenAIWireServer([]);
  const refill = () => {
    while (server.remaining < 32) server.push(reply);
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

/** A throwaway PostgreSQL cluster the test may stop and start (never the suite's shared server). */
interface Cluster {
  url: string;
  stop(): void;
  start(): void;
  remove(): void;
}

function pgBin(): string | undefined {
  try {
    const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(a) - Number(b));
    for (const version of versions.reverse()) {
      const bin = `/usr/lib/postgresql/${version}/bin`;
      if (existsSync(`${bin}/initdb`)) return bin;
    }
  } catch {
    // No PostgreSQL installed here.
  }
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

/** Starts a cluster like scripts/pg-start.sh does (as the `postgres` user when root). */
async function startCluster(): Promise<Cluster | string> {
  const bin = pgBin();
  if (bin === undefined)
    return "no PostgreSQL binaries in /usr/lib/postgresql (scripts/pg-start.sh installs them)";
  const dir = mkdtempSync(join(tmpdir(), "arbor-store-faults-pg-"));
  const root = process.getuid?.() === 0;
  if (root) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString());
    chownSync(dir, uid, gid);
  }
  const as = (command: string, args: string[]) =>
    root ? execFileSync("runuser", ["-u", "postgres", "--", command, ...args]) : execFileSync(command, args);
  const port = await freePort();
  as(`${bin}/initdb`, ["-D", dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale"]);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off`;
  const start = () =>
    as(`${bin}/pg_ctl`, ["-D", dir, "-l", join(dir, "server.log"), "-w", "-t", "60", "-o", options, "start"]);
  const stop = () => as(`${bin}/pg_ctl`, ["-D", dir, "-m", "fast", "-w", "stop"]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    remove: () => {
      try {
        stop();
      } catch {
        // Stopped already.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A preload that makes every write to a file under `ARBOR_FAULT_DIR` fail with ENOSPC while the trigger exists. */
const ENOSPC_PRELOAD = `
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const dir = process.env.ARBOR_FAULT_DIR;
const trigger = process.env.ARBOR_FAULT_TRIGGER;
const exists = fs.existsSync;
const paths = new Map();
const open = fs.openSync;
fs.openSync = function (path, ...rest) {
  const fd = open.call(this, path, ...rest);
  paths.set(fd, String(path));
  return fd;
};
const write = fs.writeSync;
fs.writeSync = function (fd, ...rest) {
  if (typeof fd === "number" && (paths.get(fd) ?? "").startsWith(dir) && exists(trigger)) {
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28, syscall: "write" });
  }
  return write.call(this, fd, ...rest);
};
syncBuiltinESMExports();
`;

/** Whether `chattr +i` works here (root on a file system that supports it). */
function chattrWorks(): boolean {
  const dir = mkdtempSync(join(tmpdir(), "arbor-chattr-"));
  const file = join(dir, "probe");
  writeFileSync(file, "x");
  try {
    execFileSync("chattr", ["+i", file], { stdio: "ignore" });
    execFileSync("chattr", ["-i", file], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const SQLITE_PACKAGE = fileURLToPath(new URL("../../packages/session-store-sqlite/", import.meta.url));

/** Another process holding the SQLite database's write lock (`BEGIN EXCLUSIVE`) until killed. */
async function lockDatabase(file: string): Promise<() => Promise<void>> {
  const script = `
const Database = require("better-sqlite3");
const db = new Database(process.argv[1]);
db.pragma("busy_timeout = 10000");
db.exec("BEGIN EXCLUSIVE");
process.stdout.write("locked\\n");
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["-e", script, file], {
    cwd: SQLITE_PACKAGE,
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("locked")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`the lock holder exited (${code})`)));
  });
  return async () => {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
}

type StoreName = "jsonl" | "sqlite" | "postgres";

/** What a fault needs from its trial. */
interface TrialContext {
  box: Box;
  sessionId: string;
  /** Where the ENOSPC preload's trigger file goes. */
  trigger: string;
}

/** One kind of fault: how it starts (returning how it ends), and whether it ends within the retry window. */
interface FaultKind {
  store: StoreName;
  name: string;
  /** `saveRetryMs` of the trial's settings. */
  windowMs: number;
  /** Ends the fault after this long (within the window), or after `arbor` exited when undefined. */
  endsAfterMs?: number;
  env?: (context: TrialContext) => Record<string, string>;
  start(context: TrialContext): Promise<() => Promise<void>>;
}

let cluster: Cluster | undefined;

function jsonlFile(box: Box, sessionId: string): string | undefined {
  const sessions = join(box.home, "sessions");
  for (const directory of existsSync(sessions) ? readdirSync(sessions) : []) {
    const name = readdirSync(join(sessions, directory)).find((file) => file.endsWith(`_${sessionId}.jsonl`));
    if (name !== undefined) return join(sessions, directory, name);
  }
  return undefined;
}

function enospcEnv(context: TrialContext): Record<string, string> {
  const preload = join(context.box.root, "enospc.mjs");
  writeFileSync(preload, ENOSPC_PRELOAD);
  return {
    NODE_OPTIONS: `--import=${preload}`,
    ARBOR_FAULT_DIR: join(context.box.home, "sessions"),
    ARBOR_FAULT_TRIGGER: context.trigger,
  };
}

const diskFull = async (context: TrialContext) => {
  writeFileSync(context.trigger, "full");
  return async () => rmSync(context.trigger, { force: true });
};

const KINDS: FaultKind[] = [
  {
    store: "jsonl",
    name: "session file made immutable (chattr +i), past the retry window",
    windowMs: 1_500,
    async start({ box, sessionId }) {
      const file = jsonlFile(box, sessionId) as string;
      execFileSync("chattr", ["+i", file]);
      return async () => {
        execFileSync("chattr", ["-i", file]);
      };
    },
  },
  {
    store: "jsonl",
    name: "disk full (ENOSPC injected), past the retry window",
    windowMs: 1_500,
    env: enospcEnv,
    start: diskFull,
  },
  {
    store: "jsonl",
    name: "disk full (ENOSPC injected), freed within the retry window",
    windowMs: 20_000,
    endsAfterMs: 2_000,
    env: enospcEnv,
    start: diskFull,
  },
  {
    store: "sqlite",
    name: "database locked by another process, past the retry window",
    windowMs: 1_500,
    start: ({ box }) => lockDatabase(join(box.home, "sessions.db")),
  },
  {
    store: "sqlite",
    name: "database locked by another process, released within the retry window",
    windowMs: 20_000,
    endsAfterMs: 7_000,
    start: ({ box }) => lockDatabase(join(box.home, "sessions.db")),
  },
  {
    store: "postgres",
    name: "server stopped, restarted after the retry window",
    windowMs: 2_000,
    async start() {
      cluster?.stop();
      return async () => cluster?.start();
    },
  },
  {
    store: "postgres",
    name: "server stopped, restarted within the retry window",
    windowMs: 20_000,
    endsAfterMs: 3_000,
    async start() {
      cluster?.stop();
      return async () => cluster?.start();
    },
  },
];

function storeFlags(store: StoreName, box: Box): string[] {
  if (store === "sqlite") return ["--store", `sqlite:${join(box.home, "sessions.db")}`];
  if (store === "postgres") return ["--store", (cluster as Cluster).url];
  return [];
}

function openLibraryStore(store: StoreName, box: Box): SessionStore {
  if (store === "postgres") return PostgresSessionStore.fromUrl((cluster as Cluster).url);
  return libraryStore({ name: store, flags: () => [] }, box);
}

/** Tool calls and executed results among entries (a result "Not run: …" did not run). */
function toolFacts(entries: readonly SessionEntry[]): { calls: Set<string>; results: Set<string> } {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const entry of entries) {
    if (entry.type !== "message") continue;
    const message = entry.message as { role: string; content?: unknown; toolCallId?: string };
    if (message.role === "assistant" && Array.isArray(message.content)) {
      for (const block of message.content as { type: string; id?: string }[])
        if (block.type === "toolCall" && block.id !== undefined) calls.add(block.id);
    }
    const text = JSON.stringify(message.content ?? "");
    if (message.role === "toolResult" && message.toolCallId !== undefined && !text.includes("Not run:"))
      results.add(message.toolCallId);
  }
  return { calls, results };
}

async function storedEntries(store: StoreName, box: Box, sessionId: string): Promise<SessionEntry[]> {
  const library = openLibraryStore(store, box);
  try {
    return (await library.readSession(sessionId)).entries.map((entry) => entry.entry());
  } catch {
    return [];
  } finally {
    await library.close?.();
  }
}

/** The entries of a session's recovery files, and their paths. */
function recoveryEntries(box: Box, sessionId: string): { files: string[]; entries: SessionEntry[] } {
  const dir = join(box.home, "recovery", encodeURIComponent(sessionId));
  const files = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".jsonl")) : [];
  const entries = files.flatMap((name) =>
    readFileSync(join(dir, name), "utf8")
      .split("\n")
      .filter(Boolean)
      .slice(1)
      .map((line) => JSON.parse(line) as SessionEntry),
  );
  return { files: files.map((name) => join(dir, name)), entries };
}

/** What one trial measured. */
interface Outcome {
  problems: string[];
  /** Tool runs (from the log the commands write). */
  ran: number;
  /** Tool runs whose call the store did not hold: run after a failed save. */
  afterFailure: number;
  /** Entries the store holds after the run, and entries only a recovery file holds. */
  committed: number;
  kept: number;
  /** Tool runs whose result is neither in the store nor in a recovery file. */
  lost: number;
  recovered: boolean | undefined;
  /** The store failed at least once (a retry or a recovery file): the trial exercised the fault. */
  exercised: boolean;
}

async function runTrial(kind: FaultKind, seed: number): Promise<Outcome> {
  const box = sandbox();
  writeFileSync(join(box.home, "settings.json"), JSON.stringify({ saveRetryMs: kind.windowMs }));
  const sessionId = `faults-${kind.store}-${KINDS.indexOf(kind)}-${seed}-${process.pid}`;
  const log = join(box.root, "ran.log");
  const context: TrialContext = { box, sessionId, trigger: join(box.root, "disk-full") };
  const loop = await startLoopServer(log);
  const answer = await startStrictServer({ answer: "Continued." });
  try {
    return await faultAndCheck(kind, seed, context, loop, answer, log);
  } finally {
    await loop.close();
    await answer.close();
  }
}

function ranIds(log: string): string[] {
  return existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
}

async function faultAndCheck(
  kind: FaultKind,
  seed: number,
  context: TrialContext,
  loop: StrictServer,
  answer: StrictServer,
  log: string,
): Promise<Outcome> {
  const { box, sessionId } = context;
  const flags = storeFlags(kind.store, box);
  const env = kind.env?.(context) ?? {};
  const child = startArbor(
    box,
    ["-p", "run the steps", "--session", sessionId, ...flags, ...serverFlags(loop)],
    {
      env,
    },
  );
  const done = finished(child, 120_000);
  // The fault starts after 1 to 4 tools ran, at a random point of the loop.
  const after = 1 + (seed % 4);
  const waitUntil = Date.now() + 60_000;
  while (ranIds(log).length < after && child.exitCode === null && Date.now() < waitUntil) await sleep(5);
  const end = await kind.start(context);
  let ended = false;
  if (kind.endsAfterMs !== undefined) {
    await sleep(kind.endsAfterMs);
    await end();
    ended = true;
  }
  const run = await done;
  if (!ended) await end();

  const problems: string[] = [];
  const ran = ranIds(log);
  const inStore = await storedEntries(kind.store, box, sessionId);
  const stored = toolFacts(inStore);
  const recovery = recoveryEntries(box, sessionId);
  const storedIds = new Set(inStore.map((entry) => entry.id));
  const kept = toolFacts(recovery.entries);
  const afterFailure = ran.filter((id) => !stored.calls.has(id)).length;
  const lost = ran.filter((id) => !stored.results.has(id) && !kept.results.has(id)).length;
  const exercised = /retrying for up to/.test(run.stderr) || recovery.files.length > 0;
  if (run.hung) problems.push("arbor hung");
  if (STACK_TRACE.test(run.stderr)) problems.push(`a stack trace: ${run.stderr.slice(0, 300)}`);
  if (afterFailure > 0)
    problems.push(`${afterFailure} tool(s) ran after a failed save (their call is not stored)`);
  if (lost > 0) problems.push(`${lost} tool run(s) recorded nowhere`);
  if (kind.endsAfterMs !== undefined) {
    // The store came back within the window: the run goes on and completes, nothing is kept aside.
    if (run.code !== 0 || !run.stdout.includes("All steps are done.")) {
      problems.push(`exit ${run.code} although the store came back: ${run.stderr.slice(0, 300)}`);
    }
    if (recovery.files.length > 0) problems.push("a recovery file although the store came back");
    if (ran.length !== STEPS) problems.push(`${ran.length} of ${STEPS} steps ran`);
  } else {
    if (run.code === 0) problems.push("exit 0 although the store stayed down");
    if (recovery.files.length === 0) problems.push(`no recovery file: ${run.stderr.slice(0, 300)}`);
    const path = recovery.files[0];
    if (path !== undefined && !run.stderr.includes(path)) problems.push(`stderr does not name ${path}`);
    if (!/arbor sessions recover/.test(run.stderr)) problems.push("stderr does not say how to recover");
  }
  let recovered: boolean | undefined;
  if (recovery.files.length > 0) {
    const recover = await runArbor(box, ["sessions", ...flags, "recover", sessionId]);
    const before = answer.violations.length;
    const resume = await runArbor(box, ["-r", sessionId, "-p", "continue", ...flags, ...serverFlags(answer)]);
    const after = toolFacts(await storedEntries(kind.store, box, sessionId));
    const missing = ran.filter((id) => !after.results.has(id)).length;
    recovered =
      recover.code === 0 &&
      resume.code === 0 &&
      resume.stdout.trim() === "Continued." &&
      answer.violations.length === before &&
      missing === 0;
    if (!recovered) {
      problems.push(
        `not recovered: recover exit ${recover.code} (${recover.stderr.slice(0, 200)}), -r exit ${resume.code} ` +
          `(${resume.stderr.slice(0, 200)}), ${missing} result(s) missing, violations ${answer.violations.slice(before).join("; ")}`,
      );
    }
  }
  return {
    problems,
    ran: ran.length,
    afterFailure,
    committed: inStore.length,
    kept: recovery.entries.filter((entry) => !storedIds.has(entry.id)).length,
    lost,
    recovered,
    exercised,
  };
}

function unavailable(
  kind: FaultKind,
  clusterProblem: string | undefined,
  chattr: boolean,
): string | undefined {
  if (kind.store === "postgres") return clusterProblem;
  if (kind.name.includes("chattr") && !chattr)
    return "chattr +i needs root on a file system that supports it";
  return undefined;
}

describe("store faults: the store fails mid tool loop", () => {
  let clusterProblem: string | undefined;
  const chattr = chattrWorks();
  beforeAll(async () => {
    const started = await startCluster().catch((error: unknown) => String(error));
    if (typeof started === "string") clusterProblem = started;
    else cluster = started;
  }, 120_000);
  afterAll(() => cluster?.remove());

  for (const store of ["jsonl", "sqlite", "postgres"] as const) {
    it.concurrent(`${store}: no tool runs after a failed save, nothing that ran is lost, recover restores`, async ({
      expect,
      skip,
    }) => {
      if (store === "postgres" && clusterProblem !== undefined) {
        if (process.env.CI === "true") expect.fail(`CI=true but no PostgreSQL cluster: ${clusterProblem}`);
        skip(clusterProblem);
      }
      const failures: string[] = [];
      for (const kind of KINDS.filter((item) => item.store === store)) {
        const reason = unavailable(kind, clusterProblem, chattr);
        if (reason !== undefined) {
          record({
            category: "store faults",
            kind: `${store}: ${kind.name}`,
            trials: 0,
            failures: 0,
            lost: `skipped: ${reason}`,
          });
          continue;
        }
        const count = trials(2, 10);
        const seeds = Array.from({ length: count }, (_, index) => index + 1);
        // A stopped PostgreSQL server is shared by its trials: one at a time.
        const outcomes = await inParallel(seeds, store === "postgres" ? 1 : gate, async (seed) => ({
          seed,
          outcome: await runTrial(kind, seed),
        }));
        const failed = outcomes.filter(({ outcome }) => outcome.problems.length > 0);
        const sum = (pick: (outcome: Outcome) => number) =>
          outcomes.reduce((total, { outcome }) => total + pick(outcome), 0);
        const recoveredTrials = outcomes.filter(({ outcome }) => outcome.recovered === true).length;
        const recoverable = outcomes.filter(({ outcome }) => outcome.recovered !== undefined).length;
        const summary =
          `tool runs ${sum((o) => o.ran)}, after a failed save ${sum((o) => o.afterFailure)}, ` +
          `entries committed ${sum((o) => o.committed)}, kept in a recovery file ${sum((o) => o.kept)}, ` +
          `tool runs lost ${sum((o) => o.lost)}, recovered ${recoverable === 0 ? "n/a" : `${recoveredTrials}/${recoverable}`}`;
        record({
          category: "store faults",
          kind: `${store}: ${kind.name}`,
          trials: count,
          failures: failed.length,
          lost:
            failed.length === 0
              ? `nothing (${summary})`
              : `${summary}; ${failed.map((f) => `seed ${f.seed}: ${f.outcome.problems[0]}`).join("; ")}`,
        });
        failures.push(...failed.map((f) => `${kind.name}, seed ${f.seed}: ${f.outcome.problems.join("; ")}`));
        // The fault was real: every trial's store refused at least once.
        const idle = outcomes.filter(({ outcome }) => !outcome.exercised).length;
        if (idle > 0) failures.push(`${kind.name}: ${idle} trial(s) never met the fault`);
      }
      expect(failures).toEqual([]);
    });
  }
});
