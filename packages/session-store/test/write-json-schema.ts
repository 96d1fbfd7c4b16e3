/**
 * Writes `docs/session-format.schema.json` from the TypeBox schemas (`sessionFormatJsonSchema()`).
 *
 * Usage (from the repository root):
 * `pnpm exec tsx --conditions=@arbor/source packages/session-store/test/write-json-schema.ts`
 * then `pnpm exec biome format --write docs/session-format.schema.json`.
 * `test/json-schema.test.ts` fails while the committed file differs from the schemas.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionFormatJsonSchema } from "../src/schema.js";

/** Where the generated schema lives. */
export const SCHEMA_PATH = join(import.meta.dirname, "../../../docs/session-format.schema.json");

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  writeFileSync(SCHEMA_PATH, `${JSON.stringify(sessionFormatJsonSchema(), null, 2)}\n`);
  console.log(`wrote ${SCHEMA_PATH}`);
}
