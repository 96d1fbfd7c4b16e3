/**
 * The PostgreSQL session store against its floors (issue 36), each floor measured in the same run and the
 * contenders taking turns, ≥ 3 rounds, medians reported as ratios:
 *
 * - open: `Session.open` + `buildContext()` of the "realistic-60k" session (60k entries of ~2 KB, 60
 *   compactions, 60 side branches; `session-entries.ts`). Floor: the tree columns of every row, then the
 *   bodies of the built context's entries only (`= ANY`), each `JSON.parse`d. The store is measured as
 *   `Session.open` opens by default (every body) and with `{ bodies: "context" }` (when it has it).
 * - append: save points of 10 entries (~2 KB each), one after the other, each guarded by
 *   `expectedLastEntryId`. Floor: one multi-row `INSERT` per batch into a table of the same shape.
 * - 64 in flight: 64 sessions each appending save points one after the other, all at once (entries/s).
 *   Floor: the same multi-row `INSERT`s, 64 at once, through a pool of the same size.
 * - list: every page (limit 50) of 2,000 sessions of one cwd, on tables never `ANALYZE`d. Floor: the
 *   summary columns of a table holding them, paged by keyset with the bound on the index.
 *
 * Needs `DATABASE_URL`: `scripts/with-postgres.sh pnpm bench store-postgres`. Tables live in temporary
 * schemas dropped at the end. `PG_BENCH_BEFORE=<dir>` adds another version of the store (the `src` of an
 * earlier `@arbor/session-store-postgres`, e.g. from `git archive`, placed where its imports resolve) as
 * a contender in the same rounds, so a change is judged before and after in one run. Sizes: `PG_BENCH_OPEN` (entries, default 60000), `PG_BENCH_APPEND` (2000),
 * `PG_BENCH_FLIGHT` (save points per session in flight, 20), `PG_BENCH_SESSIONS` (2000),
 * `PG_BENCH_ROUNDS` (3).
 */
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { Session, type SessionEntry, type SessionOptions, type SessionStore } from "@arbor/session-store";
import { PostgresSessionStore } from "@arbor/session-store-postgres";
import pg from "pg";
import type { Bench } from "./bench.js";
import { ms } from "./measure.js";
import { realisticEntries, timestamp, tripleRecord } from "./session-entries.js";

const OPEN = Number(process.env.PG_BENCH_OPEN ?? 60_000);
const APPEND = Number(process.env.PG_BENCH_APPEND ?? 2000);
const FLIGHT_BATCHES = Number(process.env.PG_BENCH_FLIGHT ?? 20);
const SESSIONS = Number(process.env.PG_BENCH_SESSIONS ?? 2000);
const ROUNDS = Math.max(3, Number(process.env.PG_BENCH_ROUNDS ?? 3));
const SAVE_POINT = 10;
const IN_FLIGHT = 64;
const POOL_SIZE = 10;

type Timed = () => Promise<number>;

function header(id: string, cwd: string) {
  return { type: "session" as const, version: 3, id, timestamp: timestamp(), cwd };
}

/** `count` chained ~2 KB entries of session `prefix`, in save points. */
function saveBatches(prefix: string, count: number): SessionEntry[][] {
  const batches: SessionEntry[][] = [];
  let parent: string | null = null;
  for (let start = 0; start < count; start += SAVE_POINT) {
    const batch: SessionEntry[] = [];
    for (let n = start; n < Math.min(count, start + SAVE_POINT); n++) {
      const entry = tripleRecord(n, `${prefix}-${n}`, parent) as unknown as SessionEntry;
      parent = entry.id;
      batch.push(entry);
    }
    batches.push(batch);
  }
  return batches;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Runs the contenders in turn, `ROUNDS` times; the median time of each. */
async function rounds(contenders: readonly Timed[]): Promise<number[]> {
  const times = contenders.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, run] of contenders.entries()) times[index]?.push(await run());
  }
  return times.map(median);
}

/** The floor's own tables: the store's row shape, no store logic. */
async function createFloorTables(client: pg.Client, schema: string): Promise<void> {
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`CREATE TABLE ${schema}.entries (
    session_id text COLLATE "C" NOT NULL, seq integer NOT NULL, id text NOT NULL, parent_id text,
    type text NOT NULL, body json NOT NULL, PRIMARY KEY (session_id, seq))`);
  await client.query(`CREATE TABLE ${schema}.summaries (
    id text COLLATE "C" PRIMARY KEY, cwd text NOT NULL, created_at text NOT NULL, updated_at text NOT NULL,
    updated_ms bigint NOT NULL, message_count integer NOT NULL, name text, parent_session text,
    first_message text)`);
  await client.query(`CREATE INDEX ON ${schema}.summaries (cwd, updated_ms DESC, id)`);
}

/** The floor of an append: one multi-row INSERT of the batch's rows. */
async function floorInsert(
  pool: pg.Pool,
  schema: string,
  sessionId: string,
  first: number,
  batch: readonly SessionEntry[],
): Promise<void> {
  const values: unknown[] = [];
  const tuples = batch.map((entry, index) => {
    values.push(sessionId, first + index, entry.id, entry.parentId, entry.type, JSON.stringify(entry));
    const at = index * 6;
    return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6})`;
  });
  await pool.query(
    `INSERT INTO ${schema}.entries (session_id, seq, id, parent_id, type, body) VALUES ${tuples.join(", ")}`,
    values,
  );
}

let runId = 0;

/** A store under test: this build's, and the earlier one of `PG_BENCH_BEFORE` when set. */
interface Contender {
  name: string;
  store: PostgresSessionStore;
}

async function contenders(url: string, tag: string): Promise<Contender[]> {
  const options = { pool: { max: POOL_SIZE } };
  const list: Contender[] = [
    {
      name: "Arbor",
      store: PostgresSessionStore.fromUrl(url, { ...options, schema: `arbor_bench_store_${tag}` }),
    },
  ];
  const before = process.env.PG_BENCH_BEFORE;
  if (before !== undefined && before !== "") {
    const module = (await import(pathToFileURL(resolve(before, "index.ts")).href)) as {
      PostgresSessionStore: typeof PostgresSessionStore;
    };
    const store = module.PostgresSessionStore.fromUrl(url, {
      ...options,
      schema: `arbor_bench_before_${tag}`,
    });
    list.push({ name: "before", store });
  }
  return list;
}

/** Writes a session of `entries` into `store`, in batches of 500. */
async function writeSession(store: SessionStore, id: string, entries: Iterable<SessionEntry>): Promise<void> {
  await store.createSession(header(id, "/bench/open"));
  let batch: SessionEntry[] = [];
  for (const entry of entries) {
    batch.push(entry);
    if (batch.length === 500) {
      await store.appendEntries(id, batch);
      batch = [];
    }
  }
  if (batch.length > 0) await store.appendEntries(id, batch);
}

/** Appends the save points of each chain, one after the other per chain, all chains at once. */
function appendChains(store: SessionStore, ids: readonly string[], work: readonly SessionEntry[][][]) {
  return Promise.all(
    ids.map(async (id, index) => {
      let last: string | null = null;
      for (const entries of work[index] as SessionEntry[][]) {
        await store.appendEntries(id, entries, { expectedLastEntryId: last });
        last = entries.at(-1)?.id ?? last;
      }
    }),
  );
}

/** Every page of `cwd`'s sessions. */
async function listAll(store: SessionStore, cwd: string): Promise<void> {
  let cursor: string | undefined;
  let seen = 0;
  do {
    const page = await store.listSessions({ cwd, limit: 50, cursor });
    seen += page.sessions.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  if (seen !== SESSIONS) throw new Error(`listed ${seen} sessions`);
}

const bench: Bench = {
  name: "PostgreSQL session store against its floors",
  async run() {
    const url = process.env.DATABASE_URL;
    if (url === undefined) {
      return ["skipped: set DATABASE_URL (scripts/with-postgres.sh pnpm bench store-postgres)"];
    }
    const tag = randomBytes(4).toString("hex");
    const floorSchema = `arbor_bench_floor_${tag}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const stores = await contenders(url, tag);
    const floorPool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
    const lines = [
      `open: Session.open + buildContext of realistic-${OPEN / 1000}k; append: ${APPEND} entries in save ` +
        `points of ${SAVE_POINT}; in flight: ${IN_FLIGHT} sessions × ${FLIGHT_BATCHES} save points at once ` +
        `(pool of ${POOL_SIZE}); list: every page (limit 50) of ${SESSIONS} sessions. ${ROUNDS} rounds, ` +
        "contenders in turn, medians; ratio = time / floor's.",
      "",
      `| row | floor | ${stores.map(({ name }) => `${name} | ratio`).join(" | ")} |`,
      `|---|---|${stores.map(() => "---|---|").join("")}`,
    ];
    /** One line: the floor, then each contender's time (or rate) and its ratio. */
    const row = (name: string, floor: number, times: readonly number[], unit: "ms" | "rate" = "ms") => {
      const rate = (value: number) => `${Math.round(value).toLocaleString("en")}/s`;
      const cells = times.map((time) =>
        unit === "ms"
          ? `${ms(time)} | ${(time / floor).toFixed(2)}×`
          : `${rate(time)} | ${(floor / time).toFixed(2)}×`,
      );
      lines.push(`| ${name} | ${unit === "ms" ? ms(floor) : rate(floor)} | ${cells.join(" | ")} |`);
    };
    try {
      for (const { store } of stores) await store.connect();
      await createFloorTables(admin, floorSchema);

      // Open + buildContext: the same session in each contender's tables; the floor reads the first's.
      const openId = "open-realistic";
      for (const { store } of stores) await writeSession(store, openId, realisticEntries(OPEN));
      const first = (stores[0] as Contender).store;
      const contextIds = (await Session.open(first, openId)).buildContext().entryIds;
      const storeEntries = `"${first.schema}".entries`;
      const floorOpen: Timed = () =>
        timed(async () => {
          const tree = await floorPool.query({
            text: `SELECT seq, type, id, parent_id FROM ${storeEntries} WHERE session_id = $1 ORDER BY seq`,
            values: [openId],
            rowMode: "array",
          });
          if (tree.rows.length !== OPEN) throw new Error("floor read a short tree");
          const bodies = await floorPool.query({
            text: `SELECT body::text FROM ${storeEntries} WHERE session_id = $1 AND id = ANY($2)`,
            values: [openId, contextIds],
            rowMode: "array",
          });
          return bodies.rows.map((body) => JSON.parse(body[0] as string));
        });
      const open =
        (store: SessionStore, options?: SessionOptions): Timed =>
        () =>
          timed(async () => (await Session.open(store, openId, options)).buildContext());
      const [openFloor, ...openTimes] = await rounds([
        floorOpen,
        ...stores.flatMap(({ store }) => [open(store), open(store, { bodies: "context" })]),
      ]);
      const context = `${contextIds.length} context entries`;
      row(
        `open + buildContext, realistic ${OPEN / 1000}k (${context}), Session.open default`,
        openFloor as number,
        openTimes.filter((_, index) => index % 2 === 0),
      );
      row(
        `the same, Session.open(…, { bodies: "context" })`,
        openFloor as number,
        openTimes.filter((_, index) => index % 2 === 1),
      );

      // Append, one save point at a time (one chain), and 64 chains in flight.
      const chains = (count: number, entries: number) => {
        const ids = Array.from({ length: count }, () => `append-${runId++}`);
        return { ids, work: ids.map((id) => saveBatches(id, entries)) };
      };
      const arborAppend =
        (store: SessionStore, count: number, entries: number): Timed =>
        async () => {
          const { ids, work } = chains(count, entries);
          for (const id of ids) await store.createSession(header(id, "/bench/append"));
          return timed(() => appendChains(store, ids, work));
        };
      const floorAppend =
        (count: number, entries: number): Timed =>
        async () => {
          const { ids, work } = chains(count, entries);
          return timed(() =>
            Promise.all(
              ids.map(async (id, index) => {
                let seq = 0;
                for (const batch of work[index] as SessionEntry[][]) {
                  await floorInsert(floorPool, floorSchema, id, seq, batch);
                  seq += batch.length;
                }
              }),
            ),
          );
        };
      const [appendFloorMs, ...appendTimes] = await rounds([
        floorAppend(1, APPEND),
        ...stores.map(({ store }) => arborAppend(store, 1, APPEND)),
      ]);
      row(
        `append ${APPEND} entries, one save point of ${SAVE_POINT} at a time`,
        appendFloorMs as number,
        appendTimes,
      );
      const flightEntries = FLIGHT_BATCHES * SAVE_POINT;
      const flightCount = IN_FLIGHT * flightEntries;
      const [flightFloorMs, ...flightTimes] = await rounds([
        floorAppend(IN_FLIGHT, flightEntries),
        ...stores.map(({ store }) => arborAppend(store, IN_FLIGHT, flightEntries)),
      ]);
      row(
        `append, ${IN_FLIGHT} sessions in flight (entries/s; ratio = floor's rate / the store's)`,
        flightCount / ((flightFloorMs as number) / 1000),
        flightTimes.map((time) => flightCount / (time / 1000)),
        "rate",
      );

      // Listing.
      const cwd = "/bench/list";
      const listed = saveBatches("list", 2)[0] as SessionEntry[];
      for (let index = 0; index < SESSIONS; index++) {
        const id = `list-${index}`;
        const head = header(id, cwd);
        const entries = listed.map((entry, n) => ({
          ...entry,
          id: `${id}-${n}`,
          parentId: n === 0 ? null : `${id}-0`,
          timestamp: timestamp(),
        })) as SessionEntry[];
        for (const { store } of stores) {
          await store.createSession(head);
          await store.appendEntries(id, entries);
        }
        const updated = entries.at(-1)?.timestamp as string;
        await admin.query(
          `INSERT INTO ${floorSchema}.summaries VALUES ($1, $2, $3, $4, $5, 2, NULL, NULL, $6)`,
          [id, cwd, head.timestamp, updated, Date.parse(updated), `first message of ${id}`],
        );
      }
      const listFloor: Timed = () =>
        timed(async () => {
          let after: [number, string] | undefined;
          let seen = 0;
          for (;;) {
            const page = await floorPool.query<{ id: string; updated_ms: string }>(
              after === undefined
                ? `SELECT * FROM ${floorSchema}.summaries WHERE cwd = $1 ORDER BY updated_ms DESC, id LIMIT 51`
                : `SELECT * FROM ${floorSchema}.summaries WHERE cwd = $1 AND updated_ms <= $2
                     AND (updated_ms < $2 OR id > $3) ORDER BY updated_ms DESC, id LIMIT 51`,
              after === undefined ? [cwd] : [cwd, after[0], after[1]],
            );
            const rows = page.rows.slice(0, 50);
            seen += rows.length;
            const last = rows.at(-1);
            if (page.rows.length <= 50 || last === undefined) break;
            after = [Number(last.updated_ms), last.id];
          }
          if (seen !== SESSIONS) throw new Error(`floor listed ${seen} sessions`);
        });
      const [listFloorMs, ...listTimes] = await rounds([
        listFloor,
        ...stores.map(
          ({ store }): Timed =>
            () =>
              timed(() => listAll(store, cwd)),
        ),
      ]);
      row(`list ${SESSIONS} sessions, every page of 50`, listFloorMs as number, listTimes);
    } finally {
      for (const { store } of stores) await store.close();
      await floorPool.end();
      for (const { store } of stores) await admin.query(`DROP SCHEMA IF EXISTS "${store.schema}" CASCADE`);
      await admin.query(`DROP SCHEMA IF EXISTS ${floorSchema} CASCADE`);
      await admin.end();
    }
    return lines;
  },
};

export default bench;
