/**
 * `SqliteSessionStore` against its floors (issue 36), each measured in the same run, contenders taking
 * turns, ≥ 3 rounds, medians:
 *
 * - open: `Session.open` + `buildContext()` of the realistic 60k session (60 compactions, 60 side
 *   branches, ~121 MB; `realisticEntries`), against the floor — one raw query of the tree columns of
 *   every row (`seq, type, id, parent_id`), then only the context's bodies (one primary-key lookup each)
 *   and `JSON.parse` of them — and against a stricter one reading the tree 4,096 rows a query;
 * - append: save points of 10 entries one at a time, each guarded by `expectedLastEntryId`, against the
 *   floor — the same rows and summary update in one `BEGIN IMMEDIATE` transaction per save point, raw
 *   better-sqlite3, same durability (WAL, `synchronous=NORMAL`, the default, then `FULL`);
 * - in flight: 64 sessions appended at once (64 save points in flight) against the store's own rate for
 *   the same appends one at a time (goal ≥ 2×); the entries are made before the clock starts;
 * - list: every page (`limit` 50) of 2,000 sessions of one `cwd`, against the floor — a `SELECT` of the
 *   summary columns by keyset (`cwd = ? AND updated_ms <= ?`, an index bound) from a table holding them.
 *
 * Sizes: `ARBOR_BENCH_SQLITE_OPEN` (entries, default 60000), `ARBOR_BENCH_SQLITE_APPEND` (save points,
 * default 400), `ARBOR_BENCH_SQLITE_SESSIONS` (2000), `ARBOR_BENCH_RUNS` (rounds, default 5; at least 3).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Session, type SessionEntry } from "@arbor/session-store";
import { SqliteSessionStore } from "@arbor/session-store-sqlite";
import Database from "better-sqlite3";
import type { Bench } from "./bench.js";
import { ms } from "./measure.js";
import { realisticEntries, SAVE_POINT, timestamp, tripleRecord } from "./session-entries.js";

const OPEN = Number(process.env.ARBOR_BENCH_SQLITE_OPEN ?? 60_000);
const APPEND = Number(process.env.ARBOR_BENCH_SQLITE_APPEND ?? 400);
const SESSIONS = Number(process.env.ARBOR_BENCH_SQLITE_SESSIONS ?? 2000);
const ROUNDS = Math.max(3, Number(process.env.ARBOR_BENCH_RUNS ?? 5));
const IN_FLIGHT = 64;

const gc = () => (globalThis as { gc?: () => void }).gc?.();
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Runs each contender once per round, the order alternating; the median time of each. */
async function rounds(contenders: readonly (() => unknown)[]): Promise<number[]> {
  const times = contenders.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    const order = contenders.map((_, index) => index);
    if (round % 2 === 1) order.reverse();
    for (const index of order) {
      gc();
      const start = performance.now();
      await contenders[index]?.();
      times[index]?.push(performance.now() - start);
    }
  }
  return times.map(median);
}

const header = (id: string, cwd: string) => ({
  type: "session" as const,
  version: 3,
  id,
  timestamp: timestamp(),
  cwd,
});

function saveBatch(id: string, start: number, parentId: string | null): SessionEntry[] {
  const batch: SessionEntry[] = [];
  for (let n = start; n < start + SAVE_POINT; n++) {
    batch.push(tripleRecord(n, `${id}-${n}`, batch.at(-1)?.id ?? parentId) as unknown as SessionEntry);
  }
  return batch;
}

const row = (label: string, value: number, floor: number, unit = ms) =>
  `  ${label.padEnd(58)} ${unit(value).padStart(11)} ${unit(floor).padStart(11)} ${`${(value / floor).toFixed(2)}x`.padStart(8)}`;

async function openRows(directory: string, lines: string[]): Promise<void> {
  const file = join(directory, "open.db");
  const writer = new SqliteSessionStore({ file });
  await writer.createSession(header("realistic", "/bench/open"));
  let batch: SessionEntry[] = [];
  for (const entry of realisticEntries(OPEN)) {
    batch.push(entry);
    if (batch.length === SAVE_POINT) {
      await writer.appendEntries("realistic", batch);
      batch = [];
    }
  }
  if (batch.length > 0) await writer.appendEntries("realistic", batch);
  await writer.close();

  const store = new SqliteSessionStore({ file, readOnly: true });
  const built = (await Session.open(store, "realistic")).buildContext();
  const db = new Database(file, { readonly: true });
  const seqOf = new Map(
    (
      db.prepare("SELECT id, seq FROM arbor_entries WHERE session_id = ?").raw().all("realistic") as [
        string,
        number,
      ][]
    ).map(([id, seq]) => [id, seq]),
  );
  const contextSeqs = built.entryIds.map((id) => seqOf.get(id) as number).filter((seq) => seq !== undefined);
  const body = db.prepare("SELECT body FROM arbor_entries WHERE session_id = ? AND seq = ?").pluck();
  const bodies = () => {
    const parsed: unknown[] = [];
    for (const seq of contextSeqs) parsed.push(JSON.parse(body.get("realistic", seq) as string));
    return parsed.length;
  };
  // The issue's floor: the tree columns of every row in one query, then the context's bodies.
  const tree = db
    .prepare("SELECT seq, type, id, parent_id FROM arbor_entries WHERE session_id = ? ORDER BY seq")
    .raw();
  const floor = () => (tree.all("realistic") as unknown[][]).length + bodies();
  // A stricter floor: the same, 4,096 rows a query (as the store reads them: rows that die young cost
  // the garbage collector nothing).
  const chunk = db
    .prepare(
      "SELECT seq, type, id, parent_id FROM arbor_entries WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
    )
    .raw();
  const count = seqOf.size;
  const chunkedFloor = () => {
    let rows = 0;
    for (let from = 0; from < count; from += 4096)
      rows += (chunk.all("realistic", from, from + 4095) as unknown[][]).length;
    return rows + bodies();
  };
  const arbor = async () => (await Session.open(store, "realistic")).buildContext();
  const [floorMs, chunkedMs, arborMs] = (await rounds([floor, chunkedFloor, arbor])) as [
    number,
    number,
    number,
  ];
  lines.push(
    `open + buildContext, ${OPEN} entries, 60 compactions (${built.messages.length} messages in the context)`,
    row("Session.open + buildContext, vs the issue's floor (one query)", arborMs, floorMs),
    row("  the same, vs the tree read 4,096 rows a query", arborMs, chunkedMs),
  );
  db.close();
  await store.close();
}

/**
 * One save point through raw better-sqlite3: what the store's append cannot go below — the rows in a
 * rowid table with one unique index `(session, seq)`, one multi-row INSERT, the session row's count and
 * last entry updated, in one `BEGIN IMMEDIATE` transaction.
 */
function rawAppender(file: string) {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(`CREATE TABLE IF NOT EXISTS s (id TEXT PRIMARY KEY, n INTEGER NOT NULL, last TEXT, updated TEXT);
    CREATE TABLE IF NOT EXISTS e (session_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL,
      parent_id TEXT, type TEXT NOT NULL, body TEXT NOT NULL);
    CREATE UNIQUE INDEX IF NOT EXISTS e_by_seq ON e (session_id, seq);`);
  const state = db.prepare("SELECT n, last FROM s WHERE id = ?");
  const insert = db.prepare(
    `INSERT INTO e VALUES ${Array.from({ length: SAVE_POINT }, () => "(?, ?, ?, ?, ?, ?)").join(", ")}`,
  );
  const update = db.prepare("UPDATE s SET n = n + ?, last = ?, updated = ? WHERE id = ?");
  const create = db.prepare("INSERT INTO s (id, n) VALUES (?, 0)");
  const append = db.transaction((id: string, entries: SessionEntry[]) => {
    let { n } = state.get(id) as { n: number };
    const values: unknown[] = [];
    for (const entry of entries)
      values.push(id, n++, entry.id, entry.parentId, entry.type, JSON.stringify(entry));
    insert.run(values);
    update.run(entries.length, entries.at(-1)?.id, entries.at(-1)?.timestamp, id);
  });
  return {
    durability: (level: "normal" | "full") => db.pragma(`synchronous = ${level.toUpperCase()}`),
    create: (id: string) => create.run(id),
    append: (id: string, entries: SessionEntry[]) => append.immediate(id, entries),
    close: () => db.close(),
  };
}

/** `points` chained save points per session, made before the clock starts. */
function chains(ids: readonly string[], points: number): Map<string, SessionEntry[][]> {
  return new Map(
    ids.map((id) => {
      const batches: SessionEntry[][] = [];
      for (let point = 0; point < points; point++)
        batches.push(saveBatch(id, point * SAVE_POINT, batches.at(-1)?.at(-1)?.id ?? null));
      return [id, batches];
    }),
  );
}

/** Appends each session's save points, each guarded by `expectedLastEntryId`, one session after another. */
async function appendEach(store: SqliteSessionStore, id: string, batches: readonly SessionEntry[][]) {
  let last: string | null = null;
  for (const batch of batches) {
    await store.appendEntries(id, batch, { expectedLastEntryId: last });
    last = batch.at(-1)?.id ?? null;
  }
}

async function appendRows(directory: string, lines: string[]): Promise<void> {
  const raw = rawAppender(join(directory, "append-floor.db"));
  let round = 0;
  const perSecond = (value: number) => `${Math.round(value)}/s`;
  const rate = (points: number, time: number) => (points * SAVE_POINT) / (time / 1000);
  lines.push(
    "",
    `append: save points of ${SAVE_POINT} entries (~2 KB each, made before the clock starts), WAL`,
  );
  for (const durability of ["normal", "full"] as const) {
    const store = new SqliteSessionStore({ file: join(directory, `append-${durability}.db`), durability });
    const session = async () => {
      const id = `one-${round++}`;
      await store.createSession(header(id, "/bench/append"));
      return { id, batches: chains([id], APPEND).get(id) as SessionEntry[][] };
    };
    /** 64 sessions with the same number of save points in all, made before the clock starts. */
    const sessions = async () => {
      const ids = Array.from({ length: IN_FLIGHT }, (_, index) => `flight-${round}-${index}`);
      round += 1;
      for (const id of ids) await store.createSession(header(id, "/bench/append"));
      return chains(ids, Math.ceil(APPEND / IN_FLIGHT));
    };
    const timed = async <T>(prepare: () => Promise<T> | T, work: (prepared: T) => unknown) => {
      const prepared = await prepare();
      return async () => {
        const start = performance.now();
        await work(prepared);
        return performance.now() - start;
      };
    };
    const contenders: (() => Promise<() => Promise<number>>)[] = [
      // The floor: the same rows and summary update, raw, one transaction per save point.
      () =>
        timed(
          () => {
            const id = `floor-${durability}-${round++}`;
            raw.create(id);
            return { id, batches: chains([id], APPEND).get(id) as SessionEntry[][] };
          },
          ({ id, batches }) => {
            for (const batch of batches) raw.append(id, batch);
          },
        ),
      () => timed(session, ({ id, batches }) => appendEach(store, id, batches)),
      // 64 sessions, one append at a time (each awaited before the next) …
      () =>
        timed(sessions, async (chained) => {
          for (let point = 0; point < Math.ceil(APPEND / IN_FLIGHT); point++)
            for (const [id, batches] of chained)
              await store.appendEntries(id, batches[point] as SessionEntry[], {
                expectedLastEntryId: batches[point - 1]?.at(-1)?.id ?? null,
              });
        }),
      // … and the same with 64 in flight: each session's appends in turn, all sessions at once.
      () =>
        timed(sessions, (chained) =>
          Promise.all([...chained].map(([id, batches]) => appendEach(store, id, batches))),
        ),
    ];
    raw.durability(durability);
    const times = contenders.map(() => [] as number[]);
    for (let turn = 0; turn < ROUNDS; turn++) {
      const order = contenders.map((_, index) => index);
      if (turn % 2 === 1) order.reverse();
      for (const index of order) {
        const run = await (contenders[index] as () => Promise<() => Promise<number>>)();
        gc();
        times[index]?.push(await run());
      }
    }
    const [floorMs, oneMs, serialMs, flightMs] = times.map(median) as [number, number, number, number];
    const flightPoints = Math.ceil(APPEND / IN_FLIGHT) * IN_FLIGHT;
    lines.push(
      row(`synchronous=${durability.toUpperCase()}: one save point at a time (${APPEND})`, oneMs, floorMs),
      `  ${`  ${IN_FLIGHT} in flight vs one at a time, ${IN_FLIGHT} sessions (entries/s)`.padEnd(58)} ${perSecond(rate(flightPoints, flightMs)).padStart(11)} ${perSecond(rate(flightPoints, serialMs)).padStart(11)} ${`${(serialMs / flightMs).toFixed(2)}x`.padStart(8)}`,
    );
    await store.close();
  }
  raw.close();
}

async function listRows(directory: string, lines: string[]): Promise<void> {
  const file = join(directory, "list.db");
  const store = new SqliteSessionStore({ file });
  const cwd = "/bench/list";
  for (let index = 0; index < SESSIONS; index++) {
    const id = `list-${String(index).padStart(5, "0")}`;
    await store.createSession(header(id, cwd));
    await store.appendEntries(id, saveBatch(id, 0, null).slice(0, 2));
  }
  const pages = async () => {
    let cursor: string | undefined;
    let seen = 0;
    do {
      const page = await store.listSessions({ cwd, limit: 50, cursor });
      seen += page.sessions.length;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    if (seen !== SESSIONS) throw new Error(`listed ${seen} of ${SESSIONS} sessions`);
  };
  // The floor's table: the summary columns the listing shows, first message included, and the index.
  const db = new Database(join(directory, "list-floor.db"));
  db.exec(`CREATE TABLE f (id TEXT PRIMARY KEY, cwd TEXT NOT NULL, created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL, updated_ms INTEGER NOT NULL, message_count INTEGER NOT NULL, name TEXT,
      parent_session TEXT, first_message TEXT);
    CREATE INDEX f_by_cwd ON f (cwd, updated_ms DESC, id);`);
  const insert = db.prepare("INSERT INTO f VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?)");
  db.prepare("ATTACH ? AS src").run(file);
  const sessions = db
    .prepare("SELECT id, cwd, created_at, updated_at, updated_ms, message_count FROM src.arbor_sessions")
    .raw()
    .all() as unknown[][];
  db.transaction(() => {
    for (const session of sessions) insert.run(...session, `first message of ${session[0]}`);
  })();
  db.exec("DETACH src");
  const first = db.prepare(
    `SELECT id, cwd, created_at, updated_at, updated_ms, message_count, name, parent_session, first_message
     FROM f WHERE cwd = ? ORDER BY updated_ms DESC, id LIMIT ?`,
  );
  const next = db.prepare(
    `SELECT id, cwd, created_at, updated_at, updated_ms, message_count, name, parent_session, first_message
     FROM f WHERE cwd = ? AND updated_ms <= ? AND (updated_ms < ? OR id > ?)
     ORDER BY updated_ms DESC, id LIMIT ?`,
  );
  const floor = () => {
    let seen = 0;
    let after: { updated_ms: number; id: string } | undefined;
    for (;;) {
      const rows = (
        after === undefined
          ? first.all(cwd, 51)
          : next.all(cwd, after.updated_ms, after.updated_ms, after.id, 51)
      ) as { updated_ms: number; id: string }[];
      const page = rows.slice(0, 50).map((found) => ({ ...found }));
      seen += page.length;
      if (rows.length <= 50) break;
      after = page.at(-1);
    }
    if (seen !== SESSIONS) throw new Error(`the floor listed ${seen} of ${SESSIONS} sessions`);
  };
  const [floorMs, arborMs] = (await rounds([floor, pages])) as [number, number];
  lines.push(
    "",
    `listing ${SESSIONS} sessions, every page (limit 50)`,
    row("listSessions, every page", arborMs, floorMs),
  );
  db.close();
  await store.close();
}

const bench: Bench = {
  name: "SqliteSessionStore against its floors (issue 36)",
  async run() {
    const directory = mkdtempSync(join(tmpdir(), "arbor-bench-sqlite-"));
    const parts = (process.env.ARBOR_BENCH_PARTS ?? "open,append,list").split(",");
    const lines = [
      `${ROUNDS} rounds, contenders in turn, medians. Ratio: store ÷ floor (in flight: its rate ÷ the rate one at a time).`,
      "",
      `  ${"".padEnd(58)} ${"store".padStart(11)} ${"floor".padStart(11)} ${"ratio".padStart(8)}`,
    ];
    try {
      if (parts.includes("open")) await openRows(directory, lines);
      if (parts.includes("append")) await appendRows(directory, lines);
      if (parts.includes("list")) await listRows(directory, lines);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
    return lines;
  },
};

export default bench;
