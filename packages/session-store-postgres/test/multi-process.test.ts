import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { Session } from "@arbor/session-store";
import { expect, it } from "vitest";
import { PostgresSessionStore } from "../src/index.js";
import { describeWithPostgres, temporarySchema } from "./database.js";

const WORKERS = 4;
const ROUNDS = 15;
const BATCH = 3;

interface WorkerReport {
  appended: string[];
  conflicts: number;
  errors: string[];
}

/** Starts a worker and resolves once it is ready; `done` resolves with its report. */
function startWorker(
  schema: string,
  args: string[],
): Promise<{ child: ChildProcess; done: Promise<WorkerReport> }> {
  const script = join(import.meta.dirname, "fixtures", "append-worker.ts");
  const child = spawn(process.execPath, ["--conditions=@arbor/source", "--import", "tsx", script, ...args], {
    cwd: join(import.meta.dirname, ".."),
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ARBOR_TEST_SCHEMA: schema },
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<WorkerReport>((resolve, reject) => {
    child.on("exit", (code) => {
      const line = stdout.trim().split("\n").at(-1) ?? "";
      if (code === 0 && line.startsWith("{")) resolve(JSON.parse(line) as WorkerReport);
      else reject(new Error(`worker exited ${code}: ${stderr}`));
    });
  });
  return new Promise((resolve) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.startsWith("ready\n")) resolve({ child, done });
    });
    done.catch(() => resolve({ child, done }));
  });
}

describeWithPostgres("PostgresSessionStore across processes", (url) => {
  const schema = temporarySchema(url);

  it("4 processes append to one session at once: nothing lost or doubled, every loser told", async () => {
    const store = PostgresSessionStore.fromUrl(url, { schema });
    const sessionId = "shared-session";
    await store.createSession({
      type: "session",
      version: 3,
      id: sessionId,
      timestamp: new Date().toISOString(),
      cwd: "/w",
    });
    const workers = await Promise.all(
      Array.from({ length: WORKERS }, (_, worker) =>
        startWorker(schema, [url, sessionId, String(worker), String(ROUNDS), String(BATCH)]),
      ),
    );
    for (const { child } of workers) child.stdin!.end("go\n");
    const reports = await Promise.all(workers.map(({ done }) => done));

    expect(reports.flatMap((report) => report.errors)).toEqual([]);
    const read = await store.readSession(sessionId);
    const ids = read.entries.map((entry) => entry.id);
    expect(ids).toHaveLength(WORKERS * ROUNDS * BATCH);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(reports.flatMap((report) => report.appended)));
    // Conflicts happened and were all SessionConflictError (anything else is in `errors`).
    expect(reports.reduce((sum, report) => sum + report.conflicts, 0)).toBeGreaterThan(0);
    // The tree is one valid chain: every entry's parent is the entry before it.
    expect(read.entries.map((entry) => entry.parentId)).toEqual([null, ...ids.slice(0, -1)]);
    const session = await Session.open(store, sessionId);
    expect(session.buildContext().messages).toHaveLength(ids.length);
    await store.close();
  }, 120_000);
});
