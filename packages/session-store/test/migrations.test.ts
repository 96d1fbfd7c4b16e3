import { describe, expect, it } from "vitest";
import {
  migrateSessionLines,
  needsMigration,
  sessionVersionOf,
  validateSessionEntry,
} from "../src/backend.js";
import { MemorySessionStore, Session } from "../src/index.js";
import { describeMessages } from "./helpers.js";

const usage = {
  input: 100,
  output: 20,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 120,
  cost: { input: 0.0003, output: 0.0003, cacheRead: 0, cacheWrite: 0, total: 0.0006 },
};

/** A version 1 file as the pi agent wrote them: no version, no ids, compaction by line index. */
const VERSION_1 = [
  '{"type":"session","id":"9f1c2d3e-0000-4000-8000-000000000001","timestamp":"2025-11-02T09:00:00.000Z","cwd":"/home/user/project"}',
  '{"type":"model_change","timestamp":"2025-11-02T09:00:00.010Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}',
  '{"type":"thinking_level_change","timestamp":"2025-11-02T09:00:00.010Z","thinkingLevel":"medium"}',
  `{"type":"message","timestamp":"2025-11-02T09:00:01.000Z","message":{"role":"user","content":"List the files","timestamp":1762074001000}}`,
  `{"type":"message","timestamp":"2025-11-02T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"a.txt b.txt"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":${JSON.stringify(usage)},"stopReason":"stop","timestamp":1762074002000}}`,
  `{"type":"message","timestamp":"2025-11-02T09:00:03.000Z","message":{"role":"user","content":[{"type":"text","text":"Now read a.txt"}],"timestamp":1762074003000}}`,
  `{"type":"message","timestamp":"2025-11-02T09:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"It says hello"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":${JSON.stringify(usage)},"stopReason":"stop","timestamp":1762074004000}}`,
  '{"type":"compaction","timestamp":"2025-11-02T09:10:00.000Z","summary":"The user listed files.","firstKeptEntryIndex":5,"tokensBefore":52000}',
  `{"type":"message","timestamp":"2025-11-02T09:10:01.000Z","message":{"role":"user","content":"Thanks","timestamp":1762074601000},"x-extra":{"kept":true}}`,
].map((line) => JSON.parse(line) as unknown);

/** A version 2 file: ids and a tree, and a hook message. */
const VERSION_2 = [
  '{"type":"session","version":2,"id":"9f1c2d3e-0000-4000-8000-000000000002","timestamp":"2025-12-01T08:00:00.000Z","cwd":"/home/user/project"}',
  '{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2025-12-01T08:00:01.000Z","message":{"role":"user","content":"Hi","timestamp":1764576001000}}',
  '{"type":"message","id":"b2c3d4e5","parentId":"a1b2c3d4","timestamp":"2025-12-01T08:00:02.000Z","message":{"role":"hookMessage","customType":"todo-reminder","content":"Remember the TODO list","display":true,"timestamp":1764576002000}}',
  '{"type":"custom","id":"c3d4e5f6","parentId":"b2c3d4e5","timestamp":"2025-12-01T08:00:03.000Z","customType":"todo","data":{"items":["x"]}}',
  '{"type":"label","id":"d4e5f6a7","parentId":"c3d4e5f6","timestamp":"2025-12-01T08:00:04.000Z","targetId":"a1b2c3d4","label":"start"}',
].map((line) => JSON.parse(line) as unknown);

describe("migrateSessionLines", () => {
  it("gives version 1 entries deterministic ids in a chain and resolves firstKeptEntryIndex", () => {
    const before = structuredClone(VERSION_1);
    const migration = migrateSessionLines(VERSION_1);
    expect(VERSION_1).toEqual(before);
    expect(migration.fromVersion).toBe(1);
    expect(migration.warnings).toEqual([]);
    expect(migration.header).toEqual({ ...(VERSION_1[0] as object), version: 3 });
    const ids = migration.entries.map((entry) => entry.id);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(migration.entries.map((entry) => entry.parentId)).toEqual([null, ...ids.slice(0, -1)]);
    const compaction = migration.entries[6] as Record<string, unknown>;
    // Line 5 (the header is line 0) is the second user message.
    expect(compaction.firstKeptEntryId).toBe(ids[4]);
    expect(compaction).not.toHaveProperty("firstKeptEntryIndex");
    expect((migration.entries[7] as Record<string, unknown>)["x-extra"]).toEqual({ kept: true });
    for (const entry of migration.entries) expect(validateSessionEntry(entry).ok).toBe(true);
    expect(migrateSessionLines(VERSION_1)).toEqual(migration);
  });

  it("migrates version 1 into a session that opens and builds its context", async () => {
    const migration = migrateSessionLines(VERSION_1);
    const store = new MemorySessionStore();
    await store.createSession(migration.header);
    await store.appendEntries(migration.header.id, migration.entries);
    const session = await Session.open(store, migration.header.id);
    const context = session.buildContext();
    expect(describeMessages(context.messages)).toEqual([
      "compactionSummary: The user listed files.",
      "user: Now read a.txt",
      "assistant: It says hello",
      "user: Thanks",
    ]);
    expect(context).toMatchObject({
      thinkingLevel: "medium",
      model: { provider: "anthropic", modelId: "claude-sonnet-4-5" },
    });
    expect(session.warnings).toEqual([]);
  });

  it("keeps nothing before a version 1 compaction whose index names no earlier line, with a warning", () => {
    const lines = structuredClone(VERSION_1);
    (lines[7] as Record<string, unknown>).firstKeptEntryIndex = 42;
    const migration = migrateSessionLines(lines);
    const compaction = migration.entries[6];
    expect((compaction as Record<string, unknown>).firstKeptEntryId).toBe(compaction?.id);
    expect(migration.warnings).toEqual([expect.stringContaining("firstKeptEntryIndex 42")]);
  });

  it("renames version 2 hookMessage to custom and keeps everything else", async () => {
    const migration = migrateSessionLines(VERSION_2);
    expect(migration.fromVersion).toBe(2);
    expect(migration.header.version).toBe(3);
    expect(migration.entries.map((entry) => entry.id)).toEqual([
      "a1b2c3d4",
      "b2c3d4e5",
      "c3d4e5f6",
      "d4e5f6a7",
    ]);
    expect(migration.entries[1]).toMatchObject({ message: { role: "custom", customType: "todo-reminder" } });
    expect(migration.entries.slice(2)).toEqual(VERSION_2.slice(3));

    const store = new MemorySessionStore();
    await store.createSession(migration.header);
    await store.appendEntries(migration.header.id, migration.entries);
    const session = await Session.open(store, migration.header.id);
    expect(describeMessages(session.buildContext().messages)).toEqual([
      "user: Hi",
      "custom: Remember the TODO list",
    ]);
    expect(session.getLabel("a1b2c3d4")).toBe("start");
  });

  it("returns version 3 lines as unchanged copies", () => {
    const lines = migrateSessionLines(VERSION_2).entries;
    const header = { ...(VERSION_2[0] as object), version: 3 };
    const again = migrateSessionLines([header, ...lines]);
    expect(again.fromVersion).toBe(3);
    expect(again.entries).toEqual(lines);
    expect(again.entries[0]).not.toBe(lines[0]);
  });

  it("leaves out lines that are not objects and rejects a file without a header", () => {
    const migration = migrateSessionLines([VERSION_2[0], "garbage", VERSION_2[1], null]);
    expect(migration.entries).toHaveLength(1);
    expect(migration.warnings).toEqual([
      expect.stringContaining("Line 1 is not a JSON object"),
      expect.stringContaining("Line 3 is not a JSON object"),
    ]);
    expect(() => migrateSessionLines([VERSION_2[1]])).toThrow(TypeError);
    expect(() => migrateSessionLines([])).toThrow(TypeError);
  });

  it("tells which headers need a migration", () => {
    expect(sessionVersionOf(VERSION_1[0])).toBe(1);
    expect(needsMigration(VERSION_1[0])).toBe(true);
    expect(needsMigration(VERSION_2[0])).toBe(true);
    expect(needsMigration({ ...(VERSION_2[0] as object), version: 3 })).toBe(false);
  });
});
