/**
 * Writes `docs/protocol.schema.json` from the protocol's TypeBox command schemas (`protocolJsonSchema()` of
 * `@arbor/app-runtime`).
 *
 * Usage (from the repository root): `pnpm exec tsx --conditions=@arbor/source scripts/write-protocol-schema.ts`.
 * `packages/app-runtime/test/protocol-schema.test.ts` fails while the committed file differs.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { protocolJsonSchema } from "../packages/app-runtime/src/protocol/protocol-schema.ts";

const path = join(import.meta.dirname, "..", "docs", "protocol.schema.json");
writeFileSync(path, `${JSON.stringify(protocolJsonSchema(), null, 2)}\n`);
console.log(`wrote ${path}`);
