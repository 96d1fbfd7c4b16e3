/**
 * `pnpm bench`: runs every benchmark and prints its report. Numbers are wall times on this machine;
 * compare ratios (to the baseline measured in the same run), not absolute times.
 */
import { runPartialJsonBench } from "./partial-json.js";

const benches: [string, () => string[]][] = [["partial-json: streaming tool arguments", runPartialJsonBench]];
const only = process.argv[2];

console.log(`node ${process.version}, ${new Date().toISOString()}\n`);
for (const [name, run] of benches) {
  if (only && !name.includes(only)) continue;
  console.log(`## ${name}`);
  for (const line of run()) console.log(line);
  console.log("");
}
