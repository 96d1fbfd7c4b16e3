import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { SessionLockedError } from "@arbor/session-store";
import { afterEach, describe, expect, it } from "vitest";
import { SessionReadOnlyError } from "../src/index.js";
import { header, openStore, temporaryHome, userEntry } from "./helpers.js";

const packageDirectory = join(import.meta.dirname, "..");
const holderScript = join(import.meta.dirname, "fixtures", "lock-holder.ts");
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** A second process that takes the session's writer lease (writing nothing) and waits. */
function startLeaseHolder(home: string, sessionId: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--conditions=@arbor/source", "--import", "tsx", holderScript, home, sessionId, "lease"],
    { cwd: packageDirectory, stdio: ["pipe", "pipe", "pipe"] },
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
    child.on("exit", (code) =>
      reject(new Error(`lease holder exited (${code}) before it was ready: ${stderr}`)),
    );
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

async function createdSession(home: string): Promise<string> {
  const store = openStore({ home });
  await store.createSession(header("s1"));
  await store.appendEntries("s1", [userEntry("a", null)]);
  await store.close();
  return store.pathOf("s1")!;
}

describe("the writer lease", () => {
  it("is the session's <file>.lock, taken at once and given up on release", async () => {
    const home = temporaryHome();
    const path = await createdSession(home);
    const store = openStore({ home });
    const lease = await store.acquireWriterLease("s1");
    const lock = JSON.parse(readFileSync(`${path}.lock`, "utf8")) as { pid: number; since: string };
    expect(lock.pid).toBe(process.pid);
    expect(lease.holder).toBe(`pid ${process.pid}@${hostname()} since ${lock.since}`);
    await lease.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("refuses this process at open while another process holds the session, naming it; readers still read", async () => {
    const home = temporaryHome();
    const path = await createdSession(home);
    const child = await startLeaseHolder(home, "s1");
    const store = openStore({ home });
    const error = await store.acquireWriterLease("s1").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionLockedError);
    const since = (JSON.parse(readFileSync(`${path}.lock`, "utf8")) as { since: string }).since;
    expect((error as Error).message).toBe(
      `Session "s1" is open for writing by pid ${child.pid}@${hostname()} since ${since}. ` +
        "Close it there, or open this one read-only.",
    );
    expect((await store.readSession("s1")).entries).toHaveLength(1);
    const reader = openStore({ home, readOnly: true });
    expect((await reader.listSessions()).sessions.map((summary) => summary.id)).toEqual(["s1"]);
    await expect(reader.acquireWriterLease("s1")).rejects.toBeInstanceOf(SessionReadOnlyError);
    // The holder exits without closing its store: the exit hook removes the lock, and the lease is free.
    child.stdin!.write("exit\n");
    await exited(child);
    const lease = await store.acquireWriterLease("s1");
    await lease.release();
  });

  it("takes over the lease of a process killed with SIGKILL (its pid is gone)", async () => {
    const home = temporaryHome();
    const path = await createdSession(home);
    const child = await startLeaseHolder(home, "s1");
    child.kill("SIGKILL");
    await exited(child);
    expect(existsSync(`${path}.lock`)).toBe(true); // left behind
    const store = openStore({ home });
    const lease = await store.acquireWriterLease("s1");
    expect(lease.holder).toMatch(new RegExp(`^pid ${process.pid}@`));
    await lease.release();
  });

  it("leaves the store's own lock in place when released while the store appends", async () => {
    const home = temporaryHome();
    const path = await createdSession(home);
    const store = openStore({ home });
    const lease = await store.acquireWriterLease("s1");
    await store.appendEntries("s1", [userEntry("b", "a")], { expectedLastEntryId: "a" });
    await lease.release();
    // The store keeps the lock its append took until it closes.
    expect(existsSync(`${path}.lock`)).toBe(true);
    await store.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});
