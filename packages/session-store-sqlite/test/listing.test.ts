import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionEntry } from "@arbor/session-store";
import { compareListing } from "@arbor/session-store/backend";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { SQLITE_SCHEMA_VERSION, SqliteSessionStore } from "../src/index.js";
import { readStatements } from "../src/sqlite-statements.js";

const directory = mkdtempSync(join(tmpdir(), "arbor-sqlite-listing-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();

it("pages by keyset: every session once, in listing order, ties on updated_at included, per cwd too", async () => {
  const file = join(directory, "list.db");
  const store = new SqliteSessionStore({ file });
  for (let index = 0; index < 90; index++) {
    const id = `s${String((index * 37) % 90).padStart(2, "0")}`;
    const cwd = index % 3 === 0 ? "/a" : "/b";
    await store.createSession({ type: "session", version: 3, id, timestamp: at(0), cwd });
    // Many sessions share a last activity: the cursor must order them by id.
    const entry = {
      type: "message",
      id: `${id}-0`,
      parentId: null,
      timestamp: at(index % 7),
      message: { role: "user", content: `hello ${id}`, timestamp: 1 },
    } as SessionEntry;
    await store.appendEntries(id, [entry]);
  }
  for (const cwd of [undefined, "/a", "/b"]) {
    const all = (await store.listSessions({ cwd, limit: 1000 })).sessions;
    expect([...all].sort(compareListing)).toEqual(all);
    expect(all.every((session) => session.firstMessage === `hello ${session.id}`)).toBe(true);
    const paged = [];
    let cursor: string | undefined;
    do {
      const page = await store.listSessions({ cwd, limit: 4, cursor });
      expect(page.sessions.length).toBeLessThanOrEqual(4);
      paged.push(...page.sessions);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(paged).toEqual(all);
    expect(all).toHaveLength(cwd === undefined ? 90 : cwd === "/a" ? 30 : 60);
  }
  await store.close();

  // The cursor bounds the index range: a later page does not walk the rows before it.
  const db = new Database(file, { readonly: true });
  const plan = (sql: string) =>
    (
      db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ cwd: "/a", afterMs: 0, afterId: "", limit: 5 }) as {
        detail: string;
      }[]
    )
      .map((step) => step.detail)
      .join("; ");
  const reads = readStatements(db, SQLITE_SCHEMA_VERSION);
  expect(plan(reads.listCwdAfter.source)).toMatch(
    /USING INDEX arbor_sessions_by_cwd \(cwd=\? AND updated_ms[<>]\?\)/,
  );
  expect(plan(reads.listAllAfter.source)).toMatch(
    /USING INDEX arbor_sessions_by_activity \(updated_ms[<>]\?\)/,
  );
  db.close();
});
