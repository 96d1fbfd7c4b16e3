import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import {
  POSTGRES_SCHEMA_VERSION,
  PostgresSchemaTooNewError,
  PostgresSessionStore,
  PostgresUnavailableError,
} from "../src/index.js";
import { describeWithPostgres } from "./database.js";

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

it("names host, port and database, never the credentials, when the server cannot be reached", async () => {
  const port = await closedPort();
  const store = PostgresSessionStore.fromUrl(`postgres://alice:s3cret-pw@127.0.0.1:${port}/arbor`);
  const error = await store.listSessions().catch((reason: unknown) => reason);
  expect(error).toBeInstanceOf(PostgresUnavailableError);
  expect(error).toMatchObject({ code: "store_unavailable", reason: "unreachable", transient: true });
  expect((error as Error).message).toContain(`127.0.0.1:${port}/arbor (ECONNREFUSED)`);
  expect((error as Error).message).not.toMatch(/s3cret|alice/);
  await store.close();
});

it("refuses a URL that is not postgres://", () => {
  expect(() => PostgresSessionStore.fromUrl("mysql://localhost/db")).toThrow(/postgres:\/\//);
});

describeWithPostgres("PostgresSessionStore schema", (url) => {
  const schemas: string[] = [];
  const freshSchema = () => {
    const schema = `arbor_schema_${randomBytes(4).toString("hex")}`;
    schemas.push(schema);
    return schema;
  };
  async function sql(text: string): Promise<pg.QueryResult> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await client.query(text);
    } finally {
      await client.end();
    }
  }
  afterAll(async () => {
    for (const schema of schemas) await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });

  it("lists each session's first user message with the summary", async () => {
    const store = PostgresSessionStore.fromUrl(url, { schema: freshSchema() });
    const header = {
      type: "session",
      version: 3,
      id: "talk",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/w",
    } as const;
    await store.createSession(header);
    await store.appendEntries("talk", [
      {
        type: "message",
        id: "a1",
        parentId: null,
        timestamp: "2026-01-01T00:00:01.000Z",
        message: { role: "assistant", content: [] },
      } as never,
      {
        type: "message",
        id: "u1",
        parentId: "a1",
        timestamp: "2026-01-01T00:00:02.000Z",
        message: { role: "user", content: "Fix the build" },
      } as never,
    ]);
    await store.createSession({ ...header, id: "silent" });
    const byId = new Map((await store.listSessions()).sessions.map((summary) => [summary.id, summary]));
    expect(byId.get("talk")?.firstMessage).toBe("Fix the build");
    expect(byId.get("silent")?.firstMessage).toBeUndefined();
    await store.close();
  });

  it("refuses unknown credentials without naming them", async () => {
    const address = new URL(url);
    const store = PostgresSessionStore.fromUrl(
      `postgres://mallory:hunter2-pw@${address.hostname}:${address.port}${address.pathname}`,
    );
    const error = await store.connect().catch((reason: unknown) => reason);
    expect(error).toMatchObject({ code: "postgres_auth_failed" });
    expect((error as Error).message).toContain(`${address.hostname}:${address.port}`);
    expect((error as Error).message).not.toMatch(/mallory|hunter2/);
    await store.close();
  });

  it("creates the schema once when many processes start at once (advisory lock), then reuses it", async () => {
    const schema = freshSchema();
    const stores = Array.from({ length: 6 }, () =>
      PostgresSessionStore.fromUrl(url, { schema, pool: { max: 1 } }),
    );
    await Promise.all(stores.map((store) => store.connect()));
    const { rows } = await sql(`SELECT version FROM "${schema}".schema_version`);
    expect(rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    await stores[0]!.createSession({
      type: "session",
      version: 3,
      id: "s1",
      timestamp: "2026-01-01T00:00:00Z",
      cwd: "/w",
    });
    await Promise.all(stores.map((store) => store.close()));
    const again = PostgresSessionStore.fromUrl(url, { schema });
    expect((await again.readSession("s1")).header.id).toBe("s1");
    await again.close();
  });

  it("refuses a schema written by a newer version, changing nothing", async () => {
    const schema = freshSchema();
    const first = PostgresSessionStore.fromUrl(url, { schema });
    await first.connect();
    await first.close();
    await sql(`UPDATE "${schema}".schema_version SET version = ${POSTGRES_SCHEMA_VERSION + 1}`);
    const newer = PostgresSessionStore.fromUrl(url, { schema });
    await expect(newer.connect()).rejects.toBeInstanceOf(PostgresSchemaTooNewError);
    await newer.close();
  });

  it("keeps each entry's JSON text byte for byte", async () => {
    const schema = freshSchema();
    const store = PostgresSessionStore.fromUrl(url, { schema });
    await store.createSession({
      type: "session",
      version: 3,
      id: "bytes",
      timestamp: "2026-01-01T00:00:00Z",
      cwd: "/w",
    });
    const entry = {
      type: "x-future",
      id: "e1",
      parentId: null,
      zeta: 1,
      alpha: { "ü\u0000": [1.5, "\u2028"] },
    };
    await store.appendEntries("bytes", [entry as never]);
    const { rows } = await sql(`SELECT body::text AS body FROM "${schema}".entries`);
    expect(rows[0]?.body).toBe(JSON.stringify(entry));
    expect((await store.readSession("bytes")).entries[0]?.entry()).toEqual(entry);
    await store.close();
  });
});
