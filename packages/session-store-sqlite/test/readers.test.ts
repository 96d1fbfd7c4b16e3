import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSessionStore } from "../src/index.js";
import { exited, READER_USER, runReader, startHolder } from "./processes.js";

const root = mkdtempSync(join(tmpdir(), "arbor-sqlite-readers-"));
// The reader may run as another user (see READER_USER): it must reach the files.
chmodSync(root, 0o755);
afterAll(() => {
  chmodSync(root, 0o755);
  rmSync(root, { recursive: true, force: true });
});
let folders = 0;
function folder(): string {
  const path = join(root, `folder-${folders++}`);
  mkdirSync(path, { mode: 0o755 });
  chmodSync(path, 0o755);
  return path;
}
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

/** A database holding session `s` with entries a, b (closed again). */
async function database(directory = folder()): Promise<string> {
  const file = join(directory, "sessions.db");
  const store = new SqliteSessionStore({ file });
  await store.createSession(header("s"));
  await store.appendEntries("s", [entry("a", null), entry("b", "a")]);
  await store.close();
  return file;
}

describe("readers", () => {
  it("list and read at once while another process holds a write transaction, as the CLI opens them", async () => {
    const file = await database();
    const holder = await startHolder(file, "s", "transaction");
    // A busy timeout longer than the test's: a reader that waited for the writer would time out.
    const store = new SqliteSessionStore({ file, busyTimeoutMs: 60_000 });
    expect((await store.listSessions()).sessions.map((summary) => summary.id)).toEqual(["s"]);
    expect((await store.readSession("s")).entries.map((stored) => stored.id)).toEqual(["a", "b"]);
    await store.close();
    holder.stdin!.write("close\n");
    await exited(holder);
  }, 20_000);

  it("write nothing: opening, listing and reading leave the file as it was", async () => {
    const file = await database();
    const before = readFileSync(file);
    const store = new SqliteSessionStore({ file });
    await store.listSessions();
    await store.readSession("s");
    await store.close();
    expect(readFileSync(file).equals(before)).toBe(true);
    // A new file opened and closed by a store that never wrote holds no table (nothing was migrated).
    const fresh = join(folder(), "fresh.db");
    const empty = new SqliteSessionStore({ file: fresh });
    expect((await empty.listSessions()).sessions).toEqual([]);
    await expect(empty.readSession("s")).rejects.toMatchObject({ code: "session_not_found" });
    await empty.close();
    expect(readFileSync(fresh).length).toBe(0);
  });

  it("with readOnly create nothing: a missing file reads as an empty store and stays missing", async () => {
    const file = join(folder(), "missing", "sessions.db");
    const store = new SqliteSessionStore({ file, readOnly: true });
    expect(store.mode).toBe("empty");
    expect((await store.listSessions()).sessions).toEqual([]);
    await expect(store.createSession(header("s"))).rejects.toMatchObject({
      code: "store_unavailable",
      reason: "read_only",
    });
    await store.close();
    expect(existsSync(join(file, ".."))).toBe(false);
  });

  it("see the sessions a writer stores after they opened an empty file", async () => {
    const file = join(folder(), "later.db");
    const reader = new SqliteSessionStore({ file });
    expect((await reader.listSessions()).sessions).toEqual([]);
    const writer = new SqliteSessionStore({ file });
    await writer.createSession(header("s"));
    await writer.close();
    expect((await reader.listSessions()).sessions.map((summary) => summary.id)).toEqual(["s"]);
    expect((await reader.readSession("s")).entries).toEqual([]);
    await reader.close();
  });
});

describe(`a read-only database (the reader runs as ${READER_USER === undefined ? "this user" : "nobody"})`, () => {
  it("in a directory it cannot write (a read-only mount) is listed and shown, and a write says not writable", async () => {
    const directory = folder();
    const file = await database(directory);
    chmodSync(file, 0o444);
    chmodSync(directory, 0o555);
    const outcome = await runReader(file, "s");
    chmodSync(directory, 0o755);
    expect(outcome.error).toBeUndefined();
    expect(outcome.listed).toEqual(["s"]);
    expect(outcome.entries).toEqual(["a", "b"]);
    expect(outcome.append).toMatchObject({
      code: "store_unavailable",
      reason: "read_only",
      transient: false,
    });
    const message = (outcome.append as { message: string }).message;
    expect(message).toMatch(new RegExp(`^The SQLite session store ${file} is not writable \\(`));
    expect(message).not.toContain("\n");
  });

  it("in a directory it can write is listed and shown, and a write says not writable", async () => {
    const directory = folder();
    const file = await database(directory);
    chmodSync(file, 0o444);
    chmodSync(directory, 0o777);
    const outcome = await runReader(file, "s");
    chmodSync(directory, 0o755);
    expect(outcome.error).toBeUndefined();
    expect(outcome.listed).toEqual(["s"]);
    expect(outcome.entries).toEqual(["a", "b"]);
    expect(outcome.append).toMatchObject({ code: "store_unavailable", reason: "read_only" });
  });
});
