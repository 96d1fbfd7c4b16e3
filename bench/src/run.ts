/**
 * `pnpm bench [filter]`: runs every `src/*.bench.ts` (or those whose file name contains the filter) and
 * prints its report. Numbers are wall times on this machine; compare ratios to the baseline measured
 * in the same run, not absolute times.
 */
import { readdirSync } from "node:fs";
import { cpus } from "node:os";
import type { Bench } from "./bench.js";

const only = process.argv[2];
const files = readdirSync(import.meta.dirname)
  .filter((file) => file.endsWith(".bench.ts"))
  .sort();

console.log(`node ${process.version}, ${cpus().length} cores, ${new Date().toISOString()}\n`);
for (const file of files) {
  if (only && !file.includes(only)) continue;
  const bench = ((await import(`./${file}`)) as { default: Bench }).default;
  console.log(`## ${bench.name}`);
  for (const line of await bench.run()) console.log(line);
  console.log("");
}
