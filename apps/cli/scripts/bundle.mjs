/**
 * Bundles the `arbor` executable into dist/arbor.js (+ chunks for what loads on demand), after `tsc -b`.
 *
 * Why: a cold `arbor -p …` spent ~300 ms resolving and loading some 600 module files (TypeBox alone
 * ~250). One bundle with code splitting keeps the lazy loading of main.ts (providers, the interactive
 * UI, the session commands each stay in their own chunk) and drops the per-file cost. The interactive
 * UI's libraries (ink, React) stay external: they load only in interactive mode. See
 * docs/decisions/0004-bundled-cli.md.
 */
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const here = new URL("..", import.meta.url).pathname;

// Chunk names carry content hashes: remove the previous bundle so stale chunks do not pile up.
for (const file of readdirSync(join(here, "dist"))) {
  if (file.startsWith("arbor")) rmSync(join(here, "dist", file));
}

await build({
  absWorkingDir: here,
  entryPoints: { arbor: "src/cli.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Sibling packages are bundled from their TypeScript sources, so the bundle does not depend on their dist.
  conditions: ["@arbor/source"],
  // The database drivers stay external too: better-sqlite3 loads a native addon relative to its own files,
  // and both load only when `--store sqlite:` / `postgres://` is used.
  external: [
    "ink",
    "ink-spinner",
    "react",
    "react/jsx-runtime",
    "react-devtools-core",
    "yoga-layout",
    "better-sqlite3",
    "pg",
    "pg-native",
  ],
  // Chunks sit next to arbor.js: modules find "../package.json" relative to their own file.
  chunkNames: "arbor-[name]-[hash]",
  // CommonJS dependencies inside an ES module bundle need `require`.
  banner: {
    js: 'import { createRequire as __arborCreateRequire } from "node:module"; const require = __arborCreateRequire(import.meta.url);',
  },
  // Less text to decode and parse on every start (~7% of a print answer's time): whitespace and syntax
  // are minified; identifiers are kept, so stack traces still name the functions.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  logLevel: "warning",
});
