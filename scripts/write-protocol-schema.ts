/**
 * Writes `docs/protocol.schema.json` from the protocol's TypeBox command schemas (`protocolJsonSchema()` of
 * `@arbor/app-runtime`).
 *
 * Usage (from the repository root): `pnpm exec tsx --conditions=@arbor/source scripts/write-protocol-schema.ts`.
 * `packages/app-runtime/test/protocol-schema.test.ts` fails while the committed file differs.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { protocolJsonSchema } from "../packages/app-runtime/src/protocol/protocol-schema.ts";

const path = join(import.meta.dirname, "..", "docs", "protocol.schema.json");
writeFileSync(path, `${JSON.stringify(protocolJsonSchema(), null, 2)}\n`);
// The repository's formatter has the last word, so `pnpm check` passes on the file as written.
execFileSync("pnpm", ["exec", "biome", "format", "--write", path], { stdio: "ignore" });
console.log(`wrote ${path}`);
