/**
 * Concurrent writers: 2, 3 and 4 `arbor -p --session <id>` processes at once on one session, new and
 * existing. No corrupt line, no second session of one id, every process that exits 0 has its prompt
 * stored, every other one says once, without a stack trace, why its work was not stored.
 */

import { Session } from "@arbor/session-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonlFileOf, libraryStore, reopen } from "./stored.js";
import {
  type Box,
  filesUnder,
  postgresRequiredInCi,
  record,
  runArbor,
  STACK_TRACE,
  type StoreUnderTest,
  type StrictServer,
  sandbox,
  serverFlags,
  startStrictServer,
  storesUnderTest,
  trials,
} from "./support.js";

let server: StrictServer;
beforeAll(async () => {
  server = await startStrictServer({ frameDelayMs: 25, answer: "Stored answer from the server." });
});
afterAll(async () => {
  await server?.close();
});

/** A refusal at start (before anything of the run happened): another process holds or is creating the id. */
const REFUSAL = /^arbor: Session ".*" is open for writing by pid \d+/;

async function race(box: Box, store: StoreUnderTest, writers: number, existing: boolean, round: number) {
  const id = `race-${store.name}-${writers}-${existing ? "old" : "new"}-${round}-${process.pid}`;
  const flags = [...store.flags(box), ...serverFlags(server)];
  const problems: string[] = [];
  if (existing) {
    const first = await runArbor(box, ["-p", "the first prompt", "--session", id, ...flags]);
    if (first.code !== 0) problems.push(`set-up run failed: ${first.stderr}`);
  }
  const prompts = Array.from({ length: writers }, (_, index) => `prompt ${index} of ${id}`);
  const runs = await Promise.all(
    prompts.map((prompt) => runArbor(box, ["-p", prompt, "--session", id, ...flags])),
  );
  const stored = await reopen(libraryStore(store, box), id);
  if (stored.error !== undefined || stored.missing)
    problems.push(`does not open: ${stored.error ?? "missing"}`);
  if (stored.warnings.length > 0) problems.push(`damaged: ${stored.warnings.join("; ")}`);
  problems.push(...stored.orphans);
  const texts = await userTexts(store, box, id);
  for (const [index, run] of runs.entries()) {
    const prompt = prompts[index] as string;
    if (run.hung) problems.push(`writer ${index} hung`);
    if (STACK_TRACE.test(run.stderr)) problems.push(`writer ${index} printed a stack trace`);
    if (run.code === 0 && !texts.includes(prompt))
      problems.push(`writer ${index} exited 0 but its prompt is not stored`);
    if (run.code !== 0) {
      // One clear reason (naming the holder of a lock), said once, plus at most the "starting it" note.
      const lines = run.stderr
        .split("\n")
        .filter((line) => line.startsWith("arbor:") && !/yet; starting it/.test(line));
      const reasons =
        run.stderr.match(/open for writing by pid \d+|changed underneath|already exists/g) ?? [];
      // A writer may meet two refusals (the creator's lock at start, then a conflict): each said once.
      if (
        lines.length === 0 ||
        lines.length > 2 ||
        reasons.length === 0 ||
        new Set(lines).size !== lines.length
      )
        problems.push(`writer ${index} (exit ${run.code}) said ${JSON.stringify(lines)}`);
      if (!lines.some((line) => /^arbor: error: the session was not saved/.test(line) || REFUSAL.test(line)))
        problems.push(`writer ${index} (exit ${run.code}) did not say its work was not saved`);
    }
  }
  if (store.name === "jsonl") {
    const files = filesUnder(box.home).filter((file) => file.path.endsWith(`_${id}.jsonl`));
    if (files.length !== 1) problems.push(`${files.length} files hold session ${id}`);
    if (jsonlFileOf(box, id) === undefined) problems.push("no file");
  }
  const losers = runs.filter((run) => run.code !== 0).length;
  return { problems, losers };
}

/** The user prompts stored in a session (every branch). */
async function userTexts(store: StoreUnderTest, box: Box, id: string): Promise<string[]> {
  const library = libraryStore(store, box);
  try {
    const session = await Session.open(library, id);
    const texts: string[] = [];
    const visit = (nodes: ReturnType<Session["getTree"]>) => {
      for (const node of nodes) {
        const entry = node.entry();
        if (entry?.type === "message" && entry.message.role === "user") {
          const content = entry.message.content;
          texts.push(
            typeof content === "string"
              ? content
              : content.map((block) => ("text" in block ? block.text : "")).join(""),
          );
        }
        visit(node.children);
      }
    };
    visit(session.getTree());
    return texts;
  } catch {
    return [];
  } finally {
    await library.close?.();
  }
}

describe("concurrent writers on one session", () => {
  const missingPostgres = postgresRequiredInCi();
  if (missingPostgres !== undefined) it("PostgreSQL", () => expect.fail(missingPostgres));

  for (const store of storesUnderTest()) {
    // The stores race at the same time (each on its own session ids and home).
    it.concurrent(`${store.name}: 2, 3 and 4 processes, new and existing session`, async ({ expect }) => {
      const box = sandbox();
      const rounds = trials(1, 10);
      const failures: string[] = [];
      let trialsRun = 0;
      let losers = 0;
      for (let round = 0; round < rounds; round++) {
        for (const writers of [2, 3, 4]) {
          for (const existing of [false, true]) {
            const outcome = await race(box, store, writers, existing, round);
            trialsRun++;
            losers += outcome.losers;
            if (outcome.problems.length > 0)
              failures.push(
                `${writers} writers, ${existing ? "existing" : "new"}: ${outcome.problems.join("; ")}`,
              );
          }
        }
      }
      record({
        category: "concurrent writers",
        kind: `${store.name}: 2/3/4 processes, new and existing session (${losers} refused writers)`,
        trials: trialsRun,
        failures: failures.length,
        lost: failures.length === 0 ? "nothing" : failures.join(" | "),
      });
      expect(failures).toEqual([]);
      // The races were real: some writers lost and said so.
      expect(losers).toBeGreaterThan(0);
    });
  }
});
