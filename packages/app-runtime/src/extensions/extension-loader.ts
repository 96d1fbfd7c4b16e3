/**
 * Where extensions come from and how they are loaded: every `.ts`, `.mts`, `.js` and `.mjs` file (or a
 * directory with an `index.*`) in `<home>/extensions/` and `<cwd>/.arbor/extensions/`, then each
 * `--extension <path>`, loaded with jiti (TypeScript without a build step), their default export run.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import type { Jiti } from "jiti";
import type { ExtensionFactory } from "./extension-api.js";

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
 * Imports an extension file and returns its default export.
 *
 * Contract: rejects when the file cannot be read or compiled, throws while it is evaluated, or its default
 * export is not a function (the message says what to export).
 */
export async function importExtension(path: string): Promise<ExtensionFactory> {
  if (!existsSync(path)) throw new Error("no such file");
  if (jiti === undefined) {
    const { createJiti } = await import("jiti");
    jiti = createJiti(import.meta.url, { interopDefault: true, moduleCache: false });
  }
  const loaded = await jiti.import<unknown>(path, { default: true });
  if (typeof loaded !== "function") {
    throw new Error("its default export is not a function: export default (arbor: ExtensionApi) => { … }");
  }
  return loaded as ExtensionFactory;
}
