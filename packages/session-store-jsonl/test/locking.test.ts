import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { SessionConflictError, SessionLockedError } from "@arbor/session-store";
import { afterEach, describe, expect, it } from "vitest";
import { SessionReadOnlyError } from "../src/index.js";
import { chain, header, openStore, temporaryHome, userEntry } from "./helpers.js";

const packageDirectory = join(import.meta.dirname, "..");
const holderScript = join(import.meta.dirname, "fixtures", "lock-holder.ts");
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** Starts a real second process that takes the session's lock (by appending) and waits. */
function startHolder(home: string, sessionId: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--conditions=@arbor/source", "--import", "tsx", holderScript, home, sessionId, "append"],
    {
      cwd: packageDirectory,
      stdio: ["pipe", "pipe", "pipe"],
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
    child.on("exit", (code) =>
      reject(new Error(`lock holder exited (${code}) before it was ready: ${stderr}`)),
    );
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** A session s1 with one entry, created and closed by this process. */
async function createdSession(home: string): Promise<string> {
  const store = openStore({ home });
  await store.createSession(header("s1"));
  await store.appendEntries("s1", [userEntry("a", null)]);
  await store.close();
  return store.pathOf("s1")!;
}

function lockOf(path: string): { pid: number; host: string; since: string; processStart?: string } {
  return JSON.parse(readFileSync(`${path}.lock`, "utf8")) as { pid: number; host: string; since: string };
}

describe("locking", () => {
  it("holds <file>.lock (pid, host, start time) from the first write until close()", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("s1"));
    const path = store.pathOf("s1")!;
    const lock = lockOf(path);
    expect(lock).toMatchObject({ pid: process.pid, host: hostname() });
    expect(Date.parse(lock.since)).toBeGreaterThan(0);
    await store.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
    await store.readSession("s1");
    expect(existsSync(`${path}.lock`)).toBe(false); // reading takes no lock
  });

  it("refuses a second process with SessionLockedError naming pid@host and since when; read-only still reads", async () => {
    const home = temporaryHome();
    const path = await createdSession(home);
    const child = await startHolder(home, "s1");
    const store = openStore({ home });
    const session = await store.readSession("s1");
    expect(session.entries.map((entry) => entry.id)).toEqual(["a", `child-${child.pid}`]);
    const error = await store
      .appendEntries("s1", [userEntry("b", "a")], { expectedLastEntryId: "a" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionLockedError);
    const since = lockOf(path).since;
    expect((error as Error).message).toContain(
      `is open for writing by pid ${child.pid}@${hostname()} since ${since}`,
    );
    await expect(store.deleteSession("s1")).rejects.toBeInstanceOf(SessionLockedError);

    // A read-only store reads and lists while the child holds the lock, takes no lock, and writes nothing.
    const reader = openStore({ home, readOnly: true });
    expect((await reader.readSession("s1")).entries).toHaveLength(2);
    expect((await reader.listSessions()).sessions.map((summary) => summary.id)).toEqual(["s1"]);
    for (const write of [
      () => reader.createSession(header("s2")),
      () => reader.appendEntries("s1", [userEntry("b", "a")]),
      () => reader.deleteSession("s1"),
    ]) {
      await expect(write()).rejects.toBeInstanceOf(SessionReadOnlyError);
      await expect(write()).rejects.toMatchObject({ code: "session_read_only" });
    }
    expect(lockOf(path).pid).toBe(child.pid);
    // The holder closes: now this process may write, and nothing was forked.
    child.stdin!.write("close\n");
    await exited(child);
    expect(existsSync(`${path}.lock`)).toBe(false);
    await expect(
      store.appendEntries("s1", [userEntry("b", "a")], { expectedLastEntryId: "a" }),
    ).rejects.toBeInstanceOf(SessionConflictError);
    await store.appendEntries("s1", [userEntry("b", `child-${child.pid}`)], {
      expectedLastEntryId: `child-${child.pid}`,
    });
    expect((await store.readSession("s1")).entries.map((entry) => entry.parentId)).toEqual([
      null,
      "a",
      `child-${child.pid}`,
    ]);
  });

  it("removes its lock when the process exits without closing the store", async () => {
    const home = temporaryHome();
    const path = await createdSession(home);
    const child = await startHolder(home, "s1");
    expect(lockOf(path).pid).toBe(child.pid);
    child.stdin!.write("exit\n");
    await exited(child);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("takes over the lock of a killed process (stale: its pid is gone)", async () => {
    const home = temporaryHome();
    const path = await createdSession(home);
    const child = await startHolder(home, "s1");
    child.kill("SIGKILL");
    await exited(child);
    expect(lockOf(path).pid).toBe(child.pid); // left behind
    const store = openStore({ home });
    await store.appendEntries("s1", [userEntry("b", `child-${child.pid}`)], {
      expectedLastEntryId: `child-${child.pid}`,
    });
    expect(lockOf(path).pid).toBe(process.pid);
    expect(existsSync(`${path}.lock.takeover`)).toBe(false);
  });

  it("judges fabricated locks: a dead pid or a reused pid is stale, another host is not", async () => {
    const home = temporaryHome();
    const path = await createdSession(home);
    const finished = spawnSync(process.execPath, ["-e", ""]).pid!;
    const write = (lock: object) => writeFileSync(`${path}.lock`, JSON.stringify(lock));
    const since = "2026-01-01T00:00:00.000Z";

    write({ pid: finished, host: hostname(), since });
    const store = openStore({ home });
    await store.appendEntries("s1", [userEntry("b", "a")]);
    await store.close();

    write({ pid: process.pid, host: hostname(), since, processStart: "1" }); // our pid, another process's start
    await store.appendEntries("s1", [userEntry("c", "b")]);
    await store.close();

    write({ pid: process.pid, host: "some-other-host", since });
    const error = await store.appendEntries("s1", [userEntry("d", "c")]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionLockedError);
    expect((error as Error).message).toContain(
      `pid ${process.pid}@some-other-host since ${since} (another host: delete`,
    );
  });

  it("treats an unreadable lock as held while it is fresh and as stale once it is old", async () => {
    const home = temporaryHome();
    const path = await createdSession(home);
    writeFileSync(`${path}.lock`, "");
    const store = openStore({ home });
    await expect(store.appendEntries("s1", [userEntry("b", "a")])).rejects.toThrow(/an unknown process/);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${path}.lock`, old, old);
    await store.appendEntries("s1", [userEntry("b", "a")]);
    expect(lockOf(path).pid).toBe(process.pid);
  });

  it("shares the lock between instances of one process and serializes them with expectedLastEntryId", async () => {
    const home = temporaryHome();
    const first = openStore({ home });
    const second = openStore({ home });
    await first.createSession(header("s1"));
    await first.appendEntries("s1", chain("a", 2));
    const seenByFirst = (await first.readSession("s1")).entries.at(-1)!.id;
    const seenBySecond = (await second.readSession("s1")).entries.at(-1)!.id;
    await first.appendEntries("s1", [userEntry("x", seenByFirst)], { expectedLastEntryId: seenByFirst });
    const error = await second
      .appendEntries("s1", [userEntry("y", seenBySecond)], { expectedLastEntryId: seenBySecond })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionConflictError);
    expect(error).toMatchObject({ expectedLastEntryId: "a2", actualLastEntryId: "x" });
    await second.appendEntries("s1", [userEntry("y", "x")], { expectedLastEntryId: "x" });
    const path = first.pathOf("s1")!;
    await first.close();
    expect(existsSync(`${path}.lock`)).toBe(true); // the second instance still holds it
    await second.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect((await openStore({ home }).readSession("s1")).entries.map((entry) => entry.id)).toEqual([
      "a1",
      "a2",
      "x",
      "y",
    ]);
  });
});
