/**
 * Writes the independent reading of every recorded stream in `fixtures/streams/` into its folder's
 * `corpus.json` (the reading itself: packages/conformance/src/stream-corpus/read-recording.ts, which no
 * provider code touches). The providers' corpus tests check the providers against these readings.
 *
 * Usage (from the repository root), after adding a recording and its `vendor` and `source` to a folder's
 * `corpus.json`: `pnpm exec tsx scripts/read-stream-corpus.ts`; review the diff (`git diff fixtures/streams`)
 * before committing — a reading is data a person has checked. `--check` only says which readings would
 * change (exit 1 when any would).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  CORPUS_FOLDERS,
  type StreamReading,
} from "../packages/conformance/src/stream-corpus/read-recording.ts";

if (import.meta.filename === process.argv[1]) {
  const root = join(import.meta.dirname, "..", "fixtures", "streams");
  const check = process.argv.includes("--check");
  let changed = 0;
  for (const [folder, read] of Object.entries(CORPUS_FOLDERS)) {
    const manifestPath = join(root, folder, "corpus.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
      recordings: Record<string, { responses?: StreamReading[] } & Record<string, unknown>>;
    };
    for (const file of readdirSync(join(root, folder))) {
      if (file === "corpus.json") continue;
      const entry = manifest.recordings[file];
      if (entry === undefined)
        throw new Error(`${folder}/${file} has no entry (source, vendor) in corpus.json`);
      const responses = read(readFileSync(join(root, folder, file), "utf8"));
      if (JSON.stringify(entry.responses) !== JSON.stringify(responses)) {
        changed++;
        console.log(`${check ? "would change" : "read"}: ${folder}/${file} (${responses.length} responses)`);
      }
      entry.responses = responses;
    }
    if (!check) writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  }
  console.log(`${changed} readings ${check ? "differ" : "written"}`);
  if (check && changed > 0) process.exitCode = 1;
}
