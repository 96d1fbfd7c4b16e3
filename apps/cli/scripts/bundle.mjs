/**
 * Bundles the `arbor` executable, after `tsc -b` (a type check):
 *
 * - `dist/arbor-main.cjs`: `src/main-bundle.ts` (`main` and everything it loads on demand) as one CommonJS
 *   file, which `dist/arbor.js` compiles through a V8 code cache (src/compile-cache.ts): a start after the
 *   first skips parsing and compiling it. Lazy `import()`s stay lazy: esbuild wraps each module so that its
 *   code runs when it is first imported.
 * - `dist/arbor.js`: `src/bin.ts`, the bin: `--version`, then the bundle above, with its content hash.
 *
 * Why a bundle: a cold `arbor -p …` spent ~300 ms resolving and loading some 600 module files (TypeBox
 * alone ~250); why CommonJS: Node 20 caches no compiled ES modules, and `vm.Script` takes a code cache.
 * See docs/decisions/0004-bundled-cli.md and 0009-compile-cache.md. The interactive UI's libraries (ink,
 * React) stay external and load only in interactive mode; ink and ink-spinner are ES modules that `require`
 * cannot load (a top-level await), so the bundle reads them from what the bin imported (src/esm-externals.ts).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const here = new URL("..", import.meta.url).pathname;
const ESM_EXTERNALS_MODULE = join(here, "src/esm-externals.ts");
/** Must match ESM_EXTERNALS in src/esm-externals.ts. */
const ESM_EXTERNALS = ["ink", "ink-spinner"];
/**
 * The one `import()` of another module the bundle may keep: pkce-challenge (under the MCP SDK's OAuth)
 * imports node:crypto only where `globalThis.crypto` is missing, which it never is on Node ≥ 20.
 */
const ALLOWED_DYNAMIC_IMPORTS = new Set(["node:crypto"]);

// Chunk names of earlier builds carried content hashes: remove every previous output.
for (const file of readdirSync(join(here, "dist"))) {
  if (file.startsWith("arbor")) rmSync(join(here, "dist", file));
}

/** Stand-ins for the ES-module-only packages: their exports, read from what the bin imported. */
const esmExternals = {
  name: "esm-externals",
  setup(builder) {
    const pattern = new RegExp(`^(${ESM_EXTERNALS.join("|")})$`);
    builder.onResolve({ filter: pattern }, (args) => ({ path: args.path, namespace: "esm-external" }));
    builder.onLoad({ filter: /.*/, namespace: "esm-external" }, async (args) => {
      const names = Object.keys(await import(args.path)).filter((name) => name !== "default");
      const lines = [
        `import { esmExternal } from ${JSON.stringify(ESM_EXTERNALS_MODULE)};`,
        `const namespace = esmExternal(${JSON.stringify(args.path)});`,
        "export default namespace.default;",
        ...names.map((name) => `export const ${name} = namespace.${name};`),
      ];
      return { contents: lines.join("\n"), loader: "js", resolveDir: here };
    });
  },
};

/** The packages `require` loads at run time (CommonJS, or ES modules without a top-level await). */
const REQUIRED_EXTERNALS = [
  "react",
  "react/jsx-runtime",
  "react-devtools-core",
  "yoga-layout",
  "better-sqlite3",
  "pg",
  "pg-native",
  "jiti",
  "undici",
];

/** `import()` of an external package becomes a `require` of it (code compiled through vm.Script has no `import()`). */
const requiredExternals = {
  name: "required-externals",
  setup(builder) {
    const pattern = new RegExp(`^(${REQUIRED_EXTERNALS.map((name) => name.replace("/", "\\/")).join("|")})$`);
    builder.onResolve({ filter: pattern }, (args) =>
      args.kind === "dynamic-import" ? { path: args.path, namespace: "required-external" } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "required-external" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: "js",
      resolveDir: here,
    }));
  },
};

/**
 * The commit built from, for `arbor --version` of a bundle outside a clone (src/version-line.ts; in a clone
 * it reads the checkout's HEAD at run time); "" outside a git checkout.
 */
function gitCommit() {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: here, encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}

const common = {
  absWorkingDir: here,
  bundle: true,
  platform: "node",
  target: "node20",
  // Sibling packages are bundled from their TypeScript sources, so the bundle does not depend on their dist.
  conditions: ["@arbor/source"],
  // Every start reads the whole bundle into a string (even when its code comes from the cache), and on
  // this project's machines each fresh megabyte costs milliseconds: identifiers are minified too (2.8 → 1.8
  // MB). Stack traces then name minified functions; user errors never show one (docs/decisions/0009).
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  define: { ARBOR_BUILD_COMMIT: JSON.stringify(gitCommit()) },
};

const main = await build({
  ...common,
  entryPoints: { "arbor-main": "src/main-bundle.ts" },
  outdir: "dist",
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  // External: the interactive UI's libraries; the database drivers (better-sqlite3 loads a native addon
  // relative to its own files; both load only for `--store sqlite:` / `postgres://`); jiti, which loads
  // extensions and needs a real `import()` (code compiled through vm.Script has none); undici, which loads
  // only behind a proxy (HTTPS_PROXY) and would otherwise add its size to every start.
  external: REQUIRED_EXTERNALS,
  plugins: [esmExternals, requiredExternals],
  // Modules that resolve from their own file (jiti, the demo's assets) do so from dist/arbor-main.cjs.
  define: { ...common.define, "import.meta.url": "__arborImportMetaUrl" },
  banner: { js: 'var __arborImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  metafile: true,
});
for (const [file, output] of Object.entries(main.metafile.outputs)) {
  const imports = output.imports.filter(
    (entry) => entry.kind === "dynamic-import" && !ALLOWED_DYNAMIC_IMPORTS.has(entry.path),
  );
  if (imports.length > 0)
    throw new Error(
      `${file} keeps import() of ${imports.map((entry) => entry.path).join(", ")}: code compiled through vm.Script cannot import(); mark the package for src/esm-externals.ts or bundle it`,
    );
}

// The bin reads the bundle as Latin-1 (a plain copy, no UTF-8 decoding): it must be ASCII. esbuild escapes
// strings; what it leaves (a regular expression's literal "…") is escaped here, which means the same.
const mainFile = join(here, "dist/arbor-main.cjs");
const text = readFileSync(mainFile, "utf8");
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is everything outside ASCII
const nonAscii = /[^\x00-\x7f]/g;
if (nonAscii.test(text)) {
  const escaped = text.replace(nonAscii, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
  writeFileSync(mainFile, escaped);
}

const hash = createHash("sha256")
  .update(readFileSync(join(here, "dist/arbor-main.cjs")))
  .digest("hex")
  .slice(0, 16);
await build({
  ...common,
  entryPoints: { arbor: "src/bin.ts" },
  outdir: "dist",
  format: "esm",
  external: ESM_EXTERNALS,
  define: { ...common.define, ARBOR_MAIN_BUNDLE_HASH: JSON.stringify(hash) },
});
