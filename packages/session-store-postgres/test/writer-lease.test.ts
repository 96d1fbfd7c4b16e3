import { type ChildProcess, spawn } from "node:child_process";
import { hostname } from "node:os";
import { join } from "node:path";
import { SessionLockedError } from "@arbor/session-store";
import pg from "pg";
import { afterEach, expect, it, vi } from "vitest";
import { PostgresSessionStore } from "../src/index.js";
import { describeWithPostgres, temporarySchema } from "./database.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** A second process holding the lease of `sessionId`; resolves once it holds it. */
function startHolder(schema: string, sessionId: string): Promise<ChildProcess> {
  const script = join(import.meta.dirname, "fixtures", "lease-holder.ts");
  const child = spawn(
    process.execPath,
    ["--conditions=@arbor/source", "--import", "tsx", script, sessionId],
    {
      cwd: join(import.meta.dirname, ".."),
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, ARBOR_TEST_SCHEMA: schema },
    },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`holder exited (${code}) before it was ready: ${stderr}`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

describeWithPostgres("the PostgreSQL writer lease", (url) => {
  const schema = temporarySchema(url);
  let sessions = 0;
  async function session(store: PostgresSessionStore): Promise<string> {
    const id = `lease-${process.pid}-${sessions++}`;
    await store.createSession({
      type: "session",
      version: 3,
      id,
      timestamp: "2026-01-01T00:00:00Z",
      cwd: "/w",
    });
    return id;
  }

  it("is an advisory lock of a connection of its own; refuses another process at once, naming it", async () => {
    const store = PostgresSessionStore.fromUrl(url, { schema });
    const id = await session(store);
    const holder = await startHolder(schema, id);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const { rows } = await admin.query(
      `SELECT pid, host, since FROM "${schema}".leases WHERE session_id = $1`,
      [id],
    );
    const { rows: locks } = await admin.query(
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted",
    );
    await admin.end();
    expect(rows).toEqual([{ pid: holder.pid, host: hostname(), since: expect.any(String) }]);
    expect(locks[0]?.n).toBeGreaterThanOrEqual(1);
    const error = await store.acquireWriterLease(id).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionLockedError);
    expect((error as Error).message).toBe(
      `Session "${id}" is open for writing by pid ${holder.pid}@${hostname()} since ${rows[0]?.since}. ` +
        "Close it there, or open this one read-only.",
    );
    // Readers are not refused.
    expect((await store.readSession(id)).header.id).toBe(id);
    holder.stdin!.write("exit\n");
    await exited(holder);
    await vi.waitFor(async () => (await store.acquireWriterLease(id)).release(), {
      timeout: 10_000,
      interval: 50,
    });
    await store.close();
  });

  it("goes with the connection of a process killed with SIGKILL", async () => {
    const store = PostgresSessionStore.fromUrl(url, { schema });
    const id = await session(store);
    const holder = await startHolder(schema, id);
    await expect(store.acquireWriterLease(id)).rejects.toBeInstanceOf(SessionLockedError);
    holder.kill("SIGKILL");
    await exited(holder);
    const lease = await vi.waitFor(() => store.acquireWriterLease(id), { timeout: 10_000, interval: 50 });
    expect(lease.holder).toMatch(new RegExp(`^pid ${process.pid}@`));
    await lease.release();
    await store.close();
  });
});
