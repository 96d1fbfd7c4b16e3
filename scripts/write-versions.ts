/**
 * `pnpm write-versions`: writes each package's `src/version.ts` from its package.json, so `VERSION` is a
 * constant of the source rather than a read of package.json at run time (a browser bundle, or the CLI's
 * one-file bundle, has no package.json beside each module).
 *
 * The packages written are those under `packages/*` and `apps/*` that have a `src/version.ts` (a new
 * package opts in by creating one and running this script). `pnpm version-packages` runs it after
 * `changeset version`; `pnpm check:packages` fails when a file differs from what this script would write.
 *
 * Usage: `tsx scripts/write-versions.ts [workspace-root]`. Prints the files it changed.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Where a package keeps its generated version, relative to the package directory. */
export const VERSION_FILE = "src/version.ts";

/** The text of a `src/version.ts` for a package at `version`. */
export function versionModule(version: string): string {
  return [
    "// Written by scripts/write-versions.ts from package.json (`pnpm write-versions`); do not edit.",
    "",
    "/** The package version (its package.json's, written into the source by `pnpm write-versions`). */",
    `export const VERSION: string = ${JSON.stringify(version)};`,
    "",
  ].join("\n");
}

/** One package's version file: where it is, what it holds and what it should hold. */
export interface VersionFile {
  /** The file's path relative to the workspace root. */
  path: string;
  /** Its current text. */
  actual: string;
  /** The text `pnpm write-versions` writes from the package's package.json. */
  expected: string;
}

/** Every package's `src/version.ts` under `root` (`packages/*`, `apps/*`), with the text it should hold. */
export function versionFiles(root: string): VersionFile[] {
  const files: VersionFile[] = [];
  for (const group of ["packages", "apps"]) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base).sort()) {
      const file = join(base, entry, VERSION_FILE);
      const manifest = join(base, entry, "package.json");
      if (!existsSync(file) || !existsSync(manifest)) continue;
      const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version?: string };
      files.push({
        path: relative(root, file),
        actual: readFileSync(file, "utf8"),
        expected: versionModule(version ?? "0.0.0"),
      });
    }
  }
  return files;
}

/** The problems `pnpm check:packages` reports: each version file that differs from its package.json. */
export function staleVersionFiles(root: string): string[] {
  return versionFiles(root)
    .filter((file) => file.actual !== file.expected)
    .map((file) => `${file.path}: differs from its package.json's version; run \`pnpm write-versions\``);
}

/** Rewrites every stale version file under `root`; returns the paths it changed. */
export function writeVersions(root: string): string[] {
  const changed: string[] = [];
  for (const file of versionFiles(root)) {
    if (file.actual === file.expected) continue;
    writeFileSync(join(root, file.path), file.expected);
    changed.push(file.path);
  }
  return changed;
}

function main(): void {
  const root = resolve(process.argv[2] ?? join(fileURLToPath(import.meta.url), "..", ".."));
  const changed = writeVersions(root);
  for (const path of changed) console.log(`wrote ${path}`);
  console.log(`write-versions: ${versionFiles(root).length} version files, ${changed.length} changed.`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
