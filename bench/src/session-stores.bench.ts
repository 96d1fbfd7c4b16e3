/**
 * The session stores side by side: JSONL, SQLite and PostgreSQL, each against MemorySessionStore (the
 * in-memory reference, which does the same JSON work with no storage) measured in the same run.
 *
 * - append: save points of 10 entries (~2 KB each), one after the other, each guarded by
 *   `expectedLastEntryId` as `Session.flush()` does; entries/s.
 * - open: `Session.open` + `buildContext()` of a 20k-entry session (median of 3).
 * - list: every page (`limit` 50) of `listSessions` over 2,000 sessions (median of 3).
 *
 * PostgreSQL runs when `DATABASE_URL` is set (`scripts/with-postgres.sh pnpm bench session-stores`
 * starts a throwaway server, with `fsync=off`); its tables live in a temporary schema dropped at the
 * end. Sizes: `BENCH_APPEND` (entries, default 2000), `BENCH_OPEN` (20000), `BENCH_SESSIONS` (2000).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { MemorySessionStore, Session, type SessionEntry, type SessionStore } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { PostgresSessionStore } from "@arbor/session-store-postgres";
import { SqliteSessionStore } from "@arbor/session-store-sqlite";
import pg from "pg";
import type { Bench } from "./bench.js";
import { ms } from "./measure.js";

const SAVE_POINT = 10;
const APPEND = Number(process.env.BENCH_APPEND ?? 2000);
const OPEN = Number(process.env.BENCH_OPEN ?? 20_000);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 2000);

let clock = Date.parse("2026-01-01T00:00:00.000Z");

/** The n-th entry of a user / assistant / tool result chain, about 2 KB. */
function entry(n: number, parentId: string | null, prefix: string): SessionEntry {
  clock += 1000;
  const text = `${prefix} ${n} `.padEnd(1900, "lorem ipsum dolor sit amet ");
  const base = { type: "message", id: `${prefix}${n}`, parentId, timestamp: new Date(clock).toISOString() };
  const message =
    n % 3 === 0
      ? { role: "user", content: [{ type: "text", text }], timestamp: clock }
      : n % 3 === 1
        ? {
            role: "assistant",
            content: [
              { type: "text", text: text.slice(0, 1300) },
              { type: "toolCall", id: `call_${n}`, name: "read", arguments: { path: `src/f${n}.ts` } },
            ],
            api: "anthropic-messages",
            provider: "anthropic",
            model: "claude-sonnet-4-5",
            usage: { input: 1200, output: 300, cacheRead: 0, cacheWrite: 0, totalTokens: 1500 },
            stopReason: "toolUse",
            timestamp: clock,
          }
        : {
            role: "toolResult",
            toolCallId: `call_${n - 1}`,
            toolName: "read",
            content: [{ type: "text", text }],
            isError: false,
            timestamp: clock,
          };
  return { ...base, message } as unknown as SessionEntry;
}

function header(id: string, cwd: string) {
  clock += 1000;
  return { type: "session" as const, version: 3, id, timestamp: new Date(clock).toISOString(), cwd };
}

/** Appends `count` chained entries in batches of `batch`, each guarded by `expectedLastEntryId`. */
async function appendChain(store: SessionStore, id: string, count: number, batch: number): Promise<void> {
  let last: string | null = null;
  for (let start = 0; start < count; start += batch) {
    const entries: SessionEntry[] = [];
    for (let n = start; n < Math.min(count, start + batch); n++) entries.push(entry(n, last, id));
    await store.appendEntries(id, entries, { expectedLastEntryId: last });
    last = entries.at(-1)?.id ?? last;
  }
}

async function median(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    (globalThis as { gc?: () => void }).gc?.();
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)] as number;
}

interface Backend {
  name: string;
  /** A store for the measured operations, and the setup store (faster durability when it differs). */
  open: () => SessionStore;
  setup?: () => SessionStore;
}

async function measureBackend(backend: Backend, tag: string) {
  const store = backend.open();
  const setup = backend.setup?.() ?? store;
  try {
    const appendId = `append-${tag}`;
    await store.createSession(header(appendId, "/bench/append"));
    const start = performance.now();
    await appendChain(store, appendId, APPEND, SAVE_POINT);
    const appendMs = performance.now() - start;

    const openId = `open-${tag}`;
    await setup.createSession(header(openId, "/bench/open"));
    await appendChain(setup, openId, OPEN, 500);
    const openMs = await median(3, async () => (await Session.open(store, openId)).buildContext());

    const cwd = `/bench/list-${tag}`;
    for (let index = 0; index < SESSIONS; index++) {
      const id = `list-${tag}-${index}`;
      await setup.createSession(header(id, cwd));
      await setup.appendEntries(id, [entry(0, null, id), entry(1, `${id}0`, id)]);
    }
    const listMs = await median(3, async () => {
      let cursor: string | undefined;
      let seen = 0;
      do {
        const page = await store.listSessions({ cwd, limit: 50, cursor });
        seen += page.sessions.length;
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      if (seen !== SESSIONS) throw new Error(`${backend.name} listed ${seen} sessions`);
    });
    return { appendMs, openMs, listMs };
  } finally {
    if (setup !== store) await setup.close?.();
    await store.close?.();
  }
}

const bench: Bench = {
  name: "session stores: JSONL, SQLite, PostgreSQL side by side",
  async run() {
    const directory = mkdtempSync(join(tmpdir(), "arbor-bench-stores-"));
    const url = process.env.DATABASE_URL;
    const schema = `arbor_bench_${randomBytes(4).toString("hex")}`;
    const memory = new MemorySessionStore();
    const backends: Backend[] = [
      { name: "MemorySessionStore (baseline)", open: () => memory },
      {
        name: "JsonlSessionStore (fsync)",
        open: () => new JsonlSessionStore({ home: join(directory, "jsonl") }),
        setup: () => new JsonlSessionStore({ home: join(directory, "jsonl"), durability: "flush" }),
      },
      {
        name: "SqliteSessionStore (WAL, synchronous=NORMAL)",
        open: () => new SqliteSessionStore({ file: join(directory, "normal.db") }),
      },
      {
        name: "SqliteSessionStore (WAL, synchronous=FULL)",
        open: () => new SqliteSessionStore({ file: join(directory, "full.db"), durability: "full" }),
        setup: () => new SqliteSessionStore({ file: join(directory, "full.db") }),
      },
    ];
    if (url !== undefined) {
      backends.push({
        name: "PostgresSessionStore (127.0.0.1)",
        open: () => PostgresSessionStore.fromUrl(url, { schema }),
      });
    }
    const lines = [
      `append: ${APPEND} entries of ~2 KB in save points of ${SAVE_POINT}; open: Session.open + buildContext of ` +
        `${OPEN} entries; list: all pages (limit 50) of ${SESSIONS} sessions. Ratios: time / baseline's.`,
      "",
      `  ${"store".padEnd(46)} ${"append entries/s".padStart(17)} ${"open".padStart(18)} ${"list".padStart(18)}`,
    ];
    let base: { appendMs: number; openMs: number; listMs: number } | undefined;
    try {
      for (const [index, backend] of backends.entries()) {
        const result = await measureBackend(backend, String(index));
        base ??= result;
        const cell = (value: number, baseline: number) =>
          `${ms(value)} ${`${(value / baseline).toFixed(1)}x`.padStart(6)}`.padStart(18);
        const rate = Math.round(APPEND / (result.appendMs / 1000));
        lines.push(
          `  ${backend.name.padEnd(46)} ${`${rate} ${`${(result.appendMs / base.appendMs).toFixed(1)}x`.padStart(6)}`.padStart(17)} ` +
            `${cell(result.openMs, base.openMs)} ${cell(result.listMs, base.listMs)}`,
        );
      }
      if (url === undefined)
        lines.push(
          "  PostgresSessionStore: skipped (set DATABASE_URL, or run under scripts/with-postgres.sh)",
        );
    } finally {
      rmSync(directory, { recursive: true, force: true });
      if (url !== undefined) {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
    }
    return lines;
  },
};

export default bench;
