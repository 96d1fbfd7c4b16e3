import { randomBytes } from "node:crypto";
import { SessionStoreUnavailableError } from "@arbor/session-store";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { PostgresSessionStore, PostgresUnavailableError } from "../src/index.js";
import { describeWithPostgres, temporarySchema } from "./database.js";
import { startFakeServer } from "./fake-server.js";

const header = (id: string) =>
  ({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00Z", cwd: "/w" }) as const;

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe("a server that cannot take the connection", () => {
  it("57P03 (cannot connect now: starting up) is store_unavailable, transient, naming host:port/db", async () => {
    const server = await startFakeServer({
      kind: "error",
      sqlState: "57P03",
      message: "the database system is starting up",
    });
    const store = PostgresSessionStore.fromUrl(
      `postgres://alice:s3cret-pw@127.0.0.1:${server.port}/sessions`,
    );
    const error = await failure(store.listSessions());
    expect(error).toBeInstanceOf(PostgresUnavailableError);
    expect(SessionStoreUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "store_unavailable", reason: "unreachable", transient: true });
    expect(error.message).toBe(
      `Cannot reach PostgreSQL at 127.0.0.1:${server.port}/sessions (57P03: the database system is starting ` +
        "up). Check that the server is running and that the connection URL (e.g. DATABASE_URL) names the " +
        "right host and port.",
    );
    expect(error.message).not.toMatch(/alice|s3cret/);
    await store.close();
    await server.close();
  });

  it("a connection reset is store_unavailable (connection lost), transient", async () => {
    const server = await startFakeServer({ kind: "reset" });
    const store = PostgresSessionStore.fromUrl(`postgres://127.0.0.1:${server.port}/sessions`);
    const error = await failure(store.createSession(header("s")));
    expect(error).toMatchObject({ code: "store_unavailable", reason: "connection_lost", transient: true });
    expect(error.message).toMatch(
      new RegExp(`^The connection to PostgreSQL at 127\\.0\\.0\\.1:${server.port}/sessions was lost \\(`),
    );
    expect(error.message).not.toContain("\n");
    await store.close();
    await server.close();
  });
});

describeWithPostgres("PostgresSessionStore when the server goes away", (url) => {
  const schema = temporarySchema(url);
  const admin = new pg.Client({ connectionString: url });
  const connected = admin.connect();
  afterAll(() => admin.end());
  const database = new URL(url).pathname.slice(1);
  const server = `${new URL(url).hostname}:${new URL(url).port}/${database}`;

  /** Terminates the server processes of connections named `name` (what a stopping server does: 57P01). */
  async function terminate(name: string, where = "true"): Promise<number> {
    await connected;
    const { rows } = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND ${where}`,
      [name],
    );
    return rows.length;
  }

  it("57P01 (admin shutdown) during a query is store_unavailable naming the server; the next query reconnects", async () => {
    const name = `arbor-test-${randomBytes(4).toString("hex")}`;
    const store = PostgresSessionStore.fromUrl(url, { schema, pool: { application_name: name } });
    await store.createSession(header(`${name}-s`));
    await connected;
    await admin.query("BEGIN");
    await admin.query(`LOCK TABLE "${schema}".sessions IN ACCESS EXCLUSIVE MODE`);
    const listing = failure(store.listSessions());
    await vi.waitFor(async () => expect(await terminate(name, "wait_event_type = 'Lock'")).toBe(1), {
      timeout: 10_000,
      interval: 50,
    });
    const error = await listing;
    await admin.query("ROLLBACK");
    expect(error).toBeInstanceOf(PostgresUnavailableError);
    expect(error).toMatchObject({ code: "store_unavailable", reason: "connection_lost", transient: true });
    expect(error.message).toMatch(
      new RegExp(`^The connection to PostgreSQL at ${server.replaceAll(".", "\\.")} was lost \\(57P01: `),
    );
    expect(error.message).not.toContain("\n");
    expect((await store.listSessions()).sessions.map((summary) => summary.id)).toContain(`${name}-s`);
    await store.close();
  });

  it("never crashes on an idle connection's error: warns, and the next query reconnects; a lost lease is reported", async () => {
    const name = `arbor-test-${randomBytes(4).toString("hex")}`;
    const warnings: string[] = [];
    const store = PostgresSessionStore.fromUrl(url, {
      schema,
      pool: { application_name: name },
      onWarning: (message) => warnings.push(message),
    });
    await store.createSession(header(`${name}-s`));
    const lease = await store.acquireWriterLease(`${name}-s`);
    // Every connection of the store is idle now (the pool's, the lease's): the server goes away under them.
    expect(await terminate(name)).toBeGreaterThanOrEqual(2);
    await vi.waitFor(() => expect(warnings.length).toBeGreaterThanOrEqual(2), {
      timeout: 10_000,
      interval: 20,
    });
    expect(warnings).toContainEqual(
      expect.stringMatching(/^an idle connection to PostgreSQL at .* was lost \(/),
    );
    expect(warnings).toContainEqual(
      expect.stringMatching(new RegExp(`^the writer lease of ${name}-s was lost: the connection to `)),
    );
    expect((await store.readSession(`${name}-s`)).header.id).toBe(`${name}-s`);
    // The lock went with the connection: another store takes the lease.
    const other = PostgresSessionStore.fromUrl(url, { schema });
    await (await other.acquireWriterLease(`${name}-s`)).release();
    await lease.release();
    await other.close();
    await store.close();
  });
});
