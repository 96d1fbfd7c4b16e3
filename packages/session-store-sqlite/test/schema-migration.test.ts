import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session, type SessionEntry, type SessionSummary } from "@arbor/session-store";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { SQLITE_SCHEMA_VERSION, SqliteSessionStore } from "../src/index.js";

const directory = mkdtempSync(join(tmpdir(), "arbor-sqlite-migration-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Schema version 1 as @arbor/session-store-sqlite wrote it before version 2. */
const SCHEMA_1 = `
  CREATE TABLE arbor_schema_version (version INTEGER NOT NULL);
  INSERT INTO arbor_schema_version (version) VALUES (1);
  CREATE TABLE arbor_sessions (id TEXT PRIMARY KEY, header TEXT NOT NULL, cwd TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, updated_ms INTEGER NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0, entry_count INTEGER NOT NULL DEFAULT 0, last_entry_id TEXT,
    name TEXT, parent_session TEXT);
  CREATE INDEX arbor_sessions_by_activity ON arbor_sessions (updated_ms DESC, id);
  CREATE INDEX arbor_sessions_by_cwd ON arbor_sessions (cwd, updated_ms DESC, id);
  CREATE TABLE arbor_entries (session_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL,
    parent_id TEXT, type TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
  CREATE INDEX arbor_entries_by_id ON arbor_entries (session_id, id);
  CREATE INDEX arbor_entries_by_parent ON arbor_entries (session_id, parent_id);
`;

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const user = (id: string, parentId: string | null, content: unknown, second: number) => ({
  type: "message",
  id,
  parentId,
  timestamp: at(second),
  message: { role: "user", content, timestamp: second },
});

/** Writes sessions the way version 1 did: rows, and the summary columns kept by each append. */
function writeVersion1(file: string): void {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.exec(SCHEMA_1);
  const session = db.prepare(
    `INSERT INTO arbor_sessions (id, header, cwd, created_at, updated_at, updated_ms, message_count,
       entry_count, last_entry_id, name) VALUES (?, ?, '/w', ?, ?, ?, ?, ?, ?, ?)`,
  );
  const row = db.prepare("INSERT INTO arbor_entries VALUES (?, ?, ?, ?, ?, ?)");
  const sessions: [string, Record<string, unknown>[], string | null][] = [
    ["text", [user("t0", null, "  first words  ", 10), user("t1", "t0", "second", 11)], null],
    [
      "blocks",
      [
        user(
          "b0",
          null,
          [{ type: "text", text: "one" }, { type: "image" }, { type: "text", text: "two" }],
          20,
        ),
      ],
      "named",
    ],
    [
      "no-text",
      [
        user("n0", null, [{ type: "image", data: "", mimeType: "image/png" }], 30),
        user("n1", "n0", "later", 31),
      ],
      null,
    ],
    ["empty", [], null],
  ];
  for (const [index, [id, entries, name]] of sessions.entries()) {
    const created = at(index);
    const updated = (entries.at(-1)?.timestamp as string | undefined) ?? created;
    const header = { type: "session", version: 3, id, timestamp: created, cwd: "/w" };
    session.run(
      id,
      JSON.stringify(header),
      created,
      updated,
      Date.parse(updated),
      entries.length,
      entries.length,
      (entries.at(-1)?.id as string | undefined) ?? null,
      name,
    );
    for (const [seq, entry] of entries.entries())
      row.run(id, seq, entry.id, entry.parentId, entry.type, JSON.stringify(entry));
  }
  db.close();
}

const brief = (sessions: SessionSummary[]) =>
  sessions.map(({ id, firstMessage, messageCount, name }) => ({ id, firstMessage, messageCount, name }));

it("reads a version 1 database unchanged, and its first write migrates it to the current version", async () => {
  const file = join(directory, "v1.db");
  writeVersion1(file);
  const expected = [
    { id: "no-text", firstMessage: undefined, messageCount: 2, name: undefined },
    { id: "blocks", firstMessage: "one two", messageCount: 1, name: "named" },
    { id: "text", firstMessage: "first words", messageCount: 2, name: undefined },
    { id: "empty", firstMessage: undefined, messageCount: 0, name: undefined },
  ];

  // A reader (read-only, or before its first write) reads version 1 as it is.
  const reader = new SqliteSessionStore({ file, readOnly: true });
  const page = await reader.listSessions({ limit: 3 });
  expect(brief(page.sessions)).toEqual(expected.slice(0, 3));
  expect(brief((await reader.listSessions({ cursor: page.nextCursor })).sessions)).toEqual(expected.slice(3));
  expect((await Session.open(reader, "text")).buildContext().entryIds).toEqual(["t0", "t1"]);
  const version = () => {
    const db = new Database(file, { readonly: true });
    const found = (db.prepare("SELECT version FROM arbor_schema_version").get() as { version: number })
      .version;
    db.close();
    return found;
  };
  expect(version()).toBe(1);

  // The first write migrates; the listing is the same, and the reader opened before still reads.
  const writer = new SqliteSessionStore({ file });
  await writer.appendEntries("empty", [user("e0", null, "now a message", 40) as SessionEntry], {
    expectedLastEntryId: null,
  });
  expect(version()).toBe(SQLITE_SCHEMA_VERSION);
  const upgraded = [
    { id: "empty", firstMessage: "now a message", messageCount: 1, name: undefined },
    ...expected.slice(0, 3),
  ];
  expect(brief((await writer.listSessions()).sessions)).toEqual(upgraded);
  expect(brief((await reader.listSessions()).sessions)).toEqual(upgraded);
  await writer.appendEntries("no-text", [user("n2", "n1", "not the first", 50) as SessionEntry]);
  expect((await writer.listSessions({ limit: 1 })).sessions[0]).toMatchObject({
    id: "no-text",
    messageCount: 3,
  });
  expect((await writer.listSessions({ limit: 1 })).sessions[0]?.firstMessage).toBeUndefined();
  expect((await Session.open(writer, "text")).buildContext().entryIds).toEqual(["t0", "t1"]);
  await writer.close();
  await reader.close();
});
