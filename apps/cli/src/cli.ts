#!/usr/bin/env node
/**
 * `arbor` run from source (`node --import tsx src/cli.ts`, as the tests do): `main.ts` imported as it is. The
 * published bin is `bin.ts`, which loads the bundle of the same `main.ts` through the compile cache.
 */
import { runArborProcess } from "./process-entry.js";

await runArborProcess(process.argv.slice(2), () => import("./main.js"));
