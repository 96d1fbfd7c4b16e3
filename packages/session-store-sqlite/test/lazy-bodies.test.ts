import { SessionCorruptError, type SessionEntry } from "@arbor/session-store";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { SqliteSessionStore } from "../src/index.js";
import { databaseFiles, header, userEntry } from "./support.js";

const newFile = databaseFiles("lazy");
const message = (id: string, parentId: string | null, text = `text of ${id}`) =>
  userEntry(id, parentId, text);

function chain(count: number): SessionEntry[] {
  const entries: SessionEntry[] = [];
  for (let n = 0; n < count; n++) entries.push(message(`e${n}`, entries.at(-1)?.id ?? null));
  return entries;
}

function setBody(file: string, id: string, body: string): void {
  const db = new Database(file);
  db.prepare("UPDATE arbor_entries SET body = ? WHERE id = ?").run(body, id);
  db.close();
}

it("fetches a body when entry() asks: what the row holds then, not on open", async () => {
  const file = newFile();
  const store = new SqliteSessionStore({ file });
  await store.createSession(header("s"));
  await store.appendEntries("s", chain(3));
  const read = await store.readSession("s");
  setBody(file, "e1", JSON.stringify(message("e1", "e0", "changed after the read")));
  setBody(file, "e2", "{torn");
  expect(read.entries.map((stored) => [stored.type, stored.id, stored.parentId])).toEqual([
    ["message", "e0", null],
    ["message", "e1", "e0"],
    ["message", "e2", "e1"],
  ]);
  const changed = read.entries[1]?.entry() as unknown as { message: { content: string } };
  expect(changed.message.content).toBe("changed after the read");
  expect(() => read.entries[2]?.entry()).toThrow(SessionCorruptError);
  // Parsed once: the same object on every call.
  expect(read.entries[0]?.entry()).toBe(read.entries[0]?.entry());
  await store.close();
});

it("reads the bodies of label, session_info and leaf entries with the tree", async () => {
  const file = newFile();
  const store = new SqliteSessionStore({ file });
  await store.createSession(header("s"));
  const label = {
    type: "label",
    id: "l",
    parentId: "e1",
    timestamp: "2026-01-01T00:00:02.000Z",
    targetId: "e0",
    label: "start",
  };
  const info = {
    type: "session_info",
    id: "i",
    parentId: "l",
    timestamp: "2026-01-01T00:00:03.000Z",
    name: "named",
  };
  await store.appendEntries("s", [...chain(2), label, info] as SessionEntry[]);
  const read = await store.readSession("s");
  setBody(file, "l", "{torn");
  setBody(file, "i", "{torn");
  expect(read.entries[2]?.entry()).toEqual(label);
  expect(read.entries[3]?.entry()).toEqual(info);
  await store.close();
});

it("serves walks forwards, backwards and at random with every body as appended", async () => {
  const file = newFile();
  const store = new SqliteSessionStore({ file });
  const entries = chain(1200);
  await store.createSession(header("s"));
  for (let start = 0; start < entries.length; start += 100)
    await store.appendEntries("s", entries.slice(start, start + 100));
  const orders = [
    [...entries.keys()],
    [...entries.keys()].reverse(),
    [...entries.keys()].map((index) => (index * 7919) % entries.length),
    [5, 900, 6, 7, 40, 41, 1199, 0, 600, 590, 580, 570],
  ];
  for (const order of orders) {
    const read = await store.readSession("s");
    for (const index of order) expect(read.entries[index]?.entry()).toEqual(entries[index]);
  }
  await store.close();
});

it("says so when a body is gone (the session deleted since the read) or the store closed", async () => {
  const store = new SqliteSessionStore({ file: newFile() });
  await store.createSession(header("s"));
  await store.appendEntries("s", chain(3));
  const read = await store.readSession("s");
  const again = await store.readSession("s");
  await store.deleteSession("s");
  expect(() => read.entries[1]?.entry()).toThrow(/row 1 \(entry "e1"\) is gone/);
  await store.close();
  expect(() => again.entries[1]?.entry()).toThrow(/is closed/);
});

it("reads a session whose rows are not numbered 0…n-1 (a row removed by hand) by their own seq", async () => {
  const file = newFile();
  const store = new SqliteSessionStore({ file });
  const entries = chain(5);
  await store.createSession(header("s"));
  await store.appendEntries("s", entries);
  const db = new Database(file);
  db.prepare("DELETE FROM arbor_entries WHERE id = 'e1'").run();
  db.close();
  const read = await store.readSession("s");
  expect(read.entries.map((stored) => stored.id)).toEqual(["e0", "e2", "e3", "e4"]);
  expect(read.entries.map((stored) => stored.entry())).toEqual([entries[0], ...entries.slice(2)]);
  await store.close();
});
