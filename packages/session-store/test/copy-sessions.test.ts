import { describe, expect, it } from "vitest";
import { copySessions, MemorySessionStore, type SessionEntry } from "../src/index.js";

const header = (id: string, second: number) => ({
  type: "session" as const,
  version: 3,
  id,
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
  cwd: "/copy",
  "x-extra": { kept: true },
});
function chain(prefix: string, count: number): SessionEntry[] {
  return Array.from({ length: count }, (_, index) => ({
    type: index % 2 === 0 ? "message" : "x-future",
    id: `${prefix}${index}`,
    parentId: index === 0 ? null : `${prefix}${index - 1}`,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 1, index)).toISOString(),
    ...(index % 2 === 0
      ? { message: { role: "user", content: [{ type: "text", text: `t${index}` }], timestamp: index } }
      : { payload: { n: index, nested: [1, "two"] } }),
  })) as unknown as SessionEntry[];
}

describe("copySessions", () => {
  it("copies every session entry for entry (same JSON text), in batches, headers as read", async () => {
    const from = new MemorySessionStore();
    const to = new MemorySessionStore();
    await from.createSession(header("a", 1));
    await from.appendEntries("a", chain("a", 7));
    await from.createSession(header("b", 2));
    await from.appendEntries("b", chain("b", 2));
    const copied: string[] = [];
    const result = await copySessions(from, to, undefined, {
      batchSize: 3,
      onCopied: (id) => copied.push(id),
    });
    expect(result).toEqual({ copied: ["a", "b"], entries: 9, warnings: [] });
    expect(copied).toEqual(["a", "b"]);
    for (const id of ["a", "b"]) {
      const source = await from.readSession(id);
      const target = await to.readSession(id);
      expect(target.header).toEqual(source.header);
      expect(target.entries.map((entry) => JSON.stringify(entry.entry()))).toEqual(
        source.entries.map((entry) => JSON.stringify(entry.entry())),
      );
    }
  });

  it("copies only the ids given, and stops with SessionExistsError when the target has one", async () => {
    const from = new MemorySessionStore();
    const to = new MemorySessionStore();
    for (const [index, id] of ["a", "b", "c"].entries()) {
      await from.createSession(header(id, index));
      await from.appendEntries(id, chain(id, 2));
    }
    expect((await copySessions(from, to, ["c"])).copied).toEqual(["c"]);
    expect((await to.listSessions()).sessions.map((session) => session.id)).toEqual(["c"]);
    await expect(copySessions(from, to, ["a", "c", "b"])).rejects.toMatchObject({ code: "session_exists" });
    expect((await to.listSessions()).sessions.map((session) => session.id).sort()).toEqual(["a", "c"]);
    await expect(copySessions(from, to, ["missing"])).rejects.toMatchObject({ code: "session_not_found" });
  });
});
