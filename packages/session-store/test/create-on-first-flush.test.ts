import { describe, expect, it } from "vitest";
import { MemorySessionStore, Session, SessionExistsError } from "../src/index.js";
import { tickingClock, user } from "./helpers.js";

describe("Session.create with createOnFirstFlush", () => {
  it("stores nothing until a flush with entries, then the header and the entries", async () => {
    const store = new MemorySessionStore();
    const session = await Session.create(store, {
      cwd: "/project",
      id: "later",
      createOnFirstFlush: true,
      now: tickingClock(),
    });
    expect(session.isStored).toBe(false);
    await session.flush(); // nothing pending: still nothing stored
    expect((await store.listSessions()).sessions).toEqual([]);
    await expect(store.readSession("later")).rejects.toMatchObject({ code: "session_not_found" });

    const entry = session.appendMessage(user("first prompt"));
    await session.flush();
    expect(session.isStored).toBe(true);
    const stored = await store.readSession("later");
    expect(stored.header).toEqual(session.header);
    expect(stored.entries.map((stored) => stored.id)).toEqual([entry.id]);

    // Later flushes append as usual.
    const second = session.appendMessage(user("second"));
    await session.flush();
    expect((await store.readSession("later")).entries.map((stored) => stored.id)).toEqual([
      entry.id,
      second.id,
    ]);
  });

  it("claims the id at that flush: a taken id rejects and keeps the entries pending", async () => {
    const store = new MemorySessionStore();
    const session = await Session.create(store, { cwd: "/a", id: "taken", createOnFirstFlush: true });
    await Session.create(store, { cwd: "/b", id: "taken" });
    session.appendMessage(user("mine"));
    await expect(session.flush()).rejects.toBeInstanceOf(SessionExistsError);
    expect(session.pendingCount).toBe(1);
    expect(session.isStored).toBe(false);
    expect((await store.readSession("taken")).header.cwd).toBe("/b");
  });

  it("without the option, the header is written at once", async () => {
    const store = new MemorySessionStore();
    const session = await Session.create(store, { cwd: "/project", id: "now" });
    expect(session.isStored).toBe(true);
    expect((await store.readSession("now")).entries).toEqual([]);
  });
});
