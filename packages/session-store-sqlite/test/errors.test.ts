import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionStoreUnavailableError } from "@arbor/session-store";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { SqliteNotADatabaseError, SqliteSessionStore, SqliteUnavailableError } from "../src/index.js";

const directory = mkdtempSync(join(tmpdir(), "arbor-sqlite-errors-"));
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
const entry = (id: string, parentId: string | null, text = "hi") =>
  ({
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: text, timestamp: 1 },
  }) as never;

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

it("a write that waits past the busy timeout is 'locked by another process': store_unavailable, transient", async () => {
  const file = newFile();
  const store = new SqliteSessionStore({ file, busyTimeoutMs: 100 });
  await store.createSession(header("s"));
  const other = new Database(file);
  other.exec("BEGIN IMMEDIATE");
  try {
    const error = await failure(store.appendEntries("s", [entry("a", null)], { expectedLastEntryId: null }));
    expect(error).toBeInstanceOf(SqliteUnavailableError);
    expect(SessionStoreUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "store_unavailable",
      reason: "locked",
      transient: true,
      store: file,
    });
    expect(error.message).toBe(
      `The SQLite session store ${file} is locked by another process (SQLITE_BUSY: it held a write ` +
        "transaction for longer than the 0.1 s busy timeout). Try again when it has finished.",
    );
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
  // Nothing was stored, and the next append goes through.
  expect((await store.readSession("s")).entries).toEqual([]);
  await store.appendEntries("s", [entry("a", null)], { expectedLastEntryId: null });
  await store.close();
});

it("a full disk is 'disk full': store_unavailable, not transient, nothing stored", async () => {
  const file = newFile();
  const store = new SqliteSessionStore({ file });
  await store.createSession(header("s"));
  // The store's own connection may not grow the file: what SQLite does when the disk is full.
  const db = (store as unknown as { db: Database.Database }).db;
  db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true }) as number}`);
  const error = await failure(store.appendEntries("s", [entry("a", null, "x".repeat(100_000))]));
  expect(error).toMatchObject({ code: "store_unavailable", reason: "disk_full", transient: false });
  expect(error.message).toMatch(
    new RegExp(
      `^Cannot write to the SQLite session store ${file}: the disk is full \\(SQLITE_FULL: .*\\)\\. Free some space and try again\\.$`,
    ),
  );
  expect((await store.readSession("s")).entries).toEqual([]);
  await store.close();
});

it("a store opened read-only is 'not writable' for every write and the lease", async () => {
  const file = newFile();
  const writer = new SqliteSessionStore({ file });
  await writer.createSession(header("s"));
  await writer.close();
  const store = new SqliteSessionStore({ file, readOnly: true });
  expect(store.mode).toBe("read-only");
  for (const write of [
    () => store.createSession(header("t")),
    () => store.appendEntries("s", [entry("a", null)]),
    () => store.deleteSession("s"),
    () => store.acquireWriterLease("s"),
  ]) {
    const error = await failure(write());
    expect(error).toMatchObject({ code: "store_unavailable", reason: "read_only", transient: false });
    expect(error.message).toMatch(
      /^The SQLite session store .* is not writable \(opened read-only, so it cannot /,
    );
  }
  expect((await store.readSession("s")).header.id).toBe("s");
  await store.close();
});

it("tells the four apart by type and code: locked, disk full, not writable, not a database", () => {
  const kinds = [
    new SqliteUnavailableError("/x.db", "locked", "SQLITE_BUSY: database is locked"),
    new SqliteUnavailableError("/x.db", "disk_full", "SQLITE_FULL: database or disk is full"),
    new SqliteUnavailableError("/x.db", "read_only", "SQLITE_READONLY: attempt to write a readonly database"),
    new SqliteNotADatabaseError("/x.db", "SQLITE_NOTADB: file is not a database"),
  ];
  expect(kinds.map((error) => [error.code, (error as { reason?: string }).reason])).toEqual([
    ["store_unavailable", "locked"],
    ["store_unavailable", "disk_full"],
    ["store_unavailable", "read_only"],
    ["sqlite_not_a_database", undefined],
  ]);
  // None ends with the advice for a file that cannot be opened at all.
  expect(kinds.some((error) => /Name a writable database file/.test(error.message))).toBe(false);
  expect(kinds.every((error) => !error.message.includes("\n"))).toBe(true);
});
