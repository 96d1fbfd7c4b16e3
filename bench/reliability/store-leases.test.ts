/**
 * Store leases: a second `arbor` on a session another `arbor` writes is refused before it sends any model
 * request, in one line naming the holder (JSONL, SQLite, PostgreSQL); the lease goes with a normal exit,
 * Ctrl-C, an error and (taken over) a kill -9. For SQLite also: readers (`sessions list`, `show`) answer at
 * once while another process holds a write transaction, and a read-only database is listed and shown.
 */
import { spawn } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { hostname } from "node:os";
import { join } from "node:path";
import { openAIErrorReply, startOpenAIWireServer } from "@internal/conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { libraryStore, reopen } from "./stored.js";
import {
  arborCommand,
  type Box,
  finished,
  postgresRequiredInCi,
  type Run,
  record,
  runArbor,
  STACK_TRACE,
  type StoreUnderTest,
  type StrictServer,
  sandbox,
  serverFlags,
  startArbor,
  startStrictServer,
  storesUnderTest,
  trials,
} from "./support.js";

const CATEGORY = "store leases";

/** Answers at once (no tool round): the set-up runs and the writers after a holder. */
let plain: StrictServer;
beforeAll(async () => {
  plain = await startStrictServer({ answer: "Answered at once." });
});
afterAll(async () => {
  await plain?.close();
});

/**
 * A server whose one tool round runs a command that waits for a release file: a holder stays in the
 * middle of its run (its lease held) for as long as the trial needs, however slowly processes start.
 */
function holdingServer(box: Box, name: string): Promise<StrictServer> {
  const release = join(box.root, `${name}.release`);
  return startStrictServer({
    toolRounds: 1,
    frameDelayMs: 5,
    command: `for i in $(seq 1 1200); do [ -e ${release} ] && break; sleep 0.05; done; echo released`,
  });
}

/** Lets a holder started against {@link holdingServer} finish its run. */
function releaseHolder(box: Box, name: string): void {
  writeFileSync(join(box.root, `${name}.release`), "");
}

/** Waits until `server` has received a request whose body holds `text` (the process has sent its first). */
async function requestHolding(server: StrictServer, text: string, timeoutMs = 30_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (server.requests.some((request) => JSON.stringify(request.body ?? {}).includes(text))) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** The requests whose body holds `text`. */
function requestsHolding(server: StrictServer, text: string): number {
  return server.requests.filter((request) => JSON.stringify(request.body ?? {}).includes(text)).length;
}

/** A session `id` with one exchange, written by a first `arbor`. */
async function storedSession(box: Box, store: StoreUnderTest, server: StrictServer, id: string) {
  const run = await runArbor(box, [
    "-p",
    "set the session up",
    "--session",
    id,
    ...store.flags(box),
    ...serverFlags(server),
  ]);
  return run.code === 0 ? undefined : `set-up run failed (exit ${run.code}): ${run.stderr.trim()}`;
}

/** The one line a refused writer prints, naming the holder's pid. */
function refusal(id: string, pid: number | undefined): RegExp {
  return new RegExp(
    `^arbor: Session "${id}" is open for writing by pid ${pid}@${hostname().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} since \\d{4}-`,
  );
}

/** Problems of a refused run: exit 1, one line naming the holder, no stack trace, no model request. */
function refusedProblems(run: Run, id: string, holderPid: number | undefined, requests: number): string[] {
  const problems: string[] = [];
  const lines = run.stderr.split("\n").filter((line) => line.trim() !== "");
  if (run.hung) problems.push("the second process hung");
  if (run.code !== 1)
    problems.push(`the second process exited ${run.code} (${run.stderr.trim().slice(0, 200)})`);
  if (lines.length !== 1 || !refusal(id, holderPid).test(lines[0] ?? ""))
    problems.push(`the second process said ${JSON.stringify(lines)}`);
  if (STACK_TRACE.test(run.stderr)) problems.push("the second process printed a stack trace");
  if (requests > 0) problems.push(`the second process sent ${requests} model request(s)`);
  return problems;
}

/** One trial: a holder resumes `id` and runs a tool loop; a second `-r <id>` or `-c` must be refused. */
async function secondWriterTrial(box: Box, store: StoreUnderTest, round: number): Promise<string[]> {
  const id = `lease-${store.name}-${round}-${process.pid}`;
  const setUp = await storedSession(box, store, plain, id);
  if (setUp !== undefined) return [setUp];
  const server = await holdingServer(box, id);
  try {
    const holder = startArbor(box, [
      "-r",
      id,
      "-p",
      `holder ${id}`,
      ...store.flags(box),
      ...serverFlags(server),
    ]);
    const holderDone = finished(holder, 60_000);
    if (!(await requestHolding(server, `holder ${id}`))) {
      releaseHolder(box, id);
      await holderDone;
      return ["the holder sent no request"];
    }
    const second = `second ${id}`;
    // Even rounds resume by id, odd ones continue the newest session of the directory (the same one).
    const how = round % 2 === 0 ? ["-r", id] : ["-c"];
    const run = await runArbor(box, [...how, "-p", second, ...store.flags(box), ...serverFlags(server)]);
    const problems = refusedProblems(run, id, holder.pid, requestsHolding(server, second));
    releaseHolder(box, id);
    const held = await holderDone;
    if (held.code !== 0) problems.push(`the holder exited ${held.code}: ${held.stderr.trim().slice(0, 200)}`);
    // Released on a normal exit: the next writer goes through.
    const after = await runArbor(box, [
      "-r",
      id,
      "-p",
      `after ${id}`,
      ...store.flags(box),
      ...serverFlags(plain),
    ]);
    if (after.code !== 0)
      problems.push(`after the holder exited: exit ${after.code}: ${after.stderr.trim()}`);
    return problems;
  } finally {
    await server.close();
  }
}

/** The holder ends by Ctrl-C, by an error (a 401), or by SIGKILL; the next writer must get the lease. */
async function releaseTrial(
  box: Box,
  store: StoreUnderTest,
  end: "sigint" | "error" | "sigkill",
): Promise<string[]> {
  const id = `release-${store.name}-${end}-${process.pid}`;
  const setUp = await storedSession(box, store, plain, id);
  if (setUp !== undefined) return [setUp];
  const server = await holdingServer(box, id);
  const failing = await startOpenAIWireServer([openAIErrorReply(401, "invalid api key")]);
  try {
    const problems: string[] = [];
    if (end === "error") {
      const run = await runArbor(box, [
        "-r",
        id,
        "-p",
        "fail now",
        ...store.flags(box),
        ...serverFlags(failing),
      ]);
      if (run.code !== 1) problems.push(`the failing holder exited ${run.code}`);
    } else {
      const holder = startArbor(box, [
        "-r",
        id,
        "-p",
        `holder ${id}`,
        ...store.flags(box),
        ...serverFlags(server),
      ]);
      const done = finished(holder, 60_000);
      if (!(await requestHolding(server, `holder ${id}`))) problems.push("the holder sent no request");
      holder.kill(end === "sigint" ? "SIGINT" : "SIGKILL");
      const run = await done;
      if (run.hung) problems.push("the holder did not stop");
      if (end === "sigint" && run.code === 0) problems.push("the holder exited 0 after Ctrl-C");
    }
    releaseHolder(box, id);
    const next = await runArbor(box, [
      "-r",
      id,
      "-p",
      `next ${id}`,
      ...store.flags(box),
      ...serverFlags(plain),
    ]);
    if (next.code !== 0) problems.push(`the next writer exited ${next.code}: ${next.stderr.trim()}`);
    const found = await reopen(libraryStore(store, box), id);
    if (found.error !== undefined || found.missing)
      problems.push(`does not open: ${found.error ?? "missing"}`);
    problems.push(...found.orphans);
    return problems;
  } finally {
    await server.close();
    await failing.close();
  }
}

/** The part of a better-sqlite3 connection the reader trial uses. */
interface SqliteConnection {
  exec(sql: string): void;
  prepare(sql: string): { run(...parameters: unknown[]): unknown };
  close(): void;
}

/** better-sqlite3 as the SQLite store loads it (the bench does not depend on it directly). */
function betterSqlite(): new (file: string) => SqliteConnection {
  const storePackage = createRequire(import.meta.url).resolve("@arbor/session-store-sqlite/package.json");
  return createRequire(storePackage)("better-sqlite3") as new (
    file: string,
  ) => SqliteConnection;
}

/** `sessions list` and `sessions show` while this process holds a write transaction on the file. */
async function readerTrial(box: Box, store: StoreUnderTest): Promise<string[]> {
  const id = `reader-${process.pid}`;
  const setUp = await storedSession(box, store, plain, id);
  if (setUp !== undefined) return [setUp];
  const Database = betterSqlite();
  const db = new Database(join(box.home, "sessions.db"));
  db.exec("BEGIN IMMEDIATE");
  db.prepare("UPDATE arbor_sessions SET name = 'held' WHERE id = ?").run(id);
  const problems: string[] = [];
  try {
    // 20 s: a reader that waited for the writer would fail at the 5 s busy timeout, long before.
    for (const args of [
      ["sessions", "list"],
      ["sessions", "show", id],
    ]) {
      const run = await runArbor(box, [...args, ...store.flags(box)], { timeoutMs: 20_000 });
      // The listing shows the first 8 characters of an id.
      if (run.code !== 0 || !run.stdout.includes(id.slice(0, 8)))
        problems.push(
          `${args.join(" ")}: exit ${run.code}${run.hung ? " (hung)" : ""}: ${run.stderr.trim()}`.slice(
            0,
            300,
          ),
        );
    }
  } finally {
    db.exec("ROLLBACK");
    db.close();
  }
  return problems;
}

/** `sessions list` and `show` of a database in a directory this user cannot write (as nobody when root). */
async function readOnlyTrial(box: Box, store: StoreUnderTest): Promise<string[]> {
  const id = `read-only-${process.pid}`;
  const setUp = await storedSession(box, store, plain, id);
  if (setUp !== undefined) return [setUp];
  const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
  for (const path of [box.root, box.home, box.cwd]) chmodSync(path, 0o755);
  chmodSync(join(box.home, "sessions.db"), 0o444);
  chmodSync(box.home, 0o555);
  const problems: string[] = [];
  try {
    for (const args of [
      ["sessions", "list"],
      ["sessions", "show", id],
    ]) {
      const child = spawn(process.execPath, [...arborCommand(), ...args, ...store.flags(box)], {
        cwd: box.cwd,
        env: box.env,
        stdio: ["pipe", "pipe", "pipe"],
        ...user,
      });
      child.stdin.end();
      const run = await finished(child, 30_000);
      // The listing shows the first 8 characters of an id.
      if (run.code !== 0 || !run.stdout.includes(id.slice(0, 8)))
        problems.push(
          `${args.join(" ")}: exit ${run.code}${run.hung ? " (hung)" : ""}: ${run.stderr.trim()}`.slice(
            0,
            300,
          ),
        );
    }
  } finally {
    chmodSync(box.home, 0o755);
  }
  return problems;
}

describe("store leases", () => {
  const missingPostgres = postgresRequiredInCi();
  if (missingPostgres !== undefined) it("PostgreSQL", () => expect.fail(missingPostgres));

  for (const store of storesUnderTest()) {
    it.concurrent(`${store.name}: a second writer is refused before any model request`, async ({
      expect,
    }) => {
      const box = sandbox();
      const rounds = trials(2, 10);
      const failures: string[] = [];
      for (let round = 0; round < rounds; round++) {
        const problems = await secondWriterTrial(box, store, round);
        if (problems.length > 0) failures.push(`round ${round}: ${problems.join("; ")}`);
      }
      record({
        category: CATEGORY,
        kind: `${store.name}: second \`arbor -r\`/\`-c\` on a session another arbor writes (refused, no request)`,
        trials: rounds,
        failures: failures.length,
        lost: failures.length === 0 ? "nothing" : failures.join(" | "),
      });
      expect(failures).toEqual([]);
    });

    it.concurrent(`${store.name}: the lease goes with Ctrl-C, an error and kill -9`, async ({ expect }) => {
      const box = sandbox();
      const ends = ["sigint", "error", "sigkill"] as const;
      const rounds = trials(1, 5);
      const failures: string[] = [];
      for (let round = 0; round < rounds; round++) {
        for (const end of ends) {
          const problems = await releaseTrial(sandboxFor(box, round), store, end);
          if (problems.length > 0) failures.push(`${end} (round ${round}): ${problems.join("; ")}`);
        }
      }
      record({
        category: CATEGORY,
        kind: `${store.name}: holder ends by Ctrl-C, by an error, by kill -9; the next writer gets the lease`,
        trials: rounds * ends.length,
        failures: failures.length,
        lost: failures.length === 0 ? "nothing" : failures.join(" | "),
      });
      expect(failures).toEqual([]);
    });
  }

  const sqlite = storesUnderTest().find((store) => store.name === "sqlite") as StoreUnderTest;
  it.concurrent("sqlite: readers answer during a write transaction; a read-only database lists", async ({
    expect,
  }) => {
    const failures: string[] = [];
    const rounds = trials(1, 5);
    for (let round = 0; round < rounds; round++) {
      const reader = await readerTrial(sandbox(), sqlite);
      if (reader.length > 0) failures.push(`reader (round ${round}): ${reader.join("; ")}`);
      const readOnly = await readOnlyTrial(sandbox(), sqlite);
      if (readOnly.length > 0) failures.push(`read-only (round ${round}): ${readOnly.join("; ")}`);
    }
    record({
      category: CATEGORY,
      kind: "sqlite: `sessions list`/`show` during another process's write transaction, and of a read-only file and directory",
      trials: rounds * 2,
      failures: failures.length,
      lost: failures.length === 0 ? "nothing" : failures.join(" | "),
    });
    expect(failures).toEqual([]);
  });
});

/** Each round of release trials in a box of its own (the sessions of a round share a store). */
function sandboxFor(box: Box, round: number): Box {
  return round === 0 ? box : sandbox();
}
