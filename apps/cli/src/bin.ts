#!/usr/bin/env node
/**
 * The published `arbor` executable (`dist/arbor.js`): a few kilobytes that load `dist/arbor-main.cjs`, the
 * bundle of `main.ts`, through the compile cache (`compile-cache.ts`), and import the ES-module-only
 * packages for it. `scripts/bundle.mjs` builds both and defines `ARBOR_MAIN_BUNDLE_HASH`.
 * See docs/decisions/0009-compile-cache.md.
 */
import { fileURLToPath } from "node:url";
import { loadWithCompileCache } from "./compile-cache.js";
import type { EsmExternal, setEsmImporter } from "./esm-externals.js";
import { type MainModule, runArborProcess } from "./process-entry.js";

/** The content hash of `dist/arbor-main.cjs`, defined by the bundler. */
declare const ARBOR_MAIN_BUNDLE_HASH: string;

/** The ES-module-only packages, imported here (a real module) for the bundle, which cannot `import()`. */
const ESM_IMPORTS: Record<EsmExternal, () => Promise<unknown>> = {
  ink: () => import("ink"),
  "ink-spinner": () => import("ink-spinner"),
};

await runArborProcess(process.argv.slice(2), () => {
  const bundle = loadWithCompileCache(
    fileURLToPath(new URL("./arbor-main.cjs", import.meta.url)),
    ARBOR_MAIN_BUNDLE_HASH,
    process.env,
  );
  process.once("exit", () => bundle.save());
  const loaded = bundle.exports as MainModule & { setEsmImporter: typeof setEsmImporter };
  loaded.setEsmImporter((name) => ESM_IMPORTS[name]());
  return loaded;
});
