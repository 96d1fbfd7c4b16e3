import { appendFileSync, existsSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { SessionCorruptError } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import type { JsonlSessionStore } from "../src/index.js";
import { chain, header, openStore, temporaryHome, userEntry } from "./helpers.js";

/** A session with two committed batches (a1-a2, b1-b3); returns its path and size. */
async function twoBatches(store: JsonlSessionStore): Promise<{ path: string; size: number }> {
  await store.createSession(header("s1"));
  await store.appendEntries("s1", chain("a", 2));
  await store.appendEntries("s1", chain("b", 3, "a2"));
  await store.close();
  const path = store.pathOf("s1")!;
  return { path, size: readFileSync(path).length };
}

/** The bytes of one more batch (c1-c3) as the store would write it; the file is left as it was. */
async function nextBatchBytes(home: string, path: string): Promise<Buffer> {
  const before = readFileSync(path);
  const store = openStore({ home });
  await store.appendEntries("s1", chain("c", 3, "b3"));
  await store.close();
  const batch = readFileSync(path).subarray(before.length);
  writeFileSync(path, before);
  return batch;
}

const ids = (session: { entries: { id: string }[] }) => session.entries.map((entry) => entry.id);

describe("crash safety", () => {
  it("moves a torn last line to <file>.torn, truncates the file and loads the rest", async () => {
    const home = temporaryHome();
    const { path, size } = await twoBatches(openStore({ home }));
    const torn = '{"type":"message","id":"zz","parentId":"b3","timestamp":"2026-01-0';
    appendFileSync(path, torn);
    const warnings: string[] = [];
    const store = openStore({ home, onWarning: (message) => warnings.push(message) });
    const session = await store.readSession("s1");
    expect(ids(session)).toEqual(["a1", "a2", "b1", "b2", "b3"]);
    expect(readFileSync(`${path}.torn`, "utf8")).toBe(torn);
    expect(readFileSync(path).length).toBe(size);
    expect(session.warnings).toHaveLength(1);
    expect(session.warnings[0]).toMatch(
      /the last \d+ bytes \(line 9: a torn write\) moved to .*\.jsonl\.torn/,
    );
    expect(warnings).toEqual(session.warnings.map((warning) => `s1: ${warning}`));
    // Appending continues cleanly after the repair.
    await store.appendEntries("s1", [userEntry("c1", "b3")], { expectedLastEntryId: "b3" });
    expect(ids(await openStore({ home }).readSession("s1"))).toEqual(["a1", "a2", "b1", "b2", "b3", "c1"]);
  });

  it("treats a batch cut after complete lines as not written: all of it goes to the sidecar", async () => {
    const home = temporaryHome();
    const { path, size } = await twoBatches(openStore({ home }));
    const batch = await nextBatchBytes(home, path);
    const lines = batch.toString("utf8").split("\n");
    expect(lines).toHaveLength(5); // three entries, the trailer, and the empty rest after the last newline
    const prefix = Buffer.from(`${lines[0]}\n${lines[1]}\n`);
    appendFileSync(path, prefix);
    const session = await openStore({ home }).readSession("s1");
    expect(ids(session)).toEqual(["a1", "a2", "b1", "b2", "b3"]);
    expect(session.warnings[0]).toMatch(/lines 9-10: a batch without its trailer/);
    expect(readFileSync(`${path}.torn`)).toEqual(prefix);
    expect(readFileSync(path).length).toBe(size);
  });

  it("treats a batch cut inside a line, or inside its trailer, as not written", async () => {
    const home = temporaryHome();
    const { path, size } = await twoBatches(openStore({ home }));
    const batch = await nextBatchBytes(home, path);
    for (const cut of [batch.length - 5, Math.floor(batch.length / 2), 7]) {
      appendFileSync(path, batch.subarray(0, cut));
      const session = await openStore({ home }).readSession("s1");
      expect(ids(session)).toEqual(["a1", "a2", "b1", "b2", "b3"]);
      expect(readFileSync(path).length).toBe(size);
    }
    // Each tear was appended to the sidecar, separated by newlines.
    const sidecar = readFileSync(`${path}.torn`, "utf8");
    expect(sidecar).toBe(
      [batch.length - 5, Math.floor(batch.length / 2), 7]
        .map((cut) => batch.subarray(0, cut).toString("utf8"))
        .join("\n"),
    );
    // The whole batch, once written, is read whole.
    appendFileSync(path, batch);
    expect(ids(await openStore({ home }).readSession("s1"))).toEqual([
      "a1",
      "a2",
      "b1",
      "b2",
      "b3",
      "c1",
      "c2",
      "c3",
    ]);
  });

  it("skips a batch without its trailer in the middle of the file (another writer continued), unchanged", async () => {
    const home = temporaryHome();
    const { path } = await twoBatches(openStore({ home }));
    const batch = await nextBatchBytes(home, path);
    const [c1, c2] = batch.toString("utf8").split("\n");
    // A crash after two lines of the batch, then a writer that takes no lock (the pi agent) appends.
    const foreign = `${JSON.stringify(userEntry("p1", "b3"))}\n`;
    appendFileSync(path, `${c1}\n${c2}\n${foreign}`);
    const before = readFileSync(path);
    const session = await openStore({ home }).readSession("s1");
    expect(ids(session)).toEqual(["a1", "a2", "b1", "b2", "b3", "p1"]);
    expect(session.warnings).toEqual([
      "lines 9-10: a batch without its trailer (a write cut short); its 2 entries are skipped (the file is left as it is)",
    ]);
    expect(readFileSync(path)).toEqual(before);
  });

  it("skips a malformed line in the middle with a warning naming it, and never rewrites it away", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("s1"));
    await store.close();
    const path = store.pathOf("s1")!;
    const good = (id: string, parent: string | null) => `${JSON.stringify(userEntry(id, parent))}\n`;
    appendFileSync(
      path,
      `${good("a", null)}{"type":"message","id":"b","parentId":"a",\n${good("c", "a")}not json at all\n${good("d", "c")}`,
    );
    const before = readFileSync(path);
    const reader = openStore({ home });
    const session = await reader.readSession("s1");
    expect(ids(session)).toEqual(["a", "c", "d"]);
    expect(session.warnings).toEqual([
      "line 3: not valid JSON; skipped (the file is left as it is)",
      "line 5: not valid JSON; skipped (the file is left as it is)",
    ]);
    expect(readFileSync(path)).toEqual(before);
    await reader.appendEntries("s1", [userEntry("e", "d")], { expectedLastEntryId: "d" });
    const after = readFileSync(path);
    expect(after.subarray(0, before.length)).toEqual(before);
    expect((await openStore({ home }).readSession("s1")).warnings).toHaveLength(2);
  });

  it("reports a line that looks fine to the scanner but is not JSON when its entry() is asked for", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("s1"));
    appendFileSync(store.pathOf("s1")!, '{"type":"message","id":"a","parentId":null,"message":{"x":}}\n');
    const session = await openStore({ home }).readSession("s1");
    expect(session.entries).toHaveLength(1);
    expect(() => session.entries[0]!.entry()).toThrow(SessionCorruptError);
    expect(() => session.entries[0]!.entry()).toThrow(/line 2 \(entry "a"\) is not valid JSON/);
  });

  it("leaves a torn tail in place when read-only, and reports it", async () => {
    const home = temporaryHome();
    const { path, size } = await twoBatches(openStore({ home }));
    appendFileSync(path, '{"type":"mess');
    const session = await openStore({ home, readOnly: true }).readSession("s1");
    expect(ids(session)).toEqual(["a1", "a2", "b1", "b2", "b3"]);
    expect(session.warnings).toEqual([
      "the last 13 bytes (line 9: a torn write) left out (the file is unchanged)",
    ]);
    expect(readFileSync(path).length).toBe(size + 13);
    expect(existsSync(`${path}.torn`)).toBe(false);
  });

  it("repairs a torn tail found when appending without reading first", async () => {
    const home = temporaryHome();
    const { path, size } = await twoBatches(openStore({ home }));
    appendFileSync(path, '{"type":"message","id":"x"');
    const warnings: string[] = [];
    const store = openStore({ home, onWarning: (message) => warnings.push(message) });
    await store.appendEntries("s1", [userEntry("c1", "b3")], { expectedLastEntryId: "b3" });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/s1: the last 26 bytes \(a write cut short\) were moved to .*\.torn/);
    expect(readFileSync(`${path}.torn`, "utf8")).toBe('{"type":"message","id":"x"');
    expect(readFileSync(path).length).toBeGreaterThan(size);
    const session = await openStore({ home }).readSession("s1");
    expect(ids(session)).toEqual(["a1", "a2", "b1", "b2", "b3", "c1"]);
    expect(session.warnings).toEqual([]);
  });

  it("throws SessionCorruptError for an empty file or an unreadable header", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("s1"));
    await store.close();
    const path = store.pathOf("s1")!;
    truncateSync(path, 0);
    await expect(openStore({ home }).readSession("s1")).rejects.toThrow(/is corrupt: the file is empty/);
    writeFileSync(path, "{not json}\n");
    await expect(openStore({ home }).readSession("s1")).rejects.toBeInstanceOf(SessionCorruptError);
    writeFileSync(path, `${JSON.stringify(header("other"))}\n`);
    await expect(openStore({ home }).readSession("s1")).rejects.toThrow(/names session "other"/);
  });
});
