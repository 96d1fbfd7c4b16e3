import type { SessionEntry, SessionStore, SessionSummary } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import {
  at,
  chain,
  makeHeader,
  nameEntry,
  newCwd,
  newEntryId,
  unknownTypeEntry,
  userEntry,
} from "./fixtures.js";
import type { SessionStoreSuite } from "./session-store-suite.js";

/** `listSessions`: order, summaries, `cwd` filter, pagination. */
export function listSessionsSpec<TStore extends SessionStore>(suite: SessionStoreSuite<TStore>): void {
  describe("listSessions", () => {
    /** Creates a session in `cwd` whose last entry is at `lastSecond`. */
    async function sessionActiveAt(
      cwd: string,
      lastSecond: number,
      extra: SessionEntry[] = [],
    ): Promise<string> {
      const header = makeHeader({ cwd, timestamp: at(0) });
      await suite.store().createSession(header);
      const entries = [...chain(2, null, 1), ...extra];
      entries.push(userEntry(entries.at(-1)?.id ?? null, "last", at(lastSecond)));
      await suite.store().appendEntries(header.id, entries);
      return header.id;
    }

    /** Every page of a listing, following the cursors (at most 50 pages). */
    async function allPages(cwd: string | undefined, limit: number): Promise<SessionSummary[][]> {
      const pages: SessionSummary[][] = [];
      let cursor: string | undefined;
      do {
        const page = await suite.store().listSessions({ cwd, limit, cursor });
        pages.push(page.sessions);
        cursor = page.nextCursor;
      } while (cursor !== undefined && pages.length < 50);
      return pages;
    }

    it("lists newest activity first: by the last entry's timestamp, not by creation", async () => {
      const cwd = newCwd();
      const middle = await sessionActiveAt(cwd, 200);
      const newest = await sessionActiveAt(cwd, 300);
      const oldest = await sessionActiveAt(cwd, 100);
      const page = await suite.store().listSessions({ cwd });
      expect(page.sessions.map((session) => session.id)).toEqual([newest, middle, oldest]);
      expect(page.sessions.map((session) => session.updatedAt)).toEqual([at(300), at(200), at(100)]);
      expect(page.nextCursor).toBeUndefined();
    });

    it("summarizes each session: cwd, times, message count, latest name, parent", async () => {
      const cwd = newCwd();
      const header = makeHeader({ cwd, timestamp: at(3), parentSession: "conformance-parent" });
      await suite.store().createSession(header);
      const messages = chain(3, null, 10);
      const first = nameEntry(messages.at(-1)?.id ?? null, "First name", at(20));
      const future = unknownTypeEntry(first.id, at(21));
      const second = nameEntry(future.id, "Second name", at(22));
      const label = {
        type: "label",
        id: newEntryId(),
        parentId: second.id,
        timestamp: at(23),
        targetId: first.id,
      };
      await suite.store().appendEntries(header.id, messages);
      await suite.store().appendEntries(header.id, [first, future, second, label as SessionEntry]);
      const summary = (await suite.store().listSessions({ cwd })).sessions[0];
      expect(summary).toMatchObject({
        id: header.id,
        cwd,
        createdAt: at(3),
        updatedAt: at(23),
        messageCount: 3,
        name: "Second name",
        parentSession: "conformance-parent",
      });
    });

    it("lists only the sessions of the given cwd", async () => {
      const cwd = newCwd();
      const mine = await sessionActiveAt(cwd, 50);
      const elsewhere = await sessionActiveAt(newCwd(), 60);
      const ids = (await suite.store().listSessions({ cwd })).sessions.map((session) => session.id);
      expect(ids).toEqual([mine]);
      expect(ids).not.toContain(elsewhere);
      expect(await suite.store().listSessions({ cwd: newCwd() })).toEqual({ sessions: [] });
    });

    it("pages with limit and cursor: no gaps, no repeats, no cursor on the last page", async () => {
      const cwd = newCwd();
      const ids: string[] = [];
      for (let index = 0; index < 5; index++) ids.unshift(await sessionActiveAt(cwd, 100 + index));
      const pages = await allPages(cwd, 2);
      expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
      expect(pages.flat().map((session) => session.id)).toEqual(ids);
      const exact = await allPages(cwd, 5);
      expect(exact.map((page) => page.length)).toEqual([5]);
    });

    it("breaks ties of activity consistently across pages", async () => {
      const cwd = newCwd();
      const ids = new Set<string>();
      for (let index = 0; index < 4; index++) ids.add(await sessionActiveAt(cwd, 500));
      const listed = (await allPages(cwd, 1)).flat().map((session) => session.id);
      expect(listed).toHaveLength(4);
      expect(new Set(listed)).toEqual(ids);
    });

    it("returns up to 50 sessions without a limit", async () => {
      const cwd = newCwd();
      for (let index = 0; index < 3; index++) await sessionActiveAt(cwd, 10 + index);
      const page = await suite.store().listSessions({ cwd });
      expect(page.sessions).toHaveLength(3);
      expect(page.nextCursor).toBeUndefined();
    });

    it("includes the caller's sessions when listing every cwd", async () => {
      const first = await sessionActiveAt(newCwd(), 70);
      const second = await sessionActiveAt(newCwd(), 80);
      const listed = (await allPages(undefined, 50)).flat().map((session) => session.id);
      expect(listed).toContain(first);
      expect(listed).toContain(second);
      expect(new Set(listed).size).toBe(listed.length);
    });
  });
}
