/**
 * @arbor/cli — `arbor`, the Arbor command line: wiring and rendering only, every capability comes from the
 * packages (the app layer from `@arbor/app-runtime`). The bin is `dist/arbor.js` (a bundle of `src/cli.ts`);
 * this entry point exposes the same pieces for programs that embed the CLI (tests, editors, wrappers).
 */
export { EXPORTERS, PROVIDER_FACTORIES, STORE_FACTORIES } from "./factories.js";
export { type CliInput, type CliIo, type CliOutput, processIo } from "./io.js";
export { main } from "./main.js";
export { VERSION } from "./version.js";
