import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Session } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { openStore, temporaryHome, userEntry } from "./helpers.js";

const V1 = [
  { type: "session", id: "old1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/home/user/project" },
  {
    type: "message",
    timestamp: "2025-01-01T00:00:01.000Z",
    message: { role: "user", content: "hello", timestamp: 1 },
  },
  {
    type: "message",
    timestamp: "2025-01-01T00:00:02.000Z",
    message: { role: "assistant", content: [{ type: "text", text: "hi" }], stopReason: "stop", timestamp: 2 },
  },
  {
    type: "compaction",
    timestamp: "2025-01-01T00:00:03.000Z",
    summary: "said hello",
    firstKeptEntryIndex: 2,
    tokensBefore: 10,
  },
];

const V2 = [
  {
    type: "session",
    version: 2,
    id: "old2",
    timestamp: "2025-02-01T00:00:00.000Z",
    cwd: "/home/user/project",
  },
  {
    type: "message",
    id: "m1",
    parentId: null,
    timestamp: "2025-02-01T00:00:01.000Z",
    message: { role: "hookMessage", content: "x", timestamp: 1 },
  },
];

function writeOld(home: string, lines: object[]): string {
  const head = lines[0] as { id: string; timestamp: string };
  const directory = join(home, "sessions", "--home-user-project--");
  mkdirSync(directory, { recursive: true });
  const path = join(directory, `${head.timestamp.replace(/[:.]/g, "-")}_${head.id}.jsonl`);
  writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return path;
}

describe("migration of pi version 1 and 2 files", () => {
  it("rewrites a version 1 file as version 3 atomically, keeping the original as <file>.v1.bak", async () => {
    const home = temporaryHome();
    const path = writeOld(home, V1);
    const original = readFileSync(path);
    const store = openStore({ home });
    const session = await store.readSession("old1");
    expect(session.header.version).toBe(3);
    expect(session.warnings[0]).toMatch(
      /^migrated from format version 1 to 3; the original is kept as .*\.jsonl\.v1\.bak$/,
    );
    const [first, second, compaction] = session.entries.map((entry) => entry.entry());
    expect(first).toMatchObject({ type: "message", parentId: null, message: { content: "hello" } });
    expect(second!.parentId).toBe(first!.id);
    expect(compaction).toMatchObject({
      type: "compaction",
      parentId: second!.id,
      firstKeptEntryId: second!.id,
    });
    expect(compaction).not.toHaveProperty("firstKeptEntryIndex");
    expect(readFileSync(`${path}.v1.bak`)).toEqual(original);
    expect(JSON.parse(readFileSync(path, "utf8").split("\n")[0]!)).toMatchObject({
      type: "session",
      version: 3,
      id: "old1",
    });
    expect(
      readdirSync(join(home, "sessions", "--home-user-project--")).filter((name) =>
        name.includes("migrating"),
      ),
    ).toEqual([]);

    // Reopening finds nothing more to do, with the same ids; the session continues like any other.
    const again = await openStore({ home }).readSession("old1");
    expect(again.warnings).toEqual([]);
    expect(again.entries.map((entry) => entry.id)).toEqual(session.entries.map((entry) => entry.id));
    const opened = await Session.open(store, "old1");
    const context = opened.buildContext();
    expect(context.compactionId).toBe(compaction!.id);
    expect((context.messages[0] as { role: string }).role).toBe("compactionSummary");
  });

  it("migrates a version 2 file (hookMessage → custom) before the first append", async () => {
    const home = temporaryHome();
    const path = writeOld(home, V2);
    const warnings: string[] = [];
    const store = openStore({ home, onWarning: (message) => warnings.push(message) });
    await store.appendEntries("old2", [userEntry("m2", "m1")], { expectedLastEntryId: "m1" });
    expect(warnings[0]).toMatch(/old2: migrated from format version 2 to 3/);
    expect(existsSync(`${path}.v2.bak`)).toBe(true);
    const session = await openStore({ home }).readSession("old2");
    expect(session.header.version).toBe(3);
    expect(session.entries.map((entry) => entry.id)).toEqual(["m1", "m2"]);
    expect(session.entries[0]!.entry()).toMatchObject({ message: { role: "custom" } });
  });

  it("migrates in memory only when read-only, leaving the file as it is", async () => {
    const home = temporaryHome();
    const path = writeOld(home, V1);
    const original = readFileSync(path);
    const session = await openStore({ home, readOnly: true }).readSession("old1");
    expect(session.header.version).toBe(3);
    expect(session.entries).toHaveLength(3);
    expect(session.warnings[0]).toBe(
      "migrated from format version 1 to 3 in memory only (the file is unchanged)",
    );
    expect(readFileSync(path)).toEqual(original);
    expect(existsSync(`${path}.v1.bak`)).toBe(false);
    // The same ids as a migration that rewrites the file.
    const rewritten = await openStore({ home }).readSession("old1");
    expect(rewritten.entries.map((entry) => entry.id)).toEqual(session.entries.map((entry) => entry.id));
  });
});
