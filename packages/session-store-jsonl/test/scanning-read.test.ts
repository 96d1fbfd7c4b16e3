import { appendFileSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { SessionCorruptError } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { FileEntrySource } from "../src/file-entry-source.js";
import { parseFile, scanEntries } from "../src/scanner.js";
import { readAndScan } from "../src/scanning-read.js";
import { chain, header, openStore, userEntry } from "./helpers.js";

/** What a scan found, in comparable form (the entries' tree fields, offsets and line numbers). */
function summary(scan: ReturnType<typeof scanEntries>) {
  return {
    entries: scan.entries.map(({ type, id, parentId, start, end, lineNumber }) => ({
      type,
      id,
      parentId,
      start,
      end,
      lineNumber,
    })),
    warnings: scan.warnings,
    tally: scan.tally,
  };
}

/** A session with batches, a branch, a session_info, a pi-style line (no batch mark) and a bad line. */
async function writeSession(): Promise<string> {
  const store = openStore();
  await store.createSession(header("s1"));
  await store.appendEntries("s1", chain("a", 5));
  await store.appendEntries("s1", [
    ...chain("b", 4, "a3"),
    { type: "session_info", id: "n1", parentId: "b4", timestamp: "2026-01-02T03:09:00.000Z", name: "x" },
  ]);
  const path = store.pathOf("s1")!;
  await store.close();
  appendFileSync(path, "not json at all\n");
  appendFileSync(path, `${JSON.stringify(userEntry("c1", "n1", "ünïcödé ✓ text"))}\n`);
  appendFileSync(path, `${JSON.stringify({ id: "d1", type: "message", parentId: "c1" })}\n`);
  return path;
}

describe("readAndScan", () => {
  it("finds what a scan of the whole file finds, whatever the chunk size", async () => {
    const path = await writeSession();
    const bytes = readFileSync(path);
    const file = parseFile("s1", bytes);
    const expected = summary(scanEntries("s1", bytes, file.headerEnd, file.committedEnd));
    expect(expected.entries.map((entry) => entry.id)).toEqual([
      ...["a1", "a2", "a3", "a4", "a5", "b1", "b2", "b3", "b4", "n1", "c1", "d1"],
    ]);
    expect(expected.warnings).toEqual([
      `line ${expected.entries[10]!.lineNumber - 1}: not valid JSON; skipped (the file is left as it is)`,
    ]);
    for (const chunk of [1, 2, 7, 64, 100, 1000, bytes.length - 1, bytes.length, 1 << 20]) {
      const scanned = await readAndScan(path, "s1", chunk);
      expect(scanned.size, `chunk ${chunk}`).toBe(bytes.length);
      expect(scanned.headerEnd).toBe(file.headerEnd);
      expect(scanned.scan, `chunk ${chunk}`).toBeDefined();
      expect(summary(scanned.scan!), `chunk ${chunk}`).toEqual(expected);
      expect(scanned.scan!.entries.map((entry) => entry.entry().id)).toEqual(
        expected.entries.map((entry) => entry.id),
      );
    }
  });

  it("leaves the scan to the caller when the file ends with a torn line or needs a migration", async () => {
    const path = await writeSession();
    appendFileSync(path, '{"type":"message","id":"zz","parentId":"d1","timest');
    const torn = await readAndScan(path, "s1", 16);
    expect(torn.scan).toBeUndefined();
    // A batch whose trailer never made it to disk, at the end (its lines end with a tab before the newline).
    writeFileSync(path, readFileSync(path, "utf8").replace(/[^\n]*$/, ""));
    for (const entry of chain("t", 2, "d1")) appendFileSync(path, `${JSON.stringify(entry)}\t\n`);
    expect((await readAndScan(path, "s1", 16)).scan).toBeUndefined();
    expect((await readAndScan(path, "s1")).scan).toBeUndefined();

    const v2 = `${JSON.stringify({ type: "session", version: 2, id: "s1", timestamp: "t", cwd: "/" })}\n`;
    writeFileSync(path, v2 + JSON.stringify(userEntry("x1", null)).concat("\n").repeat(3));
    const old = await readAndScan(path, "s1", 16);
    expect(old.scan).toBeUndefined();
    expect(old.header.version).toBe(2);
  });

  it("rejects a bad header like parseFile does, and reports a missing file as ENOENT", async () => {
    const path = await writeSession();
    const bytes = readFileSync(path);
    writeFileSync(path, Buffer.concat([Buffer.from('{"type":"session","id":"other"}\n'), bytes]));
    await expect(readAndScan(path, "s1", 8)).rejects.toThrow(SessionCorruptError);
    writeFileSync(path, "{ broken\n");
    await expect(readAndScan(path, "s1", 4)).rejects.toThrow(SessionCorruptError);
    await expect(readAndScan(`${path}.missing`, "s1")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("keeps no copy of the file: bodies are read back by offset, and a replaced file is refused", async () => {
    const path = await writeSession();
    const scanned = await readAndScan(path, "s1", 64);
    const entries = scanned.scan!.entries;
    const expected = scanEntries("s1", readFileSync(path), scanned.headerEnd, scanned.size);
    expect(entries.map((entry) => entry.entry())).toEqual(expected.entries.map((entry) => entry.entry()));
    // Replaced by another file (an editor saving a copy): the offsets no longer hold.
    const { dev, ino } = statSync(path);
    const source = new FileEntrySource("s1", path, { dev, ino });
    const first = entries[0]!;
    expect(source.text(first.start, first.end)).toBe(JSON.stringify(first.entry()));
    writeFileSync(`${path}.new`, readFileSync(path));
    renameSync(`${path}.new`, path);
    // What was read before is still served (the bytes of the file scanned); a new read is refused.
    expect(source.text(first.start, first.end)).toBe(JSON.stringify(first.entry()));
    expect(() => new FileEntrySource("s1", path, { dev, ino }).text(first.start, first.end)).toThrow(
      /changed since it was opened/,
    );
  });

  it("reads a line longer than the window, and one across windows", async () => {
    const store = openStore();
    await store.createSession(header("s2"));
    await store.appendEntries("s2", [userEntry("long", null, "x".repeat(5000)), ...chain("z", 3, "long")]);
    const path = store.pathOf("s2")!;
    await store.close();
    const bytes = readFileSync(path);
    const file = parseFile("s2", bytes);
    const expected = summary(scanEntries("s2", bytes, file.headerEnd, file.committedEnd));
    for (const window of [1, 100, 4096, 5003, 1 << 16]) {
      const scanned = await readAndScan(path, "s2", window);
      expect(summary(scanned.scan!), `window ${window}`).toEqual(expected);
      expect(
        (scanned.scan!.entries[0]!.entry() as unknown as { message: { content: unknown } }).message.content,
      ).toEqual(
        (userEntry("long", null, "x".repeat(5000)) as { message: { content: unknown } }).message.content,
      );
    }
  });
});
