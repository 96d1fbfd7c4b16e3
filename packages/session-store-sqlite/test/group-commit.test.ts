import { SessionConflictError, type StoredEntry } from "@arbor/session-store";
import { expect, it } from "vitest";
import { SqliteSessionStore } from "../src/index.js";
import { databaseFiles, header, userEntry } from "./support.js";

const newFile = databaseFiles("group");
const message = (id: string, parentId: string | null) => userEntry(id, parentId, id);

it("commits appends made together in one go: one with a stale expectedLastEntryId fails alone, the rest land in order", async () => {
  const store = new SqliteSessionStore({ file: newFile() });
  await store.createSession(header("a"));
  await store.createSession(header("b"));
  await store.appendEntries("a", [message("a0", null)]);
  const delivered: string[][] = [];
  const watch = await store.watch("a", (entries: readonly StoredEntry[]) =>
    delivered.push(entries.map((entry) => entry.id)),
  );
  const results = await Promise.allSettled([
    store.appendEntries("a", [message("a1", "a0")], { expectedLastEntryId: "a0" }),
    store.appendEntries("a", [message("x", "a0")], { expectedLastEntryId: "a0" }),
    store.appendEntries("b", [message("b0", null)], { expectedLastEntryId: null }),
    store.appendEntries("a", [message("a2", "a1"), message("a3", "a2")], { expectedLastEntryId: "a1" }),
    store.appendEntries("missing", [message("m", null)]),
    store.appendEntries("b", [message("b1", "b0")]),
  ]);
  expect(results.map((result) => result.status)).toEqual([
    "fulfilled",
    "rejected",
    "fulfilled",
    "fulfilled",
    "rejected",
    "fulfilled",
  ]);
  expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(SessionConflictError);
  expect((results[4] as PromiseRejectedResult).reason).toMatchObject({ code: "session_not_found" });
  expect((await store.readSession("a")).entries.map((entry) => entry.id)).toEqual(["a0", "a1", "a2", "a3"]);
  expect((await store.readSession("b")).entries.map((entry) => entry.id)).toEqual(["b0", "b1"]);
  // One commit for the group: the watcher is handed its appends at once, each exactly once.
  expect(delivered).toEqual([["a1", "a2", "a3"]]);
  const listed = (await store.listSessions()).sessions.find((session) => session.id === "a");
  expect(listed).toMatchObject({ messageCount: 4, firstMessage: "a0" });
  await watch.close();
  await store.close();
});

it("keeps the order of operations: a read, a delete or a close after an append sees it committed", async () => {
  const file = newFile();
  const store = new SqliteSessionStore({ file });
  await store.createSession(header("s"));
  void store.appendEntries("s", [message("e0", null)]);
  expect((await store.readSession("s")).entries.map((entry) => entry.id)).toEqual(["e0"]);
  const appended = store.appendEntries("s", [message("e1", "e0")]);
  await store.deleteSession("s");
  await appended;
  await store.createSession(header("t"));
  const last = store.appendEntries("t", [message("t0", null)]);
  await store.close();
  await last;
  const reopened = new SqliteSessionStore({ file });
  expect((await reopened.readSession("t")).entries.map((entry) => entry.id)).toEqual(["t0"]);
  await reopened.close();
});
