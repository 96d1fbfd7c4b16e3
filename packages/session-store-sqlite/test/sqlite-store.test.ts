import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session, SessionCorruptError } from "@arbor/session-store";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import {
  openSqliteStore,
  SQLITE_SCHEMA_VERSION,
  SqliteNotADatabaseError,
  SqliteSchemaTooNewError,
  SqliteSessionStore,
  SqliteUnavailableError,
} from "../src/index.js";

const directory = mkdtempSync(join(tmpdir(), "arbor-sqlite-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(directory, `store-${files++}.db`);
const header = (id: string) => ({
  type: "session" as const,
  version: 3,
  id,
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/w",
});
const entry = (id: string, parentId: string | null) =>
  ({
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: "hi", timestamp: 1 },
  }) as never;

it("reads a corrupt body when it is used, not on open: entry() throws SessionCorruptError naming the row", async () => {
  const file = newFile();
  const warned: string[] = [];
  const store = new SqliteSessionStore({ file, onWarning: (message) => warned.push(message) });
  await store.createSession(header("s"));
  await store.appendEntries("s", [entry("a", null), entry("b", "a"), entry("c", "b")]);
  const db = new Database(file);
  db.prepare("UPDATE arbor_entries SET body = '{torn' WHERE id = 'b'").run();
  db.close();
  const read = await store.readSession("s");
  expect(read.entries.map((stored) => stored.id)).toEqual(["a", "b", "c"]);
  expect(read.warnings).toEqual([]);
  expect(read.entries[0]?.entry().id).toBe("a");
  expect(() => read.entries[1]?.entry()).toThrow(/row 1 \(entry "b"\) is not valid JSON/);
  expect(() => read.entries[1]?.entry()).toThrow(SessionCorruptError);
  expect(read.entries[2]?.entry().id).toBe("c");
  // A Session reports it and leaves it out of the context.
  const session = await Session.open(store, "s");
  expect(session.buildContext().entryIds).toEqual(["a", "c"]);
  expect(session.notices.map((notice) => notice.kind)).toContain("unreadable_entry");
  expect(warned).toEqual([]);
  await store.close();
});

it("uses WAL, a busy timeout and a schema version table, set up by the first write", async () => {
  const file = newFile();
  const store = openSqliteStore({ file, busyTimeoutMs: 1234 });
  await store.createSession(header("first"));
  await store.close();
  const db = new Database(file);
  expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
  expect(db.prepare("SELECT version FROM arbor_schema_version").all()).toEqual([
    { version: SQLITE_SCHEMA_VERSION },
  ]);
  const indexes = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'arbor_entries'")
    .all();
  expect(indexes.map((row) => (row as { name: string }).name)).toEqual(
    expect.arrayContaining(["arbor_entries_by_id", "arbor_entries_by_parent"]),
  );
  db.prepare("UPDATE arbor_schema_version SET version = ?").run(SQLITE_SCHEMA_VERSION + 1);
  db.close();
  expect(() => new SqliteSessionStore({ file })).toThrow(SqliteSchemaTooNewError);
});

it("refuses a file that is not a database with SqliteNotADatabaseError, one it cannot open with SqliteUnavailableError", () => {
  const notADatabase = newFile();
  writeFileSync(
    notADatabase,
    "this is not an SQLite database, just text that is long enough to be read\n".repeat(20),
  );
  const thrownBy = (file: string) => {
    try {
      new SqliteSessionStore({ file });
    } catch (error) {
      return error;
    }
    return undefined;
  };
  const refused = thrownBy(notADatabase);
  expect(refused).toBeInstanceOf(SqliteNotADatabaseError);
  expect(refused).toMatchObject({ code: "sqlite_not_a_database" });
  expect((refused as Error).message).toBe(
    `${notADatabase} is not an SQLite session database (SQLITE_NOTADB: file is not a database). Name ` +
      "another file (sqlite:FILE), or move this one away.",
  );
  const directoryAsFile = directory;
  const blocked = join(notADatabase, "inside.db"); // a directory that cannot be made: its parent is a file
  for (const file of [directoryAsFile, blocked]) {
    const thrown = thrownBy(file);
    expect(thrown).toBeInstanceOf(SqliteUnavailableError);
    expect(thrown).toMatchObject({ code: "store_unavailable", reason: "unusable", transient: false });
    expect((thrown as Error).message).toContain(`Cannot open the SQLite session store ${file}`);
  }
});

it("opens from a sqlite: URL, and many sessions share the file", async () => {
  const file = newFile();
  const store = SqliteSessionStore.fromUrl(`sqlite:${file}`);
  await store.createSession(header("one"));
  await store.createSession(header("two"));
  await store.close();
  const again = SqliteSessionStore.fromUrl(`sqlite://${file}`);
  expect((await again.listSessions()).sessions.map((session) => session.id).sort()).toEqual(["one", "two"]);
  await again.close();
  expect(() => SqliteSessionStore.fromUrl("sqlite:")).toThrow(/sqlite:FILE/);
});

it("lists each session's first user message without reading the session", async () => {
  const store = new SqliteSessionStore({ file: ":memory:" });
  await store.createSession(header("talk"));
  const message = (id: string, parentId: string | null, role: string, content: unknown) =>
    ({
      type: "message",
      id,
      parentId,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { role, content },
    }) as never;
  await store.appendEntries("talk", [
    message("a1", null, "assistant", [{ type: "text", text: "hello first" }]),
    message("u1", "a1", "user", [
      { type: "text", text: "Fix the" },
      { type: "image" },
      { type: "text", text: "build" },
    ]),
    message("u2", "u1", "user", "a later question"),
  ]);
  await store.createSession(header("silent"));
  const byId = new Map((await store.listSessions()).sessions.map((summary) => [summary.id, summary]));
  expect(byId.get("talk")?.firstMessage).toBe("Fix the build");
  expect(byId.get("silent")?.firstMessage).toBeUndefined();
  await store.close();
});

it("refuses operations after close()", async () => {
  const store = new SqliteSessionStore({ file: ":memory:" });
  await store.close();
  await expect(store.listSessions()).rejects.toThrow(/closed/);
});
