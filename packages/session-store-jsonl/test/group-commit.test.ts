import { appendFileSync, closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { EARLY_GROUP, GroupCommit } from "../src/group-commit.js";
import { chain, header, openStore, temporaryHome } from "./helpers.js";

/** Syncs and session-file writes made through node:fs; `failWrites` makes the next big writes fail. */
const calls = vi.hoisted(() => ({
  syncs: 0,
  inPlace: 0,
  batchWrites: 0,
  failWrites: 0,
  duringSync: undefined as (() => void) | undefined,
}));

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const fdatasync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    calls.syncs += 1;
    const during = calls.duringSync;
    calls.duringSync = undefined;
    during?.();
    actual.fdatasync(fd, callback);
  }) as typeof actual.fdatasync;
  const fdatasyncSync = ((fd: number) => {
    calls.syncs += 1;
    calls.inPlace += 1;
    actual.fdatasyncSync(fd);
  }) as typeof actual.fdatasyncSync;
  const writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
    // Batches are written from a Buffer with an explicit length; a lone header line is short.
    if (Buffer.isBuffer(data) && typeof rest[1] === "number" && (rest[1] as number) > 200) {
      calls.batchWrites += 1;
      if (calls.failWrites > 0) {
        calls.failWrites -= 1;
        // Half of it reaches the file before the disk fills up.
        actual.writeSync(fd, data, 0, Math.floor((rest[1] as number) / 2));
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      }
    }
    return (actual.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
  }) as typeof actual.writeSync;
  const patched = { fdatasync, fdatasyncSync, writeSync };
  return { ...actual, default: { ...actual, ...patched }, ...patched };
});

describe("group commit", () => {
  it("makes syncs requested in one burst share fdatasyncs, and syncs a lone one in place", async () => {
    const fd = openSync(join(temporaryHome(), "file"), "w");
    try {
      const commit = new GroupCommit(fd);
      calls.syncs = 0;
      calls.inPlace = 0;
      const burst = Array.from({ length: 21 }, () => {
        writeSync(fd, "b");
        return commit.sync();
      });
      await Promise.all(burst);
      // Groups of EARLY_GROUP start at once (two at a time); the rest share the next sync.
      expect(calls.syncs).toBe(Math.ceil(21 / EARLY_GROUP));
      expect(calls.inPlace).toBe(0);
      for (let index = 0; index < 3; index++) {
        writeSync(fd, "c");
        await commit.sync();
      }
      expect(calls.syncs).toBe(Math.ceil(21 / EARLY_GROUP) + 3);
      expect(calls.inPlace).toBe(3);
      await commit.idle();
    } finally {
      closeSync(fd);
    }
  });

  it("rejects every caller waiting on a failed sync, in place or on the thread pool", async () => {
    const fd = openSync(join(temporaryHome(), "file"), "w");
    closeSync(fd);
    const commit = new GroupCommit(fd);
    const results = await Promise.allSettled([commit.sync(), commit.sync(), commit.sync()]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected", "rejected"]);
    await expect(commit.sync()).rejects.toThrow();
    await commit.idle();
  });

  it("rejects the group when the write made before its sync fails, and syncs nothing for it", async () => {
    const fd = openSync(join(temporaryHome(), "file"), "w");
    try {
      const failure = new Error("disk full");
      const commit = new GroupCommit(fd, () => {
        throw failure;
      });
      calls.syncs = 0;
      const results = await Promise.allSettled([commit.sync(), commit.sync()]);
      expect(results).toEqual([
        { status: "rejected", reason: failure },
        { status: "rejected", reason: failure },
      ]);
      expect(calls.syncs).toBe(0);
      await commit.idle();
    } finally {
      closeSync(fd);
    }
  });

  it("lets concurrent appends to one session share syncs and writes", async () => {
    const store = openStore();
    await store.createSession(header("s1"));
    calls.syncs = 0;
    calls.batchWrites = 0;
    const batches = Array.from({ length: 30 }, (_, index) => chain(`b${index}-`, 10));
    await Promise.all(batches.map((batch) => store.appendEntries("s1", batch)));
    expect(calls.syncs).toBeLessThanOrEqual(Math.ceil(30 / EARLY_GROUP));
    expect(calls.batchWrites).toBe(calls.syncs);
    const lines = readFileSync(store.pathOf("s1")!, "utf8").split("\n");
    expect(lines.length).toBe(1 + 30 * 11 + 1);
    const read = await store.readSession("s1");
    expect(read.entries.length).toBe(300);
    expect(read.warnings).toEqual([]);
  });

  it("cuts a failed group write back off the file and rejects only that group's appends", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("s1"));
    await store.appendEntries("s1", chain("a", 3));
    const before = readFileSync(store.pathOf("s1")!);
    calls.failWrites = 1;
    const results = await Promise.allSettled(
      Array.from({ length: 3 }, (_, index) => store.appendEntries("s1", chain(`x${index}-`, 2, "a3"))),
    );
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(readFileSync(store.pathOf("s1")!)).toEqual(before);
    // The store goes on from the committed end: the totals and the conflict check are those of "a3".
    await store.appendEntries("s1", chain("b", 2, "a3"), { expectedLastEntryId: "a3" });
    await store.close();
    const reopened = openStore({ home });
    const read = await reopened.readSession("s1");
    expect(read.entries.map((entry) => entry.id)).toEqual(["a1", "a2", "a3", "b1", "b2"]);
    expect(read.warnings).toEqual([]);
    expect((await reopened.listSessions()).sessions[0]).toMatchObject({ messageCount: 5 });
  });

  it("writes batches held back past a sync after lines another program appended meanwhile", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("s1"));
    await store.appendEntries("s1", chain("a", 3));
    const path = store.pathOf("s1")!;
    // A program that takes no lock appends a complete line while the first group's sync runs.
    const foreign = { ...chain("p", 1, "a3")[0]! };
    calls.duringSync = () => appendFileSync(path, `${JSON.stringify(foreign)}\n`);
    const batches = Array.from({ length: EARLY_GROUP + 1 }, (_, index) => chain(`x${index}-`, 2, "p1"));
    await Promise.all(batches.map((batch) => store.appendEntries("s1", batch)));
    const last = `x${EARLY_GROUP}-2`;
    await store.appendEntries("s1", chain("b", 1, last), { expectedLastEntryId: last });
    await store.close();
    const read = await openStore({ home }).readSession("s1");
    expect(read.warnings).toEqual([]);
    expect(read.entries.length).toBe(3 + 1 + (EARLY_GROUP + 1) * 2 + 1);
    expect(read.entries.map((entry) => entry.id)).toContain("p1");
  });

  it("does not sync with durability 'flush'", async () => {
    const home = temporaryHome();
    const store = openStore({ home, durability: "flush" });
    await store.createSession(header("s1"));
    calls.syncs = 0;
    await store.appendEntries("s1", chain("a", 3));
    expect(calls.syncs).toBe(0);
  });
});
