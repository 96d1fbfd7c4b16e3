/**
 * Where extensions come from and how they are loaded: every `.ts`, `.mts`, `.js` and `.mjs` file (or a
 * directory with an `index.*`) in `<home>/extensions/` and `<cwd>/.arbor/extensions/`, then each
 * `--extension <path>`, loaded with jiti (TypeScript without a build step), their default export run.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import type { Jiti } from "jiti";
import type { ExtensionFactory } from "./extension-api.js";
import { loadExtensionModules } from "./extension-modules.js";

/** Where an extension file was found. */
export type ExtensionOrigin = "global" | "project" | "flag";

/** An extension file to load. */
export interface ExtensionSource {
  path: string;
  origin: ExtensionOrigin;
}

const EXTENSIONS = new Set([".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"]);

function entryOf(path: string): string | undefined {
  try {
    const stats = statSync(path);
    if (stats.isFile()) return EXTENSIONS.has(extname(path)) ? path : undefined;
    if (stats.isDirectory()) {
      for (const name of ["index.ts", "index.mts", "index.js", "index.mjs"]) {
        if (existsSync(join(path, name))) return join(path, name);
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}

function filesIn(directory: string): string[] {
  let names: string[];
  try {
    names = readdirSync(directory).sort();
  } catch {
    return [];
  }
  return names
    .filter((name) => !name.startsWith(".") && !name.endsWith(".d.ts"))
    .map((name) => entryOf(join(directory, name)))
    .filter((path): path is string => path !== undefined);
}

/**
 * The extension files of a home and a working directory, then the given paths (relative to `cwd`).
 *
 * Contract: reads directories only; a missing directory is empty; a path given twice is loaded once. A
 * given path that does not exist is returned as it is (its load then fails and is reported).
 */
export function discoverExtensions(options: {
  home: string;
  cwd: string;
  paths?: readonly string[];
}): ExtensionSource[] {
  const sources: ExtensionSource[] = [
    ...filesIn(join(options.home, "extensions")).map((path) => ({ path, origin: "global" as const })),
    ...filesIn(join(options.cwd, ".arbor", "extensions")).map((path) => ({
      path,
      origin: "project" as const,
    })),
    ...(options.paths ?? []).map((given) => {
      const path = resolve(options.cwd, given);
      return { path: entryOf(path) ?? path, origin: "flag" as const };
    }),
  ];
  const seen = new Set<string>();
  return sources.filter((source) => {
    if (seen.has(source.path)) return false;
    seen.add(source.path);
    return true;
  });
}

/** jiti, loaded with the first extension (a run without extensions never loads it). */
let jiti: Jiti | undefined;

/**
 * Loads jiti (once), with the packages an extension may import from the runtime (extension-modules.ts).
 *
 * Contract: idempotent; rejects only when jiti itself cannot be loaded.
 */
export async function prepareExtensionImports(): Promise<void> {
  if (jiti !== undefined) return;
  const [{ createJiti }, virtualModules] = await Promise.all([import("jiti"), loadExtensionModules()]);
  jiti ??= createJiti(import.meta.url, { interopDefault: true, moduleCache: false, virtualModules });
}

function factoryOf(loaded: unknown): ExtensionFactory {
  const candidate =
    typeof loaded === "object" && loaded !== null && "default" in loaded
      ? (loaded as { default: unknown }).default
      : loaded;
  if (typeof candidate !== "function") {
    throw new Error("its default export is not a function: export default (arbor: ExtensionApi) => { … }");
  }
  return candidate as ExtensionFactory;
}

/** An extension file read and compiled, ready to be evaluated. */
export interface CompiledExtension {
  path: string;
  source: string;
}

/**
 * Reads an extension file and compiles it with jiti (TypeScript, ESM, JSX) — jiti's own work, which the
 * first time loads its compiler (about half a second) and then is cached on disk — so that
 * {@link evaluateExtension} only runs the extension's code.
 *
 * Contract: rejects when the file cannot be read or does not compile.
 */
export async function compileExtension(path: string): Promise<CompiledExtension> {
  if (!existsSync(path)) throw new Error("no such file");
  await prepareExtensionImports();
  const source = readFileSync(path, "utf8");
  const ts = /\.[cm]?tsx?$/.test(path);
  jiti!.transform({ source, filename: path, ts, async: true });
  return { path, source };
}

/**
 * Evaluates a compiled extension and returns its default export. Its top level runs before this returns
 * (up to its first top-level `await`): jiti evaluates every kind of file itself (`.mjs` and ESM `.js` too,
 * which it would otherwise hand to Node's loader, whose evaluation comes later).
 *
 * Contract: rejects when the file throws while it is evaluated, or its default export is not a function
 * (the message says what to export).
 */
export function evaluateExtension(compiled: CompiledExtension): Promise<ExtensionFactory> {
  try {
    if (jiti === undefined) throw new Error("compileExtension() first");
    const evaluated = jiti.evalModule(compiled.source, {
      filename: compiled.path,
      async: true,
      forceTranspile: true,
    });
    return Promise.resolve(evaluated).then(factoryOf);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Imports an extension file and returns its default export ({@link compileExtension}, then
 * {@link evaluateExtension}).
 *
 * Contract: rejects when the file cannot be read or compiled, throws while it is evaluated, or its default
 * export is not a function.
 */
export async function importExtension(path: string): Promise<ExtensionFactory> {
  return evaluateExtension(await compileExtension(path));
}
