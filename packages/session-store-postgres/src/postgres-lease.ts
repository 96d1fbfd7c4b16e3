/**
 * The writer leases of a {@link PostgresSessionStore}: a session-level `pg_advisory_lock` on a 64-bit key
 * derived from the schema and the session id, held by one dedicated connection per store. The server
 * releases it when that connection ends — on `release()`, on `close()`, and when the holding process dies
 * or loses its connection — so a crashed holder needs no stale rule. A `leases` row (pid, host, since, the
 * backend holding the lock) names the holder to a refused writer.
 */
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { SessionLockedError, SessionNotFoundError, type SessionWriterLease } from "@arbor/session-store";
import pg from "pg";
import { describeServer, explainConnectionError, type ServerAddress } from "./errors.js";

/** What a {@link PostgresLeases} needs from its store. */
export interface PostgresLeasesOptions {
  config: pg.ClientConfig;
  /** The schema's name, as given (the lock key is derived from it). */
  schema: string;
  /** The schema's name, quoted for SQL. */
  quoted: string;
  address: ServerAddress;
  warn: (message: string) => void;
}

/** How long a refused lease waits for the holder to write its `leases` row before naming it by backend. */
const HOLDER_ROW_WAIT_MS = 500;
/** How often a lease is tried again when its holder released it while being named. */
const RELEASED_RETRIES = 3;

/** The advisory lock key of a session: the first 8 bytes of a SHA-256, as a signed 64-bit integer. */
export function leaseKey(schema: string, sessionId: string): bigint {
  return createHash("sha256")
    .update(`arbor-writer-lease\0${schema}\0${sessionId}`)
    .digest()
    .readBigInt64BE(0);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The leases one store instance holds, on its dedicated connection. */
export class PostgresLeases {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly held = new Map<string, { key: bigint; lease: SessionWriterLease }>();

  constructor(private readonly options: PostgresLeasesOptions) {}

  /**
   * Takes the lease of `sessionId` (the schema exists: the caller connected first).
   *
   * Contract: throws `SessionNotFoundError`, `SessionLockedError` naming the holder, and
   * `PostgresUnavailableError` when the server cannot be reached.
   */
  async acquire(sessionId: string): Promise<SessionWriterLease> {
    const mine = this.held.get(sessionId);
    // Advisory locks are re-entrant on one connection: refuse a second lease of this instance here.
    if (mine !== undefined) throw new SessionLockedError(sessionId, mine.lease.holder);
    const { quoted } = this.options;
    const key = leaseKey(this.options.schema, sessionId);
    const client = await this.connection();
    try {
      const exists = await client.query(`SELECT 1 FROM ${quoted}.sessions WHERE id = $1`, [sessionId]);
      if (exists.rowCount === 0) throw new SessionNotFoundError(sessionId);
      // A holder that releases while it is being named was no reason to refuse: try again.
      for (let attempt = 0; ; attempt++) {
        const taken = await client.query<{ taken: boolean }>(
          "SELECT pg_try_advisory_lock($1::bigint) AS taken",
          [key.toString()],
        );
        if (taken.rows[0]?.taken === true) break;
        const holder = await this.holderOf(sessionId, key);
        if (holder !== undefined || attempt === RELEASED_RETRIES)
          throw new SessionLockedError(sessionId, holder ?? this.unknownHolder(undefined));
      }
      const since = new Date().toISOString();
      try {
        await client.query(
          `INSERT INTO ${quoted}.leases (session_id, pid, host, since, backend_pid)
           VALUES ($1, $2, $3, $4, pg_backend_pid())
           ON CONFLICT (session_id) DO UPDATE SET pid = $2, host = $3, since = $4, backend_pid = pg_backend_pid()`,
          [sessionId, process.pid, hostname(), since],
        );
      } catch (error) {
        await client.query("SELECT pg_advisory_unlock($1::bigint)", [key.toString()]).catch(() => {});
        throw error;
      }
      let released = false;
      const lease: SessionWriterLease = {
        sessionId,
        holder: `pid ${process.pid}@${hostname()} since ${since}`,
        release: async () => {
          if (released) return;
          released = true;
          await this.release(sessionId, key, client);
        },
      };
      this.held.set(sessionId, { key, lease });
      return lease;
    } catch (error) {
      throw explainConnectionError(error, this.options.address);
    }
  }

  /** Releases every lease and ends the connection (the server drops whatever it still holds). */
  async close(): Promise<void> {
    await Promise.all([...this.held.values()].map(({ lease }) => lease.release()));
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    this.connecting = undefined;
    await client?.end().catch(() => {});
  }

  private async release(sessionId: string, key: bigint, client: pg.Client): Promise<void> {
    if (this.held.get(sessionId)?.key !== key) return;
    this.held.delete(sessionId);
    if (this.client !== client) return; // The connection is gone, and the lock with it.
    try {
      await client.query(
        `DELETE FROM ${this.options.quoted}.leases WHERE session_id = $1 AND backend_pid = pg_backend_pid()`,
        [sessionId],
      );
      await client.query("SELECT pg_advisory_unlock($1::bigint)", [key.toString()]);
    } catch (error) {
      this.options.warn(
        `the writer lease of ${sessionId} could not be released (${(error as Error).message}); it goes when ` +
          "this process ends",
      );
    }
  }

  /**
   * Who holds the lock of `key`: its `leases` row when that row is the lock holder's, else its backend;
   * undefined when nobody holds it any more (released while we looked).
   */
  private async holderOf(sessionId: string, key: bigint): Promise<string | undefined> {
    const unsigned = BigInt.asUintN(64, key);
    const client = await this.connection();
    const deadline = Date.now() + HOLDER_ROW_WAIT_MS;
    let backend: number | undefined;
    for (;;) {
      const { rows } = await client.query<{
        backend: number;
        pid: number | null;
        host: string | null;
        since: string | null;
        row_backend: number | null;
      }>(
        `SELECT l.pid AS backend, r.pid, r.host, r.since, r.backend_pid AS row_backend
         FROM pg_locks l LEFT JOIN ${this.options.quoted}.leases r ON r.session_id = $1
         WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
           AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND l.classid = $2::bigint::oid AND l.objid = $3::bigint::oid`,
        [sessionId, (unsigned >> 32n).toString(), (unsigned & 0xffffffffn).toString()],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      backend = row.backend;
      if (row.row_backend === row.backend && row.pid !== null)
        return `pid ${row.pid}@${row.host} since ${row.since}`;
      // The holder has the lock but has not written its row yet: look again.
      if (Date.now() > deadline) break;
      await sleep(50);
    }
    return this.unknownHolder(backend);
  }

  private unknownHolder(backend: number | undefined): string {
    return `another process (PostgreSQL backend pid ${backend ?? "unknown"} on ${describeServer(this.options.address)})`;
  }

  /** The dedicated connection, opened on first use; a lost one takes its leases with it. */
  private connection(): Promise<pg.Client> {
    if (this.client !== undefined) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client(this.options.config);
      client.on("error", (error) => this.lost(client, error));
      try {
        await client.connect();
      } catch (error) {
        this.connecting = undefined;
        throw explainConnectionError(error, this.options.address);
      }
      this.client = client;
      this.connecting = undefined;
      return client;
    })();
    return this.connecting;
  }

  /** The connection broke: the server has dropped its locks, so every lease is gone. Never throws. */
  private lost(client: pg.Client, error: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => {});
    const sessions = [...this.held.keys()];
    this.held.clear();
    if (sessions.length === 0) return;
    this.options.warn(
      `the writer lease of ${sessions.join(", ")} was lost: the connection to ${describeServer(this.options.address)} ` +
        `broke (${error.message.split("\n")[0]}); another process may now open ${sessions.length === 1 ? "it" : "them"} for writing`,
    );
  }
}
