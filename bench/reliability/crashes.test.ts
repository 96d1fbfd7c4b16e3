/**
 * Crashes: `arbor` (print and json mode, and rpc) runs a tool loop against a slowed strict server and is
 * killed with SIGKILL at a random moment; some files then get a half-written batch appended. After each
 * kill: the session opens (library and CLI), every entry a `save_point` reported is there, a torn tail
 * is reported and kept aside in `.torn`, the context has no orphan tool call or result, and
 * `arbor -r <id> -p …` continues it with a request the strict server accepts.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { jsonlFileOf, libraryStore, reopen } from "./stored.js";
import {
  type Box,
  CONCURRENCY,
  finished,
  inParallel,
  limiter,
  postgresRequiredInCi,
  record,
  runArbor,
  STACK_TRACE,
  type StoreUnderTest,
  type StrictServer,
  sandbox,
  savedIds,
  seeded,
  serverFlags,
  startArbor,
  startStrictServer,
  storesUnderTest,
  trials,
} from "./support.js";

/** One gate for the file: the stores' kills run together, at most {@link CONCURRENCY} at once. */
const gate = limiter(CONCURRENCY);

/** The half-written batches a trial may append after the kill. */
const TEARS = [
  undefined,
  // A batch line (tab-marked) without its trailer.
  '{"type":"message","id":"tornbatch","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"x","timestamp":1}}\t\n',
  // A line cut mid-write.
  '{"type":"message","id":"tornline","parentId":null,"timest',
] as const;

interface Trial {
  seed: number;
  store: StoreUnderTest;
}

/** What a store's kills exercised, so a run that never saved or tore anything does not pass. */
interface Exercised {
  saved: number;
  torn: number;
  resumed: number;
}

/**
 * One kill, with its own servers (so what a request carried is this trial's): returns the problems found
 * (none: nothing lost).
 */
async function crashOnce(box: Box, trial: Trial, exercised: Exercised): Promise<string[]> {
  const loop = await startStrictServer({ toolRounds: 10_000, frameDelayMs: 8 });
  const answer = await startStrictServer({ answer: "Continued." });
  try {
    return await killAndCheck(box, trial, exercised, loop, answer);
  } finally {
    await loop.close();
    await answer.close();
  }
}

async function killAndCheck(
  box: Box,
  trial: Trial,
  exercised: Exercised,
  loop: StrictServer,
  answer: StrictServer,
): Promise<string[]> {
  const random = seeded(trial.seed);
  const id = `crash-${trial.store.name}-${trial.seed}-${process.pid}`;
  const mode = ["json", "print", "rpc"][trial.seed % 3] as "json" | "print" | "rpc";
  const storeFlags = trial.store.flags(box);
  const args =
    mode === "rpc"
      ? ["--mode", "rpc", "--session", id, ...storeFlags, ...serverFlags(loop)]
      : [
          "-p",
          "run the steps",
          ...(mode === "json" ? ["--mode", "json"] : []),
          "--session",
          id,
          ...storeFlags,
          ...serverFlags(loop),
        ];
  const child = startArbor(box, args, { keepStdin: mode === "rpc" });
  if (mode === "rpc")
    child.stdin.write(`${JSON.stringify({ type: "prompt", id: "1", text: "run the steps" })}\n`);
  const done = finished(child, 60_000);
  // One kill in five lands at start-up (creating the session); the others during the tool loop, at a
  // random moment within 1.5 s of the first model request (a round takes about 0.1–0.2 s).
  const early = random() < 0.2;
  if (!early) {
    const waitUntil = Date.now() + 30_000;
    while (loop.requests.length === 0 && child.exitCode === null && Date.now() < waitUntil)
      await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * (early ? 1000 : 1500))));
  child.kill("SIGKILL");
  const run = await done;
  const saved = mode === "print" ? [] : savedIds(run.stdout);
  const problems: string[] = [];
  // Every mode meets every kind of tear (the mode is seed % 3).
  const tear = trial.store.name === "jsonl" ? TEARS[Math.floor(trial.seed / 3) % TEARS.length] : undefined;
  const file = trial.store.name === "jsonl" ? jsonlFileOf(box, id) : undefined;
  if (tear !== undefined && file !== undefined) appendFileSync(file, tear);
  exercised.saved += saved.length;
  if (tear !== undefined && file !== undefined) exercised.torn++;

  const found = await reopen(libraryStore(trial.store, box), id);
  if (found.error !== undefined) problems.push(`does not open: ${found.error}`);
  if (found.missing) {
    if (saved.length > 0) problems.push(`missing, though ${saved.length} entries were reported saved`);
    return problems;
  }
  const lost = saved.filter((entryId) => !found.entryIds.has(entryId));
  if (lost.length > 0) problems.push(`lost ${lost.length} saved entries: ${lost.join(", ")}`);
  problems.push(...found.orphans);
  if (tear !== undefined && file !== undefined) {
    if (!found.warnings.some((warning) => /torn|cut short/.test(warning)))
      problems.push(`the torn tail was not reported: ${JSON.stringify(found.warnings)}`);
    if (!existsSync(`${file}.torn`) || !readFileSync(`${file}.torn`, "utf8").includes(tear.slice(0, 20)))
      problems.push("the torn tail was not kept in .torn");
  }
  const show = await runArbor(box, ["sessions", ...storeFlags, "show", id]);
  if (show.code !== 0 || show.hung || STACK_TRACE.test(show.stderr))
    problems.push(
      `sessions show: exit ${show.code}${show.hung ? " (hung: no end within 60 s)" : ""}: ${show.stderr.slice(0, 300)}`,
    );
  const before = answer.violations.length;
  const resume = await runArbor(box, ["-r", id, "-p", "continue", ...storeFlags, ...serverFlags(answer)]);
  if (resume.code !== 0 || resume.stdout.trim() !== "Continued.")
    problems.push(
      `-r: exit ${resume.code}${resume.hung ? " (hung: no end within 60 s)" : ""}: ${resume.stderr.slice(0, 300)}`,
    );
  if (resume.code === 0) exercised.resumed++;
  if (answer.violations.length > before)
    problems.push(`-r sent an invalid request: ${answer.violations.slice(before).join("; ")}`);
  return problems;
}

describe("crashes: kill -9 at random moments", () => {
  const missingPostgres = postgresRequiredInCi();
  if (missingPostgres !== undefined) it("PostgreSQL", () => expect.fail(missingPostgres));

  for (const store of storesUnderTest()) {
    const count = store.name === "jsonl" ? trials(50, 200) : trials(10, 50);
    it.concurrent(`${store.name}: ${count} kills, nothing a save_point reported is lost`, async ({
      expect,
    }) => {
      const box = sandbox();
      const exercised: Exercised = { saved: 0, torn: 0, resumed: 0 };
      const seeds = Array.from({ length: count }, (_, index) => index + 1);
      const outcomes = await inParallel(seeds, gate, async (seed) => ({
        seed,
        problems: await crashOnce(box, { seed, store }, exercised),
      }));
      const failed = outcomes.filter((outcome) => outcome.problems.length > 0);
      record({
        category: "crashes",
        kind: `${store.name}: kill -9 at start-up or in a tool loop (print/json/rpc)${store.name === "jsonl" ? ", 2 in 3 with a torn tail" : ""}`,
        trials: count,
        failures: failed.length,
        lost:
          failed.length === 0 ? "nothing" : failed.map((f) => `seed ${f.seed}: ${f.problems[0]}`).join("; "),
      });
      expect(failed).toEqual([]);
      expect(exercised.saved).toBeGreaterThan(0);
      expect(exercised.resumed).toBeGreaterThan(count / 2);
      if (store.name === "jsonl") expect(exercised.torn).toBeGreaterThan(count / 3);
    });
  }
});
