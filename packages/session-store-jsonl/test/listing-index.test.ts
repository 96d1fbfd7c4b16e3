import { appendFileSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { LISTING_INDEX_FILE } from "../src/listing-index.js";
import { header, openStore, temporaryHome, userEntry } from "./helpers.js";

/** Every byte the store reads through readSync (session files are read only that way when listing). */
const reads = vi.hoisted(() => ({ bytes: 0, calls: 0 }));

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const readSync = ((...args: Parameters<typeof actual.readSync>) => {
    const count = actual.readSync(...args);
    reads.bytes += count;
    reads.calls += 1;
    return count;
  }) as typeof actual.readSync;
  return { ...actual, default: { ...actual, readSync }, readSync };
});

/** A session file as the pi agent writes it: no batch marks, no trailers; `lines` entries after the header. */
function writePiSession(home: string, id: string, minute: number, lines: string[]): string {
  const directory = join(home, "sessions", "--home-user-project--");
  mkdirSync(directory, { recursive: true });
  const created = new Date(Date.UTC(2026, 1, 1, 0, minute)).toISOString();
  const path = join(directory, `${created.replace(/[:.]/g, "-")}_${id}.jsonl`);
  writeFileSync(path, `${JSON.stringify(header(id, "/home/user/project", created))}\n${lines.join("\n")}\n`);
  return path;
}

/** `count` pi-style message lines (the last one timestamped at `minute`), each about `size` bytes. */
function piLines(prefix: string, count: number, minute: number, size = 100): string[] {
  const lines: string[] = [];
  let parent: string | null = null;
  for (let index = 0; index < count; index++) {
    const entry = userEntry(`${prefix}-${index}`, parent, "y".repeat(size));
    entry.timestamp = new Date(Date.UTC(2026, 1, 1, 0, minute, 0, index)).toISOString();
    lines.push(JSON.stringify(entry));
    parent = entry.id;
  }
  return lines;
}

describe("the listing index", () => {
  it("lets a second store list unchanged files with stats only, and notices a changed file", async () => {
    const home = temporaryHome();
    const writer = openStore({ home, durability: "flush" });
    for (const id of ["a1", "a2"]) {
      await writer.createSession(header(id));
      await writer.appendEntries(id, [userEntry(`${id}-1`, null), userEntry(`${id}-2`, `${id}-1`)]);
    }
    await writer.close();
    const pi = writePiSession(home, "p1", 1, piLines("p1", 30, 59));

    const first = await openStore({ home }).listSessions();
    expect(first.sessions.map((summary) => [summary.id, summary.messageCount])).toEqual([
      ["p1", 30],
      ["a2", 2],
      ["a1", 2],
    ]);
    expect(statSync(join(home, "sessions", LISTING_INDEX_FILE)).mode & 0o777).toBe(0o600);

    reads.bytes = 0;
    reads.calls = 0;
    const second = await openStore({ home }).listSessions();
    expect(second).toEqual(first);
    expect(reads.calls).toBe(0);

    // Appended by the pi agent: size and mtime change, so the entry is read again (and only it).
    appendFileSync(pi, `${piLines("p1x", 1, 59)[0]!.replace('"parentId":null', '"parentId":"p1-29"')}\n`);
    const third = await openStore({ home }).listSessions();
    expect(third.sessions.find((summary) => summary.id === "p1")!.messageCount).toBe(31);
    expect(third.sessions.find((summary) => summary.id === "a1")).toEqual(
      first.sessions.find((summary) => summary.id === "a1"),
    );

    // Same size, other content, another mtime: invalidated too.
    const bytes = readFileSync(pi, "utf8").replace("p1-0", "p1-Z");
    writeFileSync(pi, bytes);
    utimesSync(pi, new Date(), new Date(Date.now() + 5000));
    reads.calls = 0;
    await openStore({ home }).listSessions();
    expect(reads.calls).toBeGreaterThan(0);
  });

  it("ignores a damaged index file and rewrites it", async () => {
    const home = temporaryHome();
    writePiSession(home, "p1", 1, piLines("p1", 3, 10));
    writeFileSync(join(home, "sessions", LISTING_INDEX_FILE), "{ not json");
    const { sessions } = await openStore({ home }).listSessions();
    expect(sessions.map((summary) => summary.messageCount)).toEqual([3]);
    expect(JSON.parse(readFileSync(join(home, "sessions", LISTING_INDEX_FILE), "utf8")).format).toBe(
      "arbor-listing-index/1",
    );
  });

  it("a read-only store reads the index but never writes it", async () => {
    const home = temporaryHome();
    writePiSession(home, "p1", 1, piLines("p1", 3, 10));
    await openStore({ home, readOnly: true }).listSessions();
    expect(() => statSync(join(home, "sessions", LISTING_INDEX_FILE))).toThrow();
  });

  it("counts only the page's pi-written sessions; the others are placed by their tails", async () => {
    const home = temporaryHome();
    for (let index = 0; index < 12; index++)
      writePiSession(home, `p${index}`, index, piLines(`p${index}`, 200, index, 2000));
    reads.bytes = 0;
    const page = await openStore({ home }).listSessions({ limit: 2 });
    expect(page.sessions.map((summary) => [summary.id, summary.messageCount])).toEqual([
      ["p11", 200],
      ["p10", 200],
    ]);
    const size = statSync(page.sessions[0]!.location!).size;
    // Two whole files counted (after their tails), the other ten only their tails (16 + 64 KB) and headers;
    // each of the twelve sessions of the page also its first prompt (4 KB after the header).
    const tail = (64 + 16 + 4) * 1024;
    const firstPrompt = 4 * 1024;
    expect(reads.bytes).toBeLessThan(2 * (size + 2 * tail) + 10 * tail + 12 * firstPrompt);
    expect(reads.bytes).toBeLessThan(12 * size);
    const rest = await openStore({ home }).listSessions({ limit: 20, cursor: page.nextCursor });
    expect(rest.sessions.map((summary) => summary.messageCount)).toEqual(Array(10).fill(200));
  });

  it("counts a line far longer than a read chunk by its start and end only, whatever its length", async () => {
    const home = temporaryHome();
    const lines = piLines("big", 5, 30, 100);
    const huge = userEntry("big-huge", "big-4", "z".repeat(5 * 1024 * 1024 + 7));
    huge.timestamp = "2026-02-01T00:30:59.000Z";
    lines.push(JSON.stringify(huge));
    lines.push(
      ...piLines("after", 2, 31, 100).map((line) => line.replace('"parentId":null', '"parentId":"big-huge"')),
    );
    writePiSession(home, "big", 1, lines);
    const { sessions } = await openStore({ home }).listSessions();
    expect(sessions.map((summary) => [summary.id, summary.messageCount])).toEqual([["big", 8]]);
    expect(sessions[0]!.updatedAt).toBe("2026-02-01T00:31:00.001Z");
  });
});
