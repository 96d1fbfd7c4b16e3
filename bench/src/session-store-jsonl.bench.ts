/**
 * JsonlSessionStore: opening large sessions, appending durably, listing many sessions.
 *
 * Sessions of 3k, 20k and 60k entries (~2 KB each: user / assistant-with-toolCall / toolResult
 * triples, written by the store in save-point batches of 10), and a realistic 60k variant with 60
 * compactions and 60 side branches. The floor is `readFileSync` + `split` + `JSON.parse` of every line
 * of the same file, measured in the same run. "Open to a built context" is `readSession` plus a walk
 * from the leaf back to the latest compaction's `firstKeptEntryId` that parses only the bodies on that
 * path (and, next to it, `Session.open` + `buildContext()` from @arbor/session-store); each row also shows
 * the median time spent collecting garbage within it (keeping 60k parsed messages alive costs GC time the
 * floor, which drops what it parses, never pays). The 60k linear case adds the cost of validating every
 * entry (TypeBox's compiled check). Durable append is measured against the disk's own rates — one
 * write + fdatasync per batch (its latency) and 64 batches in flight sharing each fdatasync (its
 * throughput) — and against the CPU floor (stringify + write, no sync). Listing runs over 2,000 files of
 * 1 MB, in a child process so its peak RSS is its own. Everything is generated in os.tmpdir() and deleted.
 */
import { spawnSync } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  fdatasync,
  fdatasyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { Session, type SessionEntry, type StoredEntry } from "@arbor/session-store";
import { validateSessionEntry } from "@arbor/session-store/backend";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import type { Bench } from "./bench.js";
import { ms } from "./measure.js";
import { loadPi, PI_VERSION, type PiSessionManager } from "./pi-agent.js";
import {
  linearEntries,
  realisticEntries,
  SAVE_POINT,
  timestamp,
  tripleRecord,
  writeSession,
} from "./session-entries.js";

/** `ARBOR_BENCH_PARTS=open,append,list` and `ARBOR_BENCH_CASES=realistic-60k,…` keep a run small. */
const parts = process.env.ARBOR_BENCH_PARTS?.split(",");
const onlyCases = process.env.ARBOR_BENCH_CASES?.split(",");
const part = (name: string) => parts === undefined || parts.includes(name);

/** The floor: read, split, JSON.parse every line. */
function floor(path: string): number {
  let parsed = 0;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line !== "") {
      JSON.parse(line);
      parsed++;
    }
  }
  return parsed;
}

/** The floor, keeping what it parsed (as a built context keeps its messages). */
function floorKeeping(path: string): unknown[] {
  const parsed: unknown[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) if (line !== "") parsed.push(JSON.parse(line));
  return parsed;
}

/** Leaf → back via parentId to the latest compaction → its firstKeptEntryId; parses only that path. */
function walkContext(entries: readonly StoredEntry[]): SessionEntry[] {
  const byId = new Map<string, StoredEntry>();
  for (const entry of entries) byId.set(entry.id, entry);
  const path: StoredEntry[] = [];
  let keepFrom: string | undefined;
  for (
    let node = entries.at(-1);
    node !== undefined;
    node = node.parentId === null ? undefined : byId.get(node.parentId)
  ) {
    path.push(node);
    if (keepFrom === undefined && node.type === "compaction")
      keepFrom = (node.entry() as { firstKeptEntryId?: string }).firstKeptEntryId;
    else if (node.id === keepFrom) break;
  }
  return path.reverse().map((node) => node.entry());
}

/** Garbage collections seen (start and end, in `performance.now()` time). */
const collections: { start: number; end: number }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    collections.push({ start: entry.startTime, end: entry.startTime + entry.duration });
}).observe({ entryTypes: ["gc"] });

/** Median wall time of a function's runs, and the median time spent collecting garbage within them. */
interface Timing {
  ms: number;
  gcMs: number;
}

const median = (list: number[]) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

/**
 * Runs the functions in turns (a, b, c, a, b, c, …) so that a change of load on the machine bills them
 * alike; returns the median time of each and the median garbage-collection time within its runs.
 */
async function timed(fns: readonly (() => unknown)[], runs: number, warmup = 1): Promise<Timing[]> {
  const collect = (globalThis as { gc?: () => void }).gc;
  const windows: { start: number; end: number }[][] = fns.map(() => []);
  for (let round = 0; round < warmup + runs; round++) {
    for (const [index, fn] of fns.entries()) {
      collect?.();
      const start = performance.now();
      await fn();
      if (round >= warmup) windows[index]!.push({ start, end: performance.now() });
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 20)); // GC entries are delivered asynchronously
  return windows.map((list) => ({
    ms: median(list.map((window) => window.end - window.start)),
    gcMs: median(
      list.map((window) =>
        collections
          .filter((gc) => gc.start >= window.start && gc.end <= window.end)
          .reduce((sum, gc) => sum + gc.end - gc.start, 0),
      ),
    ),
  }));
}

/** {@link timed}, median times only. */
async function interleaved(fns: readonly (() => unknown)[], runs: number, warmup = 1): Promise<number[]> {
  return (await timed(fns, runs, warmup)).map((timing) => timing.ms);
}

/** `  goal: <what> — <value>×, met` (or `NOT met`). */
function goal(what: string, value: number, relation: "≤" | "≥" | ">", target: number): string {
  const met = relation === "≤" ? value <= target : relation === "≥" ? value >= target : value > target;
  return `  goal: ${what} — ${value.toFixed(2)}×, ${met ? "met" : "NOT met"} (target ${relation} ${target}×)`;
}

const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}x`;
const row = (label: string, value: number | Timing, base?: number) => {
  const time = typeof value === "number" ? value : value.ms;
  const gc = typeof value === "number" ? "" : `   (GC ${ms(value.gcMs)})`;
  return `  ${label.padEnd(54)} ${ms(time).padStart(10)}${base === undefined ? "" : `   ${ratio(time, base).padStart(6)}`}${gc}`;
};

async function openBench(home: string, lines: string[]): Promise<void> {
  const store = new JsonlSessionStore({ home, durability: "flush" });
  const cases: [string, string, Iterable<SessionEntry>][] = [
    ["3k linear", "linear-3k", linearEntries(3_000)],
    ["20k linear", "linear-20k", linearEntries(20_000)],
    ["60k linear", "linear-60k", linearEntries(60_000)],
    ["60k realistic (60 compactions, 60 side branches)", "realistic-60k", realisticEntries(60_000)],
  ];
  const pi = await loadPi();
  lines.push("open to a built context (median; ratio to the floor on the same file)");
  if ("skipped" in pi) lines.push(`  (pi agent rows skipped: ${pi.skipped})`);
  for (const [label, id, entries] of cases) {
    if (onlyCases !== undefined && !onlyCases.includes(id)) continue;
    const path = await writeSession(store, id, entries);
    const runs = Number(process.env.ARBOR_BENCH_RUNS ?? (id.endsWith("3k") ? 15 : 7));
    const reader = new JsonlSessionStore({ home, readOnly: true });
    let parsed = 0;
    const [base, scan, open, viaSession, viaPi, piBranch, arborBranch] = (await timed(
      [
        () => floor(path),
        () => reader.readSession(id),
        async () => {
          parsed = walkContext((await reader.readSession(id)).entries).length;
        },
        async () => (await Session.open(reader, id)).buildContext(),
        () => ("skipped" in pi ? 0 : pi.SessionManager.open(path, join(home, "pi")).buildSessionContext()),
        () => ("skipped" in pi ? 0 : pi.SessionManager.open(path, join(home, "pi")).getBranch()),
        async () => (await Session.open(reader, id)).getBranch(),
      ],
      runs,
    )) as [Timing, Timing, Timing, Timing, Timing, Timing, Timing];
    // Measured apart: its 500 MB of kept objects would bill whichever run follows it.
    const [keeping] = (await timed([() => floorKeeping(path)], runs)) as [Timing];
    const session = await Session.open(reader, id);
    session.buildContext();
    const [again] = (await interleaved([() => session.buildContext()], 21, 2)) as [number];
    lines.push(
      `${label}: ${(statSync(path).size / 1048576).toFixed(0)} MB, ${parsed} bodies parsed for the context`,
      row("floor: readFileSync + split + JSON.parse every line", base, base.ms),
      row("(floor keeping every parsed line, for reference)", keeping, base.ms),
      row("readSession (scan only: tree fields, no bodies)", scan, base.ms),
      row("readSession + walk to the context (bodies of the path)", open, base.ms),
      row("Session.open + buildContext (@arbor/session-store)", viaSession, base.ms),
      row("buildContext() again on the open Session", again),
    );
    if (id === "linear-60k") {
      lines.push(
        goal("Session.open + buildContext ≤ 1.0× the floor", viaSession.ms / base.ms, "≤", 1),
        // A built context keeps every body; this floor keeps them too (docs/decisions/0011-eager-context-bodies.md).
        `    (${ratio(viaSession.ms, keeping.ms)} the floor keeping every parsed line)`,
      );
    }
    if (!("skipped" in pi)) {
      const piSession = pi.SessionManager.open(path, join(home, "pi"));
      const [piAgain] = (await interleaved([() => piSession.buildSessionContext()], 21, 2)) as [number];
      lines.push(
        row(`pi ${PI_VERSION}: SessionManager.open + buildSessionContext`, viaPi, base.ms),
        `  ${"  → Arbor (Session.open + buildContext) vs pi".padEnd(54)} ${`${(viaPi.ms / viaSession.ms).toFixed(1)}× faster`.padStart(10)}`,
        ...(id === "realistic-60k"
          ? [goal("pi ÷ Arbor, open + buildContext ≥ 8×", viaPi.ms / viaSession.ms, "≥", 8)]
          : []),
        row(`pi ${PI_VERSION}: buildSessionContext() again`, piAgain),
        `  ${"  → Arbor vs pi, context rebuilt on an open session".padEnd(54)} ${`${(piAgain / again).toFixed(1)}× faster`.padStart(10)}`,
        row(`pi ${PI_VERSION}: open + getBranch()`, piBranch, base.ms),
        row("Session.open + getBranch()", arborBranch, base.ms),
      );
    }
    if (id === "linear-60k") await validationBench(path, lines);
    await reader.close();
    await appendRebuildBench(store, id, path, home, lines, pi);
  }
  await store.close();
}

/**
 * One more entry on an open session, then its context again — what an agent does after every message:
 * Arbor's `appendMessage` + `flush` + `buildContext()` against pi's `appendMessage` (which writes the line
 * at once) + `buildSessionContext()`, each on its own copy of the file. The entries appended continue the
 * user / assistant-with-toolCall / toolResult pattern, so a call made in one round is answered in the next.
 */
async function appendRebuildBench(
  store: JsonlSessionStore,
  id: string,
  path: string,
  home: string,
  lines: string[],
  pi: Awaited<ReturnType<typeof loadPi>>,
): Promise<void> {
  const piPath = join(home, `pi-append-${id}.jsonl`);
  copyFileSync(path, piPath);
  const session = await Session.open(store, id);
  session.buildContext();
  // pi's SessionManager.appendMessage (not in the bench's PiSessionManager view of it).
  const piSession =
    "skipped" in pi
      ? undefined
      : (pi.SessionManager.open(piPath, join(home, "pi")) as PiSessionManager & {
          appendMessage(message: unknown): string;
        });
  piSession?.buildSessionContext();
  const message = (n: number) =>
    (tripleRecord(n, "x", null) as { message: Parameters<Session["appendMessage"]>[0] }).message;
  let arborNext = 3_000_000;
  let piNext = 3_000_000;
  const fns: (() => unknown)[] = [
    async () => {
      session.appendMessage(message(arborNext++));
      await session.flush();
      return session.buildContext();
    },
  ];
  if (piSession !== undefined)
    fns.push(() => {
      piSession.appendMessage(message(piNext++));
      return piSession.buildSessionContext();
    });
  const [arbor, piTime] = await interleaved(fns, 21, 3);
  lines.push(row("append one entry + flush + buildContext (open Session)", arbor as number));
  if (piTime !== undefined)
    lines.push(
      row(`pi ${PI_VERSION}: appendMessage + buildSessionContext`, piTime),
      `  ${"  → pi ÷ Arbor, one append + context rebuilt".padEnd(54)} ${`${(piTime / (arbor as number)).toFixed(1)}×`.padStart(10)}`,
      goal("pi ÷ Arbor, one append + context rebuilt > 1×", piTime / (arbor as number), ">", 1),
    );
  rmSync(piPath, { force: true });
}

/** Validating every entry of a file (already parsed): TypeBox's compiled check, one per entry type. */
async function validationBench(path: string, lines: string[]): Promise<void> {
  const entries: unknown[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line !== "" && !line.startsWith('{"type":"session"')) entries.push(JSON.parse(line));
  }
  let valid = 0;
  const [parse, validate] = (await interleaved(
    [
      () => floor(path),
      () => {
        valid = 0;
        for (const entry of entries) if (validateSessionEntry(entry).ok) valid++;
      },
    ],
    9,
  )) as [number, number];
  lines.push(
    `  ${`validateSessionEntry × ${entries.length} (${valid} valid; ${((validate / entries.length) * 1000).toFixed(2)} µs each)`.padEnd(54)} ${ms(validate).padStart(10)}   ${ratio(validate, parse).padStart(6)}`,
  );
}

/** `ARBOR_BENCH_APPEND_ROUNDS`: rounds of the append part (each row reports its median). */
const APPEND_ROUNDS = Number(process.env.ARBOR_BENCH_APPEND_ROUNDS ?? 3);

interface AppendVariant {
  label: string;
  durability: "fsync" | "flush";
  inFlight: number;
  /** The floor the row's ratio is taken against, and the ratio it must reach (if it has a goal). */
  floor: "disk" | "cpu";
  goal?: number;
}

const APPEND_VARIANTS: readonly AppendVariant[] = [
  {
    label: '"fsync", one batch at a time (await each)',
    durability: "fsync",
    inFlight: 1,
    floor: "disk",
    goal: 0.9,
  },
  { label: '"fsync", 8 batches in flight (group commit)', durability: "fsync", inFlight: 8, floor: "cpu" },
  {
    label: '"fsync", 64 batches in flight (group commit)',
    durability: "fsync",
    inFlight: 64,
    floor: "cpu",
    goal: 0.9,
  },
  { label: '"flush" (no fdatasync), one batch at a time', durability: "flush", inFlight: 1, floor: "cpu" },
];

async function appendBench(home: string, lines: string[]): Promise<void> {
  const batches = 1_000;
  const makeBatches = () => {
    const all: SessionEntry[][] = [];
    const source = linearEntries(batches * SAVE_POINT);
    for (let index = 0; index < batches; index++)
      all.push(Array.from({ length: SAVE_POINT }, () => source.next().value as SessionEntry));
    return all;
  };
  const payload = Buffer.byteLength(
    makeBatches()[1]!
      .map((entry) => JSON.stringify(entry))
      .join("\n"),
  );
  const bytes = Buffer.alloc(payload, 97);
  // Each timed run starts from a collected heap and a clean page cache, so no run pays for the garbage
  // of the one before, nor for writing back the megabytes an unsynced run before it left dirty (the
  // kernel throttles a writer while it flushes them: the CPU floor took 107 ms in one run, 199 in the next).
  const collect = () => {
    spawnSync("sync");
    (globalThis as { gc?: () => void }).gc?.();
  };
  const times = {
    disk: [] as number[],
    pipelined: [] as number[],
    cpu: [] as number[],
    durable: [] as number[],
  };
  const variantTimes = APPEND_VARIANTS.map(() => [] as number[]);
  for (let round = 0; round < APPEND_ROUNDS; round++) {
    // The disk itself: the same bytes, one write + fdatasync per batch.
    const fd = openSync(join(home, `raw-${round}.bin`), "a");
    collect();
    let start = performance.now();
    for (let index = 0; index < batches; index++) {
      writeSync(fd, bytes);
      fdatasyncSync(fd);
    }
    times.disk.push(performance.now() - start);
    closeSync(fd);
    collect();
    times.pipelined.push(await pipelinedDisk(join(home, `raw-pipelined-${round}.bin`), bytes, batches, 64));
    const jsonFd = openSync(join(home, `raw-${round}.jsonl`), "a");
    const jsonBatches = makeBatches();
    collect();
    start = performance.now();
    for (const batch of jsonBatches) {
      let text = "";
      for (const entry of batch) text += `${JSON.stringify(entry)}\n`;
      writeSync(jsonFd, text);
    }
    times.cpu.push(performance.now() - start);
    closeSync(jsonFd);
    // What one save point at a time cannot avoid: encode the batch, write it, fdatasync, then the next.
    const durableFd = openSync(join(home, `raw-durable-${round}.jsonl`), "a");
    const durableBatches = makeBatches();
    collect();
    start = performance.now();
    for (const batch of durableBatches) {
      let text = "";
      for (const entry of batch) text += `${JSON.stringify(entry)}\n`;
      writeSync(durableFd, text);
      fdatasyncSync(durableFd);
    }
    times.durable.push(performance.now() - start);
    closeSync(durableFd);
    for (const [index, variant] of APPEND_VARIANTS.entries()) {
      const id = `append-${variant.durability}-${variant.inFlight}-${round}`;
      const store = await appendSession(home, variant.durability, id);
      const all = makeBatches();
      collect();
      start = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: variant.inFlight }, async () => {
          while (next < all.length) await store.appendEntries(id, all[next++]!);
        }),
      );
      variantTimes[index]!.push(performance.now() - start);
      await store.close();
    }
  }
  const perSecond = (elapsed: number) =>
    `${Math.round((batches * SAVE_POINT) / (elapsed / 1000)).toLocaleString("en-US")} entries/s`;
  const disk = median(times.disk);
  const floors = { disk, cpu: median(times.cpu) };
  const floorRow = (label: string, elapsed: number) =>
    `  ${label.padEnd(54)} ${ms(elapsed).padStart(10)}   ${perSecond(elapsed).padStart(18)}`;
  lines.push(
    "",
    `durable append: ${batches} batches of ${SAVE_POINT} entries (~${(payload / 1024).toFixed(0)} KB per batch); ` +
      `median of ${APPEND_ROUNDS} interleaved rounds; ratio = the floor's time / the row's (1.00x = as fast as the floor)`,
    floorRow("disk floor: write + fdatasync per batch, no store", disk),
    floorRow("disk floor, 64 in flight sharing each fdatasync, no store", median(times.pipelined)),
    floorRow("CPU floor: JSON.stringify + one write per batch", floors.cpu),
    floorRow("serial floor: stringify + write + fdatasync per batch", median(times.durable)),
  );
  // The store's own CPU path, for what durability adds to it when appends are in flight together.
  const flushIndex = APPEND_VARIANTS.findIndex((variant) => variant.durability === "flush");
  const flushElapsed = median(variantTimes[flushIndex]!);
  for (const [index, variant] of APPEND_VARIANTS.entries()) {
    const elapsed = median(variantTimes[index]!);
    const value = floors[variant.floor] / elapsed;
    const against = variant.floor === "disk" ? "the disk floor" : "the CPU floor";
    const goal =
      variant.goal === undefined
        ? ""
        : `   goal ≥ ${variant.goal.toFixed(1)}x: ${value >= variant.goal ? "met" : "NOT met"}`;
    const serial =
      variant.inFlight === 1 && variant.durability === "fsync"
        ? ` (${(median(times.durable) / elapsed).toFixed(2)}x the serial floor)`
        : variant.inFlight > 1 && variant.durability === "fsync"
          ? ` (${(flushElapsed / elapsed).toFixed(2)}x the store's "flush" row)`
          : "";
    lines.push(`${floorRow(variant.label, elapsed)}   ${value.toFixed(2)}x ${against}${goal}${serial}`);
  }
  const interleaved: number[] = [];
  for (let round = 0; round < APPEND_ROUNDS; round++) {
    const source = linearEntries(batches * 2 * SAVE_POINT);
    const all = Array.from({ length: batches * 2 }, () =>
      Array.from({ length: SAVE_POINT }, () => source.next().value as SessionEntry),
    );
    collect();
    interleaved.push(await interleavedCpuPath(join(home, `interleaved-${round}`), all));
  }
  lines.push(
    `  ${`"flush", one at a time, taking turns with the CPU floor every ${INTERLEAVE} batches`.padEnd(54)} ` +
      `${median(interleaved).toFixed(2).padStart(10)}x the CPU floor (median of ${APPEND_ROUNDS} rounds of ${batches * 2} batches: the store's own cost, drift cancelled)`,
  );
}

/** A store over `home` with an empty session `id` to append to. */
async function appendSession(
  home: string,
  durability: "fsync" | "flush",
  id: string,
): Promise<JsonlSessionStore> {
  const store = new JsonlSessionStore({ home, durability });
  await store.createSession({
    type: "session",
    version: 3,
    id,
    timestamp: timestamp(),
    cwd: "/bench/append",
  });
  return store;
}

/** Batches per turn in {@link interleavedCpuPath}: short enough that the machine's drift hits both alike. */
const INTERLEAVE = 5;

/**
 * The store's CPU path against the CPU floor, measured finely: `"flush"` appends one batch at a time and
 * the floor (stringify + one write per batch) take turns every {@link INTERLEAVE} batches, over the same
 * batches, so a slower moment of a shared machine costs both the same. Returns the floor's total time
 * divided by the store's.
 */
async function interleavedCpuPath(home: string, all: readonly SessionEntry[][]): Promise<number> {
  const id = "append-interleaved";
  const store = await appendSession(home, "flush", id);
  const fd = openSync(join(home, "raw-interleaved.jsonl"), "a");
  let storeMs = 0;
  let floorMs = 0;
  for (let index = 0; index < all.length; index += INTERLEAVE) {
    const turn = all.slice(index, index + INTERLEAVE);
    const storeFirst = (index / INTERLEAVE) % 2 === 0;
    for (const side of storeFirst ? ["store", "floor"] : ["floor", "store"]) {
      const start = performance.now();
      if (side === "store") {
        for (const batch of turn) await store.appendEntries(id, batch);
        storeMs += performance.now() - start;
      } else {
        for (const batch of turn) {
          let text = "";
          for (const entry of batch) text += `${JSON.stringify(entry)}\n`;
          writeSync(fd, text);
        }
        floorMs += performance.now() - start;
      }
    }
  }
  closeSync(fd);
  await store.close();
  return floorMs / storeMs;
}

/**
 * The disk's durable throughput with group commit and no store: `inFlight` writers each write a batch and
 * wait for a sync that started after their write; one fdatasync runs at a time. Returns milliseconds.
 */
async function pipelinedDisk(
  path: string,
  bytes: Buffer,
  batches: number,
  inFlight: number,
): Promise<number> {
  const fd = openSync(path, "a");
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const startSync = (): Promise<void> => {
    const run = new Promise<void>((resolve, reject) =>
      fdatasync(fd, (error) => (error ? reject(error) : resolve())),
    ).finally(() => {
      if (running === run) running = undefined;
    });
    running = run;
    return run;
  };
  const sync = (): Promise<void> => {
    if (queued !== undefined) return queued;
    if (running === undefined) return startSync();
    queued = running.then(() => {
      queued = undefined;
      return startSync();
    });
    return queued;
  };
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < batches) {
        next++;
        writeSync(fd, bytes);
        await sync();
      }
    }),
  );
  const elapsed = performance.now() - start;
  closeSync(fd);
  return elapsed;
}

/** Runs the listing child over `home`; returns what it measured. */
function listingRun(home: string, mode: "arbor" | "pi-written"): Record<string, number> {
  const child = spawnSync(
    process.execPath,
    ["--conditions=@arbor/source", "--import", "tsx", import.meta.filename],
    { env: { ...process.env, ARBOR_BENCH_LIST_HOME: home, ARBOR_BENCH_LIST_MODE: mode }, encoding: "utf8" },
  );
  if (child.status !== 0) throw new Error(`listing child failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1)!) as Record<string, number>;
}

async function listingBench(home: string, lines: string[]): Promise<void> {
  const files = Number(process.env.ARBOR_BENCH_LIST_FILES ?? 2_000);
  const store = new JsonlSessionStore({ home, durability: "flush" });
  const template = readFileSync(await writeSession(store, "template", linearEntries(500)));
  await store.deleteSession("template");
  await store.close();
  const body = template.subarray(template.indexOf(10) + 1);
  // The same entries as the pi agent writes them: no batch marks, no trailers.
  const piBody = Buffer.from(
    body
      .toString("utf8")
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith('{"type":"session"'))
      .map((line) => line.replace(/\t$/, ""))
      .join("\n")
      .concat("\n"),
  );
  const paths: { path: string; header: Buffer }[] = [];
  for (let index = 0; index < files; index++) {
    const id = `listed-${String(index).padStart(4, "0")}`;
    const created = new Date(Date.parse("2026-02-01T00:00:00.000Z") + index * 60_000).toISOString();
    const cwd = `/bench/project-${index % 20}`;
    const directory = join(home, "sessions", `--bench-project-${index % 20}--`);
    mkdirSync(directory, { recursive: true });
    const header = Buffer.from(
      `${JSON.stringify({ type: "session", version: 3, id, timestamp: created, cwd })}\n`,
    );
    const path = join(directory, `${created.replace(/[:.]/g, "-")}_${id}.jsonl`);
    writeFileSync(path, Buffer.concat([header, body]));
    paths.push({ path, header });
  }
  const mb = (value: number) => `${(value / 1048576).toFixed(0)} MB`;
  const report = (title: string, result: Record<string, number>) =>
    lines.push(
      "",
      title,
      `  ${"first page (limit 100), cold store, no listing index".padEnd(54)} ${ms(result.firstPageMs!).padStart(10)}`,
      `  ${"all pages (limit 50), same store".padEnd(54)} ${ms(result.allPagesMs!).padStart(10)}`,
      `  ${"one cwd (100 files), cold store".padEnd(54)} ${ms(result.oneCwdMs!).padStart(10)}`,
      `  ${"first page again, new process (listing index on disk)".padEnd(54)} ${ms(result.secondProcessMs!).padStart(10)}`,
      `  ${"floor: readdir + stat of every file".padEnd(54)} ${ms(result.statFloorMs!).padStart(10)}   (first page cold ${(result.firstPageMs! / result.statFloorMs!).toFixed(1)}x, again ${(result.secondProcessMs! / result.statFloorMs!).toFixed(1)}x)`,
      `  RSS: ${mb(result.rssBefore!)} after start-up, peak ${mb(result.maxRss!)} (peak − start-up: ${mb(result.maxRss! - result.rssBefore!)})`,
      `  goal: first page cold < 1 s: ${ms(result.firstPageMs!)}, ${result.firstPageMs! < 1000 ? "met" : "NOT met"}; ` +
        `memory (peak − start-up) < 150 MB: ${mb(result.maxRss! - result.rssBefore!)}, ${result.maxRss! - result.rssBefore! < 150 * 1048576 ? "met" : "NOT met"}`,
    );
  const run = (mode: "arbor" | "pi-written") => {
    rmSync(join(home, "sessions", ".listing-index.json"), { force: true });
    const result = listingRun(home, mode);
    result.secondProcessMs = listingRun(home, mode).firstPageMs!;
    return result;
  };
  report(
    `listSessions over ${files} Arbor-written files of ${(template.length / 1048576).toFixed(2)} MB (${mb(files * template.length)} in all), child process`,
    run("arbor"),
  );
  for (const { path, header } of paths) writeFileSync(path, Buffer.concat([header, piBody]));
  report(
    `the same ${files} sessions as the pi agent writes them (no trailers), child process`,
    run("pi-written"),
  );
}

/** In the listing child: list, measure, print one JSON line. */
async function listingChild(home: string): Promise<void> {
  const rssBefore = process.memoryUsage().rss;
  let start = performance.now();
  const first = await new JsonlSessionStore({ home }).listSessions({ limit: 100 });
  const firstPageMs = performance.now() - start;
  if (first.sessions.length !== 100) throw new Error("listing returned a short page");
  start = performance.now();
  const store = new JsonlSessionStore({ home });
  let cursor: string | undefined;
  let seen = 0;
  do {
    const page = await store.listSessions({ limit: 50, cursor });
    seen += page.sessions.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const allPagesMs = performance.now() - start;
  start = performance.now();
  await new JsonlSessionStore({ home }).listSessions({ cwd: "/bench/project-7" });
  const oneCwdMs = performance.now() - start;
  const rssAfter = process.memoryUsage().rss;
  const maxRss = process.resourceUsage().maxRSS * 1024;
  // The floor of a listing that reads nothing: readdir of every directory and a stat of every file.
  start = performance.now();
  for (const directory of readdirSync(join(home, "sessions"))) {
    if (!directory.startsWith("--")) continue;
    for (const file of readdirSync(join(home, "sessions", directory)))
      statSync(join(home, "sessions", directory, file));
  }
  const statFloorMs = performance.now() - start;
  console.log(
    JSON.stringify({ firstPageMs, allPagesMs, oneCwdMs, rssBefore, rssAfter, maxRss, seen, statFloorMs }),
  );
}

async function runSessionStoreJsonlBench(): Promise<string[]> {
  const lines: string[] = [];
  const home = mkdtempSync(join(tmpdir(), "arbor-bench-jsonl-"));
  try {
    if (part("open")) await openBench(home, lines);
    if (part("append")) await appendBench(home, lines);
    rmSync(join(home, "sessions"), { recursive: true, force: true });
    if (part("list")) await listingBench(home, lines);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  return lines;
}

const listHome = process.env.ARBOR_BENCH_LIST_HOME;
if (listHome !== undefined && process.argv[1] === import.meta.filename) await listingChild(listHome);

const bench: Bench = { name: "session-store-jsonl: open, append, list", run: runSessionStoreJsonlBench };
export default bench;
