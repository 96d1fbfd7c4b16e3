import { appendFileSync, existsSync, readFileSync, renameSync } from "node:fs";
import { dirname } from "node:path";
import { SessionConflictError, type SessionEntry, SessionNotFoundError } from "@arbor/session-store";
import { afterEach, describe, expect, it, vi } from "vitest";
import { JsonlSessionStore } from "../src/index.js";
import { chain, header, openStore, temporaryHome, userEntry } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
});

function fileLines(path: string): string[] {
  return readFileSync(path, "utf8").split("\n").slice(0, -1);
}

describe("append and read", () => {
  it("round-trips entries in append order, unknown fields and types kept", async () => {
    const store = openStore();
    await store.createSession(header("s1"));
    const first = chain("a", 3);
    const odd = {
      type: "future_type",
      id: "f1",
      parentId: "a3",
      timestamp: "2026-01-02T04:00:00.000Z",
      nested: { deep: [1, "two", null, { three: true }] },
      "weird key \n": 'value with "quotes" and \t tab and é 😀',
    } as unknown as SessionEntry;
    await store.appendEntries("s1", first);
    await store.appendEntries("s1", [odd], { expectedLastEntryId: "a3" });
    const session = await store.readSession("s1");
    expect(session.warnings).toEqual([]);
    expect(session.header).toEqual(header("s1"));
    expect(session.entries.map((entry) => [entry.type, entry.id, entry.parentId])).toEqual([
      ["message", "a1", null],
      ["message", "a2", "a1"],
      ["message", "a3", "a2"],
      ["future_type", "f1", "a3"],
    ]);
    expect(session.entries.map((entry) => entry.entry())).toEqual([...first, odd]);
    const stored = session.entries[3]!;
    expect(stored.entry()).toBe(stored.entry());
  });

  it("writes each batch as tab-marked entry lines and one trailer line, readable by any JSON reader", async () => {
    const store = openStore();
    await store.createSession(header("s1"));
    await store.appendEntries("s1", chain("a", 2));
    await store.appendEntries("s1", [
      { ...userEntry("b1", "a2"), type: "session_info", name: " My session " },
    ]);
    const lines = fileLines(store.pathOf("s1")!);
    expect(lines).toHaveLength(1 + 3 + 2);
    expect(lines[1]!.endsWith("}\t")).toBe(true);
    expect(lines[2]!.endsWith("}\t")).toBe(true);
    expect(JSON.parse(lines[3]!)).toEqual({
      type: "session",
      arbor: "batch",
      lastEntryId: "a2",
      updatedAt: (JSON.parse(lines[2]!) as SessionEntry).timestamp,
      entries: 2,
      messages: 2,
    });
    expect(JSON.parse(lines[5]!)).toMatchObject({
      lastEntryId: "b1",
      entries: 3,
      messages: 2,
      name: "My session",
    });
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(lines[1]!.startsWith('{"type":"message","id":"a1","parentId":null,"timestamp":"')).toBe(true);
  });

  it("writes type, id, parentId and timestamp first whatever the key order given", async () => {
    const store = openStore();
    await store.createSession(header("s1"));
    await store.appendEntries("s1", [
      { extra: 1, timestamp: "t", parentId: null, id: "x", type: "custom" } as unknown as SessionEntry,
    ]);
    expect(fileLines(store.pathOf("s1")!)[1]).toBe(
      '{"type":"custom","id":"x","parentId":null,"timestamp":"t","extra":1}\t',
    );
  });

  it("opens a file without parsing the bodies: JSON.parse runs once for the header, then once per entry() asked", async () => {
    const home = temporaryHome();
    const writer = openStore({ home });
    await writer.createSession(header("s1"));
    await writer.appendEntries("s1", chain("a", 50));
    const reader = openStore({ home });
    const parse = vi.spyOn(JSON, "parse");
    const session = await reader.readSession("s1");
    expect(parse).toHaveBeenCalledTimes(1);
    expect(session.entries).toHaveLength(50);
    session.entries[10]!.entry();
    session.entries[10]!.entry();
    expect(parse).toHaveBeenCalledTimes(2);
  });

  it("parses a line the fast path cannot read once, while scanning, and never again", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("s1"));
    // The pi agent writes custom entries with `customType` and `data` before `id`.
    const line =
      '{"type":"custom","customType":"ext","data":{"k":1},"id":"c1","parentId":null,"timestamp":"t"}\n';
    appendFileSync(store.pathOf("s1")!, line);
    const reader = openStore({ home });
    const parse = vi.spyOn(JSON, "parse");
    const session = await reader.readSession("s1");
    expect(parse).toHaveBeenCalledTimes(2);
    expect(session.entries[0]!.entry()).toEqual(JSON.parse(line));
    expect(parse).toHaveBeenCalledTimes(3); // the expectation's own parse above
  });

  it("checks expectedLastEntryId against the last stored entry and writes nothing on a conflict", async () => {
    const store = openStore();
    await store.createSession(header("s1"));
    await store.appendEntries("s1", [userEntry("a", null)], { expectedLastEntryId: null });
    const size = readFileSync(store.pathOf("s1")!).length;
    const error = await store
      .appendEntries("s1", [userEntry("b", "a")], { expectedLastEntryId: null })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionConflictError);
    expect(error).toMatchObject({ expectedLastEntryId: null, actualLastEntryId: "a" });
    expect(readFileSync(store.pathOf("s1")!).length).toBe(size);
    await expect(store.appendEntries("s1", [], { expectedLastEntryId: "zzz" })).rejects.toBeInstanceOf(
      SessionConflictError,
    );
    await store.appendEntries("s1", [], { expectedLastEntryId: "a" });
    await store.appendEntries("s1", [userEntry("b", "a")], { expectedLastEntryId: "a" });
    expect((await store.readSession("s1")).entries.map((entry) => entry.id)).toEqual(["a", "b"]);
  });

  it("rejects invalid entries and values that are not JSON data, storing nothing of the batch", async () => {
    const store = openStore();
    await store.createSession(header("s1"));
    const size = readFileSync(store.pathOf("s1")!).length;
    const bad = [
      [userEntry("ok", null), { type: "message", parentId: null } as unknown as SessionEntry],
      [{ ...userEntry("x", null), parentId: 5 } as unknown as SessionEntry],
      [{ ...userEntry("y", null), big: 10n } as unknown as SessionEntry],
    ];
    for (const batch of bad) {
      await expect(store.appendEntries("s1", batch)).rejects.toMatchObject({ code: "invalid_argument" });
    }
    expect(readFileSync(store.pathOf("s1")!).length).toBe(size);
  });

  it("throws SessionNotFoundError for unknown and deleted sessions, and deletes sidecars with the file", async () => {
    const store = openStore();
    await expect(store.appendEntries("nope", [userEntry("a", null)])).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    await expect(store.readSession("nope")).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.deleteSession("nope")).rejects.toBeInstanceOf(SessionNotFoundError);
    await store.createSession(header("s1"));
    await store.appendEntries("s1", [userEntry("a", null)]);
    const path = store.pathOf("s1")!;
    appendFileSync(path, '{"type":"message","id":"torn');
    await store.readSession("s1");
    expect(existsSync(`${path}.torn`)).toBe(true);
    await store.deleteSession("s1");
    for (const file of [path, `${path}.torn`, `${path}.lock`]) expect(existsSync(file)).toBe(false);
    await expect(store.readSession("s1")).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.appendEntries("s1", [userEntry("b", "a")])).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
  });

  it("reports a session deleted by another store instance as not found", async () => {
    const home = temporaryHome();
    const first = openStore({ home });
    const second = openStore({ home });
    await first.createSession(header("s1"));
    await second.appendEntries("s1", [userEntry("a", null)]);
    await first.deleteSession("s1");
    await expect(second.appendEntries("s1", [userEntry("b", "a")])).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
  });

  it("appends to the file at the session's path when it was replaced underneath (an editor saving a copy)", async () => {
    const store = openStore();
    await store.createSession(header("s1"));
    await store.appendEntries("s1", [userEntry("a", null)]);
    const path = store.pathOf("s1")!;
    const copy = `${path}.saved-by-editor`;
    appendFileSync(copy, readFileSync(path));
    appendFileSync(copy, `${JSON.stringify(userEntry("edited", "a"))}\n`);
    renameSync(copy, path);
    await store.appendEntries("s1", [userEntry("b", "edited")], { expectedLastEntryId: "edited" });
    expect(
      (await openStore({ home: dirname(dirname(dirname(path))) }).readSession("s1")).entries.map(
        (entry) => entry.id,
      ),
    ).toEqual(["a", "edited", "b"]);
  });

  it("stores concurrent appends whole and in call order (they share syncs)", async () => {
    const store = openStore();
    await store.createSession(header("s1"));
    const batches = Array.from({ length: 40 }, (_, index) => chain(`b${index}-`, 3));
    await Promise.all(batches.map((batch) => store.appendEntries("s1", batch)));
    const session = await store.readSession("s1");
    expect(session.entries.map((entry) => entry.id)).toEqual(batches.flat().map((entry) => entry.id));
    expect(session.warnings).toEqual([]);
  });

  it("writes the same bytes with durability 'flush'", async () => {
    const home = temporaryHome();
    const store = new JsonlSessionStore({ home, durability: "flush" });
    await store.createSession(header("s1"));
    const entries = chain("a", 5);
    await store.appendEntries("s1", entries);
    await store.close();
    const reopened = openStore({ home });
    expect((await reopened.readSession("s1")).entries.map((entry) => entry.entry())).toEqual(entries);
  });

  it("continues after close(): the store reopens what it needs, and close() twice is harmless", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("s1"));
    await store.appendEntries("s1", [userEntry("a", null)]);
    await store.close();
    await store.close();
    expect(existsSync(`${store.pathOf("s1")}.lock`)).toBe(false);
    await store.appendEntries("s1", [userEntry("b", "a")], { expectedLastEntryId: "a" });
    expect((await store.readSession("s1")).entries).toHaveLength(2);
  });
});
