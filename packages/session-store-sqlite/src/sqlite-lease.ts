/**
 * The writer leases of a {@link SqliteSessionStore}: one `arbor_leases` row per leased session, naming
 * its holder (pid, host, process start time, since when) and renewed by a heartbeat. A lease is taken in
 * a `BEGIN IMMEDIATE` transaction, so two processes never both take one. A row is stale — and taken over
 * — when its process is certainly gone (same host, pid not running or reused), or its heartbeat is older
 * than `staleAfterMs` (a process on another host, or one that stopped running). Rows are deleted on
 * release, on `close()` and when the process exits; a killed process's row is left to the stale rule.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { SessionLockedError, SessionNotFoundError, type SessionWriterLease } from "@arbor/session-store";
import { isGone, isThisProcess, ownIdentity } from "@arbor/session-store/backend";
import type Database from "better-sqlite3";

interface LeaseRow {
  token: string;
  pid: number;
  host: string;
  process_start: string | null;
  since: string;
  heartbeat_ms: number;
}

/** What a {@link SqliteLeases} needs from its store. */
export interface SqliteLeasesOptions {
  db: Database.Database;
  /** A lease whose heartbeat is older than this is stale (ms). */
  staleAfterMs: number;
  /** The connection's busy timeout (ms), restored after a heartbeat that does not wait. */
  busyTimeoutMs: number;
  warn: (message: string) => void;
}

/** The lease holders of this process that are open, for the exit hook. */
const live = new Set<SqliteLeases>();
let exitHookInstalled = false;

function prepareStatements(db: Database.Database) {
  return {
    session: db.prepare("SELECT 1 FROM arbor_sessions WHERE id = ?"),
    select: db.prepare(
      "SELECT token, pid, host, process_start, since, heartbeat_ms FROM arbor_leases WHERE session_id = ?",
    ),
    upsert: db.prepare(
      `INSERT INTO arbor_leases (session_id, token, pid, host, process_start, since, heartbeat_ms)
       VALUES (@sessionId, @token, @pid, @host, @processStart, @since, @now)
       ON CONFLICT (session_id) DO UPDATE SET token = @token, pid = @pid, host = @host,
         process_start = @processStart, since = @since, heartbeat_ms = @now`,
    ),
    renew: db.prepare("UPDATE arbor_leases SET heartbeat_ms = ? WHERE session_id = ? AND token = ?"),
    remove: db.prepare("DELETE FROM arbor_leases WHERE session_id = ? AND token = ?"),
  };
}

/** The leases one store instance holds. */
export class SqliteLeases {
  private readonly held = new Map<string, { token: string; lease: SessionWriterLease }>();
  private statements: ReturnType<typeof prepareStatements> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SqliteLeasesOptions) {}

  /** `pid 123@host since …`, and for another host how it will be taken over. */
  describe(row: Pick<LeaseRow, "pid" | "host" | "since">): string {
    const holder = `pid ${row.pid}@${row.host} since ${row.since}`;
    if (row.host === hostname()) return holder;
    const seconds = Math.round(this.options.staleAfterMs / 1000);
    return `${holder} (another host: taken over once it has not renewed the lease for ${seconds} s)`;
  }

  /**
   * Takes the lease of `sessionId` (the schema exists: the caller made the store writable).
   *
   * Contract: throws `SessionNotFoundError`, `SessionLockedError` naming a live holder, and
   * better-sqlite3's errors (translated by the caller).
   */
  acquire(sessionId: string): SessionWriterLease {
    this.statements ??= prepareStatements(this.options.db);
    const { session, select, upsert } = this.statements;
    const now = Date.now();
    const me = ownIdentity();
    const token = randomUUID();
    const since = new Date(now).toISOString();
    this.options.db
      .transaction(() => {
        if (session.get(sessionId) === undefined) throw new SessionNotFoundError(sessionId);
        const row = select.get(sessionId) as LeaseRow | undefined;
        if (row !== undefined && !this.isStale(row, now))
          throw new SessionLockedError(sessionId, this.describe(row));
        upsert.run({
          sessionId,
          token,
          pid: me.pid,
          host: me.host,
          processStart: me.processStart ?? null,
          since,
          now,
        });
      })
      .immediate();
    let released = false;
    const lease: SessionWriterLease = {
      sessionId,
      holder: this.describe({ pid: me.pid, host: me.host, since }),
      release: async () => {
        if (released) return;
        released = true;
        this.release(sessionId, token);
      },
    };
    this.held.set(sessionId, { token, lease });
    this.started();
    return lease;
  }

  /** Releases every lease (the store is closing). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.held.values()].map(({ lease }) => lease.release()));
    this.stopped();
  }

  /** At the exit of the process: deletes the rows, waiting at most a second for a busy database. */
  releaseAtExit(): void {
    if (this.statements === undefined) return;
    try {
      this.options.db.pragma("busy_timeout = 1000");
      for (const [sessionId, { token }] of this.held) this.statements.remove.run(sessionId, token);
    } catch {
      // Left to the stale rule: the pid is gone.
    }
    this.held.clear();
  }

  private release(sessionId: string, token: string): void {
    const held = this.held.get(sessionId);
    if (held?.token !== token) return;
    this.held.delete(sessionId);
    if (this.held.size === 0) this.stopped();
    try {
      this.statements?.remove.run(sessionId, token);
    } catch (error) {
      this.options.warn(
        `the writer lease of ${sessionId} could not be released (${(error as Error).message}); another ` +
          "process takes it over once this one has ended",
      );
    }
  }

  private isStale(row: LeaseRow, now: number): boolean {
    if (now - row.heartbeat_ms > this.options.staleAfterMs) return true;
    const holder = { pid: row.pid, host: row.host, processStart: row.process_start };
    // A row of this process that no open store holds was left by a store that could not delete it.
    if (isThisProcess(holder)) return ![...live].some((leases) => leases.holds(row.token));
    return isGone(holder);
  }

  private holds(token: string): boolean {
    for (const held of this.held.values()) if (held.token === token) return true;
    return false;
  }

  /** Renews every lease without waiting for a busy database (the next beat tries again). */
  private beat(): void {
    const renew = this.statements?.renew;
    if (renew === undefined) return;
    const now = Date.now();
    try {
      this.options.db.pragma("busy_timeout = 0");
      for (const [sessionId, { token }] of [...this.held]) {
        if (renew.run(now, sessionId, token).changes > 0) continue;
        this.held.delete(sessionId);
        this.options.warn(
          `the writer lease of ${sessionId} was taken over by another process (this one did not renew it ` +
            `for ${Math.round(this.options.staleAfterMs / 1000)} s); its next save may conflict`,
        );
      }
    } catch {
      // Busy or unwritable now; the lease stays valid until staleAfterMs.
    } finally {
      this.options.db.pragma(`busy_timeout = ${this.options.busyTimeoutMs}`);
    }
    if (this.held.size === 0) this.stopped();
  }

  private started(): void {
    live.add(this);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once("exit", () => {
        for (const leases of live) leases.releaseAtExit();
        live.clear();
      });
    }
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.beat(), Math.max(10, Math.floor(this.options.staleAfterMs / 6)));
    this.timer.unref();
  }

  private stopped(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.held.size === 0) live.delete(this);
  }
}
