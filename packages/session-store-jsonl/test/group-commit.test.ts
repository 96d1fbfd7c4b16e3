import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { GroupCommit } from "../src/group-commit.js";
import { chain, header, openStore, temporaryHome } from "./helpers.js";

/** Number of fdatasync calls made through node:fs. */
const syncs = vi.hoisted(() => ({ count: 0 }));

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const fdatasync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    syncs.count += 1;
    actual.fdatasync(fd, callback);
  }) as typeof actual.fdatasync;
  return { ...actual, default: { ...actual, fdatasync }, fdatasync };
});

describe("group commit", () => {
  it("makes syncs requested together share one fdatasync after the running one", async () => {
    const fd = openSync(join(temporaryHome(), "file"), "w");
    try {
      const commit = new GroupCommit(fd);
      syncs.count = 0;
      writeSync(fd, "a");
      const first = commit.sync();
      const later = Array.from({ length: 20 }, () => {
        writeSync(fd, "b");
        return commit.sync();
      });
      await Promise.all([first, ...later]);
      expect(syncs.count).toBe(2);
      for (let index = 0; index < 3; index++) await commit.sync();
      expect(syncs.count).toBe(5);
      await commit.idle();
    } finally {
      closeSync(fd);
    }
  });

  it("rejects every caller waiting on a failed sync", async () => {
    const fd = openSync(join(temporaryHome(), "file"), "w");
    closeSync(fd);
    const commit = new GroupCommit(fd);
    const results = await Promise.allSettled([commit.sync(), commit.sync(), commit.sync()]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected", "rejected"]);
    await commit.idle();
  });

  it("lets concurrent appends to one session share syncs", async () => {
    const store = openStore();
    await store.createSession(header("s1"));
    syncs.count = 0;
    const batches = Array.from({ length: 30 }, (_, index) => chain(`b${index}-`, 10));
    await Promise.all(batches.map((batch) => store.appendEntries("s1", batch)));
    expect(syncs.count).toBeLessThanOrEqual(2);
    const lines = readFileSync(store.pathOf("s1")!, "utf8").split("\n");
    expect(lines.length).toBe(1 + 30 * 11 + 1);
  });

  it("does not sync with durability 'flush'", async () => {
    const home = temporaryHome();
    const store = openStore({ home, durability: "flush" });
    await store.createSession(header("s1"));
    syncs.count = 0;
    await store.appendEntries("s1", chain("a", 3));
    expect(syncs.count).toBe(0);
  });
});
