/**
 * Schema version 2: the listing's summary (first message) in the session row, migrated from version 1;
 * keyset pages bounded on the index; notifications only for sessions with followers.
 */
import type { SessionEntry, SessionSummary, StoredEntry } from "@arbor/session-store";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { POSTGRES_SCHEMA_VERSION, PostgresSessionStore } from "../src/index.js";
import { describeWithPostgres, temporarySchema } from "./database.js";

/** Version 1 of the schema, as version 0.x of the package created it. */
const VERSION_1 = `
  CREATE TABLE $S.schema_version (version integer NOT NULL);
  INSERT INTO $S.schema_version VALUES (1);
  CREATE TABLE $S.sessions (
    id text COLLATE "C" PRIMARY KEY, header json NOT NULL, cwd text NOT NULL, created_at text NOT NULL,
    updated_at text NOT NULL, updated_ms bigint NOT NULL, message_count integer NOT NULL DEFAULT 0,
    entry_count integer NOT NULL DEFAULT 0, last_entry_id text, name text, parent_session text
  );
  CREATE INDEX sessions_by_activity ON $S.sessions (updated_ms DESC, id);
  CREATE INDEX sessions_by_cwd ON $S.sessions (cwd, updated_ms DESC, id);
  CREATE TABLE $S.entries (
    session_id text COLLATE "C" NOT NULL REFERENCES $S.sessions (id) ON DELETE CASCADE,
    seq integer NOT NULL, id text NOT NULL, parent_id text, type text NOT NULL, body json NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  CREATE INDEX entries_by_id ON $S.entries (session_id, id);
  CREATE INDEX entries_by_parent ON $S.entries (session_id, parent_id);
`;

function message(id: string, parentId: string | null, role: string, content: unknown): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: "2026-06-01T00:00:01.000Z",
    message: { role, content, timestamp: 1 },
  } as unknown as SessionEntry;
}

function header(id: string, cwd: string, timestamp: string) {
  return { type: "session" as const, version: 3, id, timestamp, cwd };
}

describeWithPostgres("PostgresSessionStore schema version 2", (url) => {
  const clients: pg.Client[] = [];
  async function client(): Promise<pg.Client> {
    const connection = new pg.Client({ connectionString: url });
    await connection.connect();
    clients.push(connection);
    return connection;
  }
  afterAll(async () => {
    for (const connection of clients) await connection.end();
  });

  it("migrates a version 1 schema: first messages filled in from the entries, appends keep them", async () => {
    const schema = temporarySchema(url);
    const sql = await client();
    await sql.query(`CREATE SCHEMA "${schema}"`);
    await sql.query(VERSION_1.replaceAll("$S", `"${schema}"`));
    const rows: [string, SessionEntry[]][] = [
      [
        "text-blocks",
        [
          message("a1", null, "assistant", [{ type: "text", text: "hello" }]),
          message("a2", "a1", "user", [
            { type: "text", text: " first " },
            { type: "image", data: "…", mimeType: "image/png" },
            { type: "text", text: "question\n" },
          ]),
          message("a3", "a2", "user", "second question"),
        ],
      ],
      ["string", [message("b1", null, "user", "  plain question  ")]],
      ["no-text", [message("c1", null, "user", [{ type: "image", data: "…", mimeType: "image/png" }])]],
      ["none", [message("d1", null, "assistant", "only an answer")]],
    ];
    for (const [id, entries] of rows) {
      await sql.query(
        `INSERT INTO "${schema}".sessions (id, header, cwd, created_at, updated_at, updated_ms, message_count, entry_count)
          VALUES ($1, $2, '/v1', $3, $3, $4, $5, $5)`,
        [
          id,
          JSON.stringify(header(id, "/v1", "2026-06-01T00:00:00.000Z")),
          "2026-06-01T00:00:00.000Z",
          1,
          entries.length,
        ],
      );
      for (const [seq, entry] of entries.entries()) {
        await sql.query(`INSERT INTO "${schema}".entries VALUES ($1, $2, $3, $4, $5, $6)`, [
          id,
          seq,
          entry.id,
          entry.parentId,
          entry.type,
          JSON.stringify(entry),
        ]);
      }
    }

    const store = PostgresSessionStore.fromUrl(url, { schema });
    const page = await store.listSessions();
    const first = Object.fromEntries(page.sessions.map((summary) => [summary.id, summary.firstMessage]));
    expect(first).toEqual({
      "text-blocks": "first  question",
      string: "plain question",
      "no-text": undefined,
      none: undefined,
    });
    const version = await sql.query(`SELECT version FROM "${schema}".schema_version`);
    expect(version.rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    expect(POSTGRES_SCHEMA_VERSION).toBe(2);

    // The first user message is the first one ever: later ones change nothing; a session's first one counts.
    await store.appendEntries("string", [message("b2", "b1", "user", "later question")]);
    await store.appendEntries("none", [
      message("d2", "d1", "user", [{ type: "text", text: "now a question" }]),
    ]);
    await store.appendEntries("no-text", [message("c2", "c1", "user", "text after an image")]);
    const after = await store.listSessions();
    const firstAfter = Object.fromEntries(
      after.sessions.map((summary) => [summary.id, summary.firstMessage]),
    );
    expect(firstAfter).toMatchObject({
      string: "plain question",
      none: "now a question",
      "no-text": undefined,
    });
    await store.close();
  });

  it("pages by keyset: every session once, newest activity first, ties broken by id", async () => {
    const schema = temporarySchema(url);
    const store = PostgresSessionStore.fromUrl(url, { schema });
    const expected: SessionSummary[] = [];
    for (let index = 0; index < 45; index++) {
      // Five sessions share each second, so pages split runs of equal times.
      const second = String(Math.floor(index / 5)).padStart(2, "0");
      const timestamp = `2026-06-01T00:00:${second}.000Z`;
      const id = `s${String((index * 7) % 45).padStart(2, "0")}`;
      const cwd = index % 3 === 0 ? "/a" : "/b";
      await store.createSession(header(id, cwd, timestamp));
      expected.push({ id, cwd, createdAt: timestamp, updatedAt: timestamp, messageCount: 0 });
    }
    expected.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || (a.id < b.id ? -1 : 1));
    for (const cwd of [undefined, "/a", "/b"]) {
      const seen: SessionSummary[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listSessions({ cwd, limit: 4, cursor });
        expect(page.sessions.length).toBeLessThanOrEqual(4);
        seen.push(...page.sessions);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(seen).toEqual(expected.filter((summary) => cwd === undefined || summary.cwd === cwd));
    }
    // The cursor bounds the index scan: the plan of a later page starts at the cursor, whatever the depth.
    const sql = await client();
    await sql.query("SET enable_seqscan = off");
    const plan = await sql.query(
      `EXPLAIN (FORMAT JSON) SELECT id FROM "${schema}".sessions WHERE cwd = '/b'
        AND updated_ms <= 5 AND (updated_ms < 5 OR id > 's10') ORDER BY updated_ms DESC, id LIMIT 5`,
    );
    expect(JSON.stringify(plan.rows)).toMatch(
      /"Index Cond":"\(\(cwd = '\/b'::text\) AND \(updated_ms <= 5\)\)"/,
    );
    await store.close();
  });

  it("notifies only while a session has followers, and delivers every entry once to each", async () => {
    const schema = temporarySchema(url);
    const writers = [0, 1, 2].map(() => PostgresSessionStore.fromUrl(url, { schema }));
    const warnings: string[] = [];
    const follower = PostgresSessionStore.fromUrl(url, {
      schema,
      onWarning: (warning) => warnings.push(warning),
    });
    const ids = ["f0", "f1", "f2", "f3"];
    for (const id of ids) await follower.createSession(header(id, "/f", "2026-06-01T00:00:00.000Z"));

    const listen = await client();
    const notified: string[] = [];
    listen.on("notification", (note) => notified.push(note.payload ?? ""));
    await listen.query(`LISTEN "arbor_append:${schema}"`);
    const settle = async () => {
      // A notification sent at commit reaches a listener on a round trip: wait for one of ours.
      await listen.query("SELECT 1");
    };

    const entryOf = (id: string, tag: string): SessionEntry => message(`${id}-${tag}`, null, "user", tag);
    await writers[0]?.appendEntries("f0", [entryOf("f0", "before")]);
    await settle();
    expect(notified).toEqual([]);

    // Two followers of each of two sessions, while three writers append batches of two to all four at once.
    const delivered = new Map<string, { session: string; seen: string[] }>();
    const watches = [];
    for (const id of ["f0", "f1"]) {
      for (let copy = 0; copy < 2; copy++) {
        const seen: string[] = [];
        delivered.set(`${id}#${copy}`, { session: id, seen });
        watches.push(
          await follower.watch(id, (entries: readonly StoredEntry[]) => {
            expect(entries.length % 2).toBe(0);
            for (const entry of entries) seen.push(entry.entry().id);
          }),
        );
      }
    }
    // Midway, the followers' listening connection is cut (as a server restart would): they reconnect and
    // catch up, still exact.
    const own = (await listen.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
    const cut = async () => {
      const admin = await client();
      const { rows } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> $1 AND query = $2`,
        [own, `LISTEN "arbor_append:${schema}"`],
      );
      expect(rows).toHaveLength(1);
    };
    await Promise.all(
      writers.map(async (writer, index) => {
        for (let round = 0; round < 30; round++) {
          if (index === 0 && round === 10) await cut();
          const id = ids[(round + index) % ids.length] as string;
          const tag = `w${index}r${round}`;
          await writer.appendEntries(id, [entryOf(id, `${tag}a`), entryOf(id, `${tag}b`)]);
        }
      }),
    );
    const stored = new Map<string, string[]>();
    for (const id of ["f0", "f1"]) {
      const read = await follower.readSession(id);
      stored.set(
        id,
        read.entries.map((entry) => entry.id).filter((entryId) => entryId !== "f0-before"),
      );
    }
    expect(stored.get("f0")?.length).toBeGreaterThan(40);
    await expect
      .poll(() => [...delivered.values()].map(({ seen }) => seen.length), { timeout: 10_000 })
      .toEqual([...delivered.values()].map(({ session }) => stored.get(session)?.length));
    for (const { session, seen } of delivered.values()) expect(seen).toEqual(stored.get(session));
    expect(warnings.join("\n")).toMatch(/watch connection .* was lost/);
    await settle();
    expect(new Set(notified)).toEqual(new Set(["f0", "f1"]));

    // Once the last follower of a session is gone, its appends stop notifying.
    for (const watch of watches) await watch.close();
    notified.length = 0;
    await writers[0]?.appendEntries("f0", [entryOf("f0", "after")]);
    await settle();
    expect(notified).toEqual([]);
    for (const store of [...writers, follower]) await store.close();

    // Closing the store closes its watches, which uncount themselves.
    const again = PostgresSessionStore.fromUrl(url, { schema });
    await again.watch("f2", () => {});
    await again.watch("f2", () => {});
    const watched = await listen.query(`SELECT watchers FROM "${schema}".sessions WHERE id = 'f2'`);
    expect(watched.rows).toEqual([{ watchers: 2 }]);
    await again.close();
    const unwatched = await listen.query(`SELECT watchers FROM "${schema}".sessions WHERE id = 'f2'`);
    expect(unwatched.rows).toEqual([{ watchers: 0 }]);
  });
});
