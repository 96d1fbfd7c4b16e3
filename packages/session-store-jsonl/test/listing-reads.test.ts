import { appendFileSync, statSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { header, openStore, temporaryHome, userEntry } from "./helpers.js";

/** Every byte the store reads through node:fs, and every whole-file read. */
const reads = vi.hoisted(() => ({ bytes: 0, wholeFiles: 0 }));

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const readSync = ((...args: Parameters<typeof actual.readSync>) => {
    const count = actual.readSync(...args);
    reads.bytes += count;
    return count;
  }) as typeof actual.readSync;
  const readFileSync = ((...args: Parameters<typeof actual.readFileSync>) => {
    if (String(args[0]).endsWith(".jsonl")) reads.wholeFiles += 1;
    return actual.readFileSync(...args);
  }) as typeof actual.readFileSync;
  return { ...actual, default: { ...actual, readSync, readFileSync }, readSync, readFileSync };
});

describe("listSessions reads", () => {
  it("reads only each file's header and tail, however large the file", async () => {
    const home = temporaryHome();
    const store = openStore({ home, durability: "flush" });
    const huge = "x".repeat(2 * 1024 * 1024);
    for (const id of ["s1", "s2", "s3"]) {
      await store.createSession(header(id));
      let parent: string | null = null;
      for (let index = 0; index < 4; index++) {
        const entry = userEntry(`${id}-${index}`, parent, huge);
        await store.appendEntries(id, [entry]);
        parent = entry.id;
      }
    }
    await store.close();
    const total = ["s1", "s2", "s3"].reduce((sum, id) => sum + statSync(store.pathOf(id)!).size, 0);
    expect(total).toBeGreaterThan(24 * 1024 * 1024);

    reads.bytes = 0;
    reads.wholeFiles = 0;
    const { sessions } = await openStore({ home }).listSessions();
    expect(sessions.map((summary) => [summary.id, summary.messageCount])).toEqual([
      ["s3", 4],
      ["s2", 4],
      ["s1", 4],
    ]);
    expect(reads.wholeFiles).toBe(0);
    expect(reads.bytes).toBeGreaterThan(0);
    // Per file: its header and tail, and the first 4 KB after the header (the first prompt).
    expect(reads.bytes).toBeLessThanOrEqual(3 * 28 * 1024);
    expect(sessions[0]?.firstMessage).toMatch(/^x{200}…$/);
  });

  it("reads 16 KB of the tail of a pi-written file off the page (its last lines), and counts only the page", async () => {
    const home = temporaryHome();
    const store = openStore({ home, durability: "flush" });
    const ids = ["p1", "p2", "p3", "p4", "p5"];
    for (const id of ids) {
      await store.createSession(header(id));
      // As the pi agent writes them: one line per entry, no batch marks, no trailers.
      let parent: string | null = null;
      let lines = "";
      for (let index = 0; index < 100; index++) {
        const entry = userEntry(`${id}-${index}`, parent, "y".repeat(2000));
        lines += `${JSON.stringify(entry)}\n`;
        parent = entry.id;
      }
      appendFileSync(store.pathOf(id)!, lines);
    }
    await store.close();
    const size = statSync(store.pathOf("p5")!).size;
    expect(size).toBeGreaterThan(128 * 1024);

    reads.bytes = 0;
    const { sessions } = await openStore({ home }).listSessions({ limit: 1 });
    expect(sessions.map((summary) => [summary.id, summary.messageCount])).toEqual([["p5", 100]]);
    // Off the page: the header's 4 KB and the last 16 KB. The page's session: those, then its full count
    // (header and trailer search in its last 16 and 64 KB first) and its first prompt (4 KB + 4 KB).
    const offPage = (ids.length - 1) * (4 + 16) * 1024;
    const page = 2 * (4 + 16) * 1024 + 64 * 1024 + size + 8 * 1024;
    expect(reads.bytes).toBeLessThanOrEqual(offPage + page);
  });
});
