import { appendFileSync, copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionEntry, SessionSummary } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { header, openStore, temporaryHome, userEntry } from "./helpers.js";

const fixtures = join(import.meta.dirname, "../../../fixtures/pi-sessions");

function at(
  id: string,
  parentId: string | null,
  timestamp: string,
  extra: Record<string, unknown> = {},
): SessionEntry {
  return { ...userEntry(id, parentId), timestamp, ...extra } as unknown as SessionEntry;
}

async function page(
  store: ReturnType<typeof openStore>,
  query: Parameters<ReturnType<typeof openStore>["listSessions"]>[0],
): Promise<SessionSummary[][]> {
  const pages: SessionSummary[][] = [];
  let cursor: string | undefined;
  do {
    const result = await store.listSessions({ ...query, cursor });
    pages.push(result.sessions);
    cursor = result.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

describe("listSessions", () => {
  it("lists newest activity first with name, message count, parent and location", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("old", "/p", "2026-01-01T00:00:00.000Z"));
    await store.createSession({
      ...header("busy", "/p", "2026-01-01T00:00:01.000Z"),
      parentSession: "/x/old.jsonl",
    });
    await store.createSession(header("idle", "/q", "2026-01-03T00:00:00.000Z"));
    await store.appendEntries("old", [at("o1", null, "2026-01-02T00:00:00.000Z")]);
    await store.appendEntries("busy", [
      at("b1", null, "2026-01-04T00:00:00.000Z"),
      at("b2", "b1", "2026-01-04T00:00:01.000Z"),
    ]);
    await store.appendEntries("busy", [
      {
        type: "session_info",
        id: "b3",
        parentId: "b2",
        timestamp: "2026-01-05T00:00:00.000Z",
        name: "  Named  ",
      },
    ]);
    const { sessions, nextCursor } = await openStore({ home }).listSessions();
    expect(nextCursor).toBeUndefined();
    expect(sessions.map((summary) => summary.id)).toEqual(["busy", "idle", "old"]);
    expect(sessions[0]).toEqual({
      id: "busy",
      cwd: "/p",
      createdAt: "2026-01-01T00:00:01.000Z",
      updatedAt: "2026-01-05T00:00:00.000Z",
      name: "Named",
      messageCount: 2,
      parentSession: "/x/old.jsonl",
      location: store.pathOf("busy"),
      firstMessage: "text of b1",
    });
    expect(sessions[1]).toMatchObject({ id: "idle", updatedAt: "2026-01-03T00:00:00.000Z", messageCount: 0 });
    expect(sessions[1]!.name).toBeUndefined();
  });

  it("pages with a cursor, filters by cwd (checking the header, not only the encoded directory)", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    for (let index = 0; index < 7; index++) {
      const cwd = index % 2 === 0 ? "/a/b" : "/a-b"; // both encode to --a-b--
      await store.createSession(header(`s${index}`, cwd, `2026-01-0${index + 1}T00:00:00.000Z`));
    }
    const all = await page(store, { limit: 3 });
    expect(all.map((sessions) => sessions.length)).toEqual([3, 3, 1]);
    expect(all.flat().map((summary) => summary.id)).toEqual(["s6", "s5", "s4", "s3", "s2", "s1", "s0"]);
    const slashes = await page(store, { limit: 2, cwd: "/a/b" });
    expect(slashes.flat().map((summary) => summary.id)).toEqual(["s6", "s4", "s2", "s0"]);
    expect((await store.listSessions({ cwd: "/nowhere" })).sessions).toEqual([]);
    await expect(store.listSessions({ cursor: "not-a-cursor" })).rejects.toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/Invalid listSessions cursor/),
    });
    await expect(store.listSessions({ limit: 0 })).rejects.toMatchObject({ code: "invalid_argument" });
  });

  it("counts lines another program appended after the last trailer, and ignores a torn tail", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("s1"));
    await store.appendEntries("s1", [at("a", null, "2026-02-01T00:00:00.000Z")]);
    await store.close();
    const path = store.pathOf("s1")!;
    appendFileSync(path, `${JSON.stringify(at("p1", "a", "2026-02-02T00:00:00.000Z"))}\n`);
    appendFileSync(
      path,
      `${JSON.stringify({ type: "session_info", id: "p2", parentId: "p1", timestamp: "2026-02-03T00:00:00.000Z", name: "pi named it" })}\n`,
    );
    appendFileSync(path, '{"type":"message","id":"torn","parentId":"p2","timestamp":"2026-03');
    const [summary] = (await openStore({ home, readOnly: true }).listSessions()).sessions;
    expect(summary).toMatchObject({
      messageCount: 2,
      updatedAt: "2026-02-03T00:00:00.000Z",
      name: "pi named it",
    });
  });

  it("lists the pi agent's own files (no trailers) by counting their lines", async () => {
    const home = temporaryHome();
    const directory = join(home, "sessions", "--home-user-project--");
    mkdirSync(directory, { recursive: true });
    copyFileSync(
      join(fixtures, "05-compaction-manual-rpc.anthropic.jsonl"),
      join(directory, "2026-11-30T12-27-32-419Z_01a22c6c-b8c2-7740-8842-ae5febf2d2fc.jsonl"),
    );
    copyFileSync(
      join(fixtures, "01-plain-chat.anthropic.jsonl"),
      join(directory, "2026-11-30T12-27-26-962Z_01a22c6c-a371-7076-92f0-b824020d7068.jsonl"),
    );
    const { sessions } = await openStore({ home, readOnly: true }).listSessions({
      cwd: "/home/user/project",
    });
    const lines = (file: string) =>
      readFileSync(join(fixtures, file), "utf8")
        .split("\n")
        .filter((line) => line.startsWith('{"type":"message"'));
    expect(sessions.map((summary) => [summary.id, summary.messageCount])).toEqual([
      ["01a22c6c-b8c2-7740-8842-ae5febf2d2fc", lines("05-compaction-manual-rpc.anthropic.jsonl").length],
      ["01a22c6c-a371-7076-92f0-b824020d7068", lines("01-plain-chat.anthropic.jsonl").length],
    ]);
    expect(sessions[0]!.updatedAt).toBe("2026-11-30T12:27:36.334Z");
  });
});
