import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { SessionCorruptError } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
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
      expect(scanned.read.buffer.equals(bytes), `chunk ${chunk}`).toBe(true);
      expect(scanned.read.headerEnd).toBe(file.headerEnd);
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
    expect(torn.read.committedEnd).toBeLessThan(torn.read.buffer.length);

    const v2 = `${JSON.stringify({ type: "session", version: 2, id: "s1", timestamp: "t", cwd: "/" })}\n`;
    writeFileSync(path, v2 + JSON.stringify(userEntry("x1", null)).concat("\n").repeat(3));
    const old = await readAndScan(path, "s1", 16);
    expect(old.scan).toBeUndefined();
    expect(old.read.header.version).toBe(2);
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
});
