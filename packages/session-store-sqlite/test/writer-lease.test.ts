import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { SessionLockedError } from "@arbor/session-store";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSessionStore } from "../src/index.js";
import { exited, startHolder } from "./processes.js";

const directory = mkdtempSync(join(tmpdir(), "arbor-sqlite-leases-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;

/** A database holding session `s` (closed again). */
async function database(): Promise<string> {
  const file = join(directory, `leases-${files++}.db`);
  const store = new SqliteSessionStore({ file });
  await store.createSession({
    type: "session",
    version: 3,
    id: "s",
    timestamp: "2026-01-01T00:00:00Z",
    cwd: "/w",
  });
  await store.close();
  return file;
}

function leaseRows(file: string): { pid: number; host: string; since: string; heartbeat_ms: number }[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT pid, host, since, heartbeat_ms FROM arbor_leases").all() as never;
  } finally {
    db.close();
  }
}

describe("the SQLite writer lease", () => {
  it("refuses another process at once, naming it; is deleted when that process exits without closing", async () => {
    const file = await database();
    const holder = await startHolder(file, "s", "lease");
    const [row] = leaseRows(file);
    expect(row).toMatchObject({ pid: holder.pid, host: hostname() });
    const store = new SqliteSessionStore({ file });
    const error = await store.acquireWriterLease("s").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionLockedError);
    expect((error as Error).message).toBe(
      `Session "s" is open for writing by pid ${holder.pid}@${hostname()} since ${row?.since}. ` +
        "Close it there, or open this one read-only.",
    );
    // Readers are not refused.
    expect((await store.listSessions()).sessions.map((summary) => summary.id)).toEqual(["s"]);
    holder.stdin!.write("exit\n");
    await exited(holder);
    expect(leaseRows(file)).toEqual([]);
    const lease = await store.acquireWriterLease("s");
    expect(lease.holder).toMatch(new RegExp(`^pid ${process.pid}@`));
    await store.close();
    expect(leaseRows(file)).toEqual([]);
  });

  it("takes over the lease of a process killed with SIGKILL (its pid is gone)", async () => {
    const file = await database();
    const holder = await startHolder(file, "s", "lease");
    holder.kill("SIGKILL");
    await exited(holder);
    expect(leaseRows(file).map((row) => row.pid)).toEqual([holder.pid]); // left behind
    const store = new SqliteSessionStore({ file });
    const lease = await store.acquireWriterLease("s");
    expect(leaseRows(file).map((row) => row.pid)).toEqual([process.pid]);
    await lease.release();
    await store.close();
  });

  it("judges another host's lease by its heartbeat only", async () => {
    const file = await database();
    const store = new SqliteSessionStore({ file, leaseStaleAfterMs: 5_000 });
    await store.acquireWriterLease("s").then((lease) => lease.release());
    const db = new Database(file);
    const plant = (heartbeat: number) =>
      db
        .prepare(
          `INSERT OR REPLACE INTO arbor_leases (session_id, token, pid, host, process_start, since, heartbeat_ms)
           VALUES ('s', 'elsewhere', 4242, 'another-host', NULL, '2026-01-01T00:00:00.000Z', ?)`,
        )
        .run(heartbeat);
    plant(Date.now());
    const error = await store.acquireWriterLease("s").catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(
      'Session "s" is open for writing by pid 4242@another-host since 2026-01-01T00:00:00.000Z (another ' +
        "host: taken over once it has not renewed the lease for 5 s). Close it there, or open this one read-only.",
    );
    plant(Date.now() - 6_000);
    const lease = await store.acquireWriterLease("s");
    await lease.release();
    db.close();
    await store.close();
  });

  it("is renewed by its heartbeat, so a live holder keeps it past the stale bound", async () => {
    const file = await database();
    const holder = new SqliteSessionStore({ file, leaseStaleAfterMs: 600 });
    const other = new SqliteSessionStore({ file, leaseStaleAfterMs: 600 });
    const lease = await holder.acquireWriterLease("s");
    const first = leaseRows(file)[0]?.heartbeat_ms ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(leaseRows(file)[0]?.heartbeat_ms).toBeGreaterThan(first);
    await expect(other.acquireWriterLease("s")).rejects.toBeInstanceOf(SessionLockedError);
    await lease.release();
    await (await other.acquireWriterLease("s")).release();
    await holder.close();
    await other.close();
  });
});
