/**
 * `pnpm bench:reliability`: the reliability suite at the bench's larger N (`RELIABILITY_SCALE=bench`:
 * 200 kills of the JSONL store, 50 of each database, 10 rounds of racing writers, 10,000 mutated files),
 * then one table per category: trials, failures, what was lost. `--ci` runs the CI-sized trials instead.
 * Exits 1 when any trial failed.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TrialRow } from "./support.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "arbor-reliability-report-"));
const report = join(scratch, "rows.jsonl");
const scale = process.argv.includes("--ci") ? "ci" : "bench";
const started = Date.now();
const vitest = spawnSync(
  "pnpm",
  ["exec", "vitest", "run", "--project", "reliability", ...process.argv.slice(2).filter((a) => a !== "--ci")],
  {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, RELIABILITY_SCALE: scale, RELIABILITY_REPORT: report },
  },
);
let rows: TrialRow[] = [];
try {
  rows = readFileSync(report, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TrialRow);
} catch {
  console.error("bench:reliability: the suite recorded no trials");
}
rmSync(scratch, { recursive: true, force: true });
const categories = [...new Set(rows.map((row) => row.category))];
for (const category of categories) {
  console.log(`\n### ${category}\n`);
  console.log("| kind | trials | failures | lost |");
  console.log("| --- | ---: | ---: | --- |");
  for (const row of rows.filter((item) => item.category === category)) {
    console.log(
      `| ${row.kind} | ${row.trials} | ${row.failures} | ${row.lost.replace(/\|/g, "\\|").slice(0, 300)} |`,
    );
  }
}
const failures = rows.reduce((sum, row) => sum + row.failures, 0);
console.log(
  `\n${scale} scale: ${rows.reduce((sum, row) => sum + row.trials, 0)} trials, ${failures} failures, ${Math.round((Date.now() - started) / 1000)} s`,
);
process.exit(vitest.status === 0 && failures === 0 && rows.length > 0 ? 0 : 1);
