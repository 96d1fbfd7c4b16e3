/**
 * `pnpm check:packages`: checks every workspace package against the arrows of docs/architecture.md.
 *
 * A package fails when it
 * - depends on (package.json) or imports (source) a workspace package its arrows do not allow,
 *   imports a workspace package it does not declare, or reaches into another package by a relative path;
 * - lacks README.md, `"type": "module"`, an `exports` map whose conditions put `types` first and that
 *   exports `./package.json`, or (when published) a `files` list;
 * - has a source file over 800 lines;
 * - (`@arbor/app-runtime`, `@arbor/session-view`) exports more than 80 runtime names from its main entry
 *   (`src/index.ts`): the rest belongs behind a subpath export or inside the package;
 * - reads its package.json at run time (its `VERSION` comes from the generated `src/version.ts`), or has a
 *   `src/version.ts` that differs from what `scripts/write-versions.ts` writes from its package.json.
 *
 * Usage: `tsx scripts/check-packages.ts [workspace-root]`. Exits 1 and lists the problems on failure.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bareSourceConditions, checkPublished, EXTERNAL_REFERENCE } from "./check-publish.ts";
import { staleVersionFiles } from "./write-versions.ts";

/** Workspace packages each package may import (the arrows of docs/architecture.md). `*` allows anything. */
export const ARROWS: Record<string, readonly string[] | "*"> = {
  "@arbor/ai-providers": [],
  "@arbor/provider-anthropic": ["@arbor/ai-providers"],
  "@arbor/provider-openai": ["@arbor/ai-providers"],
  "@arbor/agent-core": ["@arbor/ai-providers"],
  "@arbor/session-store": ["@arbor/ai-providers"],
  "@arbor/session-store-jsonl": ["@arbor/session-store", "@arbor/ai-providers"],
  "@arbor/session-store-sqlite": ["@arbor/session-store", "@arbor/ai-providers"],
  "@arbor/session-store-postgres": ["@arbor/session-store", "@arbor/ai-providers"],
  "@arbor/compaction": ["@arbor/ai-providers", "@arbor/session-store"],
  "@arbor/harness": ["@arbor/ai-providers", "@arbor/agent-core", "@arbor/session-store", "@arbor/compaction"],
  "@arbor/coding-tools": ["@arbor/agent-core", "@arbor/ai-providers"],
  "@arbor/mcp": ["@arbor/ai-providers", "@arbor/agent-core"],
  "@arbor/app-runtime": [
    "@arbor/ai-providers",
    "@arbor/agent-core",
    "@arbor/session-store",
    "@arbor/compaction",
    "@arbor/harness",
    "@arbor/coding-tools",
    "@arbor/mcp",
    "@arbor/session-view",
  ],
  "@arbor/session-view": [
    "@arbor/ai-providers",
    "@arbor/session-store",
    "@arbor/compaction",
    "@arbor/harness",
  ],
  "@internal/conformance": ["@arbor/ai-providers", "@arbor/session-store"],
  "@arbor/cli": "*",
  "@arbor/demo": "*",
  "@internal/bench": "*",
  "@internal/examples": "*",
};

/** Workspace packages a package's tests (and devDependencies) may use besides its arrows. */
const TEST_ONLY = ["@internal/conformance"];

/**
 * Concrete implementations a package's tests may use to show it works with them (never its source):
 * the harness is tested end to end with the JSONL store; the PostgreSQL store's tests copy sessions
 * JSONL → SQLite → PostgreSQL → JSONL.
 */
const TEST_EXTRA: Record<string, readonly string[]> = {
  "@arbor/harness": ["@arbor/session-store-jsonl"],
  "@arbor/session-store-postgres": ["@arbor/session-store-jsonl", "@arbor/session-store-sqlite"],
  // app-runtime's tests wire the concrete packages an app passes as factories.
  "@arbor/app-runtime": ["@arbor/session-store-jsonl", "@arbor/provider-openai", "@arbor/provider-anthropic"],
};

/** Everything reachable through the arrows: what a package's tests may use (its dependencies' dependencies). */
function reachable(name: string): Set<string> {
  const seen = new Set<string>();
  const visit = (current: string) => {
    const arrows = ARROWS[current];
    if (!Array.isArray(arrows)) return;
    for (const next of arrows) {
      if (!seen.has(next)) {
        seen.add(next);
        visit(next);
      }
    }
  };
  visit(name);
  return seen;
}

const MAX_LINES = 800;
const SOURCE_EXTENSIONS = /\.(ts|tsx|mts|cts|js|mjs)$/;
/** A relative path to a package.json in a string: a source that reads its manifest at run time. */
const PACKAGE_JSON_READ = /["'`](?:\.\.?\/)+package\.json["'`]/;
const IMPORT_PATTERN =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The packages whose main entry (`src/index.ts`) may export at most {@link MAX_MAIN_ENTRY_NAMES} runtime names. */
export const LIMITED_MAIN_ENTRIES: readonly string[] = ["@arbor/app-runtime", "@arbor/session-view"];
/** The most runtime names the main entry of a {@link LIMITED_MAIN_ENTRIES} package may export. */
export const MAX_MAIN_ENTRY_NAMES = 80;

/**
 * The runtime names a module's explicit exports give (`export { a, b as c } from`, `export const`,
 * `export function`, `export class`, `export enum`, `export default`), in source order.
 *
 * Contract: type-only names (`type B` in braces, `export type { … }`, interfaces, type aliases) are not
 * counted; comments are stripped first; `export *` is not resolved (it counts as nothing), so an entry
 * that must stay countable lists its names.
 */
export function runtimeExportNames(source: string): string[] {
  const code = withoutComments(source);
  const names: string[] = [];
  for (const match of code.matchAll(/\bexport\s+(type\s+)?\{([^}]*)\}/g)) {
    if (match[1]) continue;
    for (const part of match[2]!.split(",")) {
      const item = part.trim();
      if (item === "" || /^type\s/.test(item)) continue;
      names.push(
        item
          .split(/\s+as\s+/)
          .pop()!
          .trim(),
      );
    }
  }
  const declaration =
    /\bexport\s+(?:declare\s+)?(?:(?:const\s+)?enum|const|let|var|(?:async\s+)?function\*?|(?:abstract\s+)?class)\s+([A-Za-z_$][\w$]*)/g;
  for (const match of code.matchAll(declaration)) names.push(match[1]!);
  if (/\bexport\s+default\b/.test(code)) names.push("default");
  return names;
}

/** The problem of a limited package whose main entry exports too many runtime names, if any. */
function checkMainEntrySize(pkg: WorkspacePackage, root: string): string | undefined {
  const entry = join(pkg.dir, "src", "index.ts");
  if (!LIMITED_MAIN_ENTRIES.includes(pkg.name) || !existsSync(entry)) return undefined;
  const count = runtimeExportNames(readFileSync(entry, "utf8")).length;
  if (count <= MAX_MAIN_ENTRY_NAMES) return undefined;
  return `${relative(root, entry)}: exports ${count} runtime names (limit ${MAX_MAIN_ENTRY_NAMES}); move names behind a subpath export ("exports" in package.json) or make them internal (import them from their module inside the package)`;
}

interface PackageJson {
  name?: string;
  private?: boolean;
  version?: string;
  bin?: unknown;
  type?: string;
  exports?: unknown;
  files?: unknown;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

interface WorkspacePackage {
  dir: string;
  json: PackageJson;
  name: string;
}

/** Finds the workspace's packages (`packages/*`, `apps/*`, `bench`, `examples`). */
export function findPackages(root: string): WorkspacePackage[] {
  const dirs: string[] = [];
  for (const group of ["packages", "apps"]) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base).sort()) dirs.push(join(base, entry));
  }
  dirs.push(join(root, "bench"), join(root, "examples"));
  return dirs
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => {
      const json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageJson;
      return { dir, json, name: json.name ?? relative(root, dir) };
    });
}

/** The workspace package a module specifier points at, or undefined for anything else. */
function workspaceTarget(specifier: string, names: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith("@")) return undefined;
  const [scope, name] = specifier.split("/");
  const candidate = `${scope}/${name}`;
  return names.has(candidate) ? candidate : undefined;
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry === "dist" || entry.startsWith(".")) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...listFiles(path));
    else if (SOURCE_EXTENSIONS.test(entry) && !entry.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** The code of a source file without its comments. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

/** True when a source file's code (not its comments) names a relative path to a package.json. */
export function readsPackageJson(source: string): boolean {
  return PACKAGE_JSON_READ.test(withoutComments(source));
}

/** The module specifiers a source file imports or re-exports (comments stripped first). */
export function importsOf(source: string): string[] {
  const code = withoutComments(source);
  const found: string[] = [];
  for (const match of code.matchAll(IMPORT_PATTERN)) {
    const specifier = match[1] ?? match[2];
    if (specifier) found.push(specifier);
  }
  return found;
}

function checkExports(pkg: WorkspacePackage, problems: string[]): void {
  const exportsField = pkg.json.exports;
  if (exportsField === undefined || typeof exportsField !== "object" || exportsField === null) {
    problems.push(`${pkg.name}: package.json has no "exports" map`);
    return;
  }
  const map = exportsField as Record<string, unknown>;
  if (!("./package.json" in map)) problems.push(`${pkg.name}: "exports" does not export "./package.json"`);
  for (const [subpath, target] of Object.entries(map)) {
    if (subpath === "./package.json" || typeof target !== "object" || target === null) continue;
    const conditions = Object.keys(target);
    if (conditions[0] !== "types") {
      problems.push(
        `${pkg.name}: exports["${subpath}"] must list "types" first (found ${conditions.join(", ")})`,
      );
    }
  }
}

/** Runs every check over the workspace at `root`; returns the problems found. */
export function checkPackages(root: string): string[] {
  const problems: string[] = [];
  const packages = findPackages(root);
  const names = new Set(packages.map((pkg) => pkg.name));
  const published = packages.filter((pkg) => !pkg.json.private);
  // The release version: the one most published packages have (they are released as one fixed group).
  const versions = published.map((pkg) => pkg.json.version ?? "");
  const version = versions.sort(
    (a, b) => versions.filter((v) => v === b).length - versions.filter((v) => v === a).length,
  )[0];
  for (const pkg of published)
    checkPublished({ ...pkg, json: { ...pkg.json } }, root, version ?? "", problems);
  for (const pkg of packages) problems.push(...bareSourceConditions(pkg.dir, root));
  for (const file of ["package.json", "vitest.shared.ts", "vitest.config.ts"]) {
    if (
      existsSync(join(root, file)) &&
      /--conditions[= ]source\b|"source", \.\.\.default/.test(readFileSync(join(root, file), "utf8"))
    ) {
      problems.push(`${file}: uses the bare "source" condition; use "@arbor/source"`);
    }
  }
  if (existsSync(join(root, "scripts"))) problems.push(...bareSourceConditions(join(root, "scripts"), root));
  problems.push(...staleVersionFiles(root));
  // Changeset texts become the CHANGELOG.md users read.
  const changesets = join(root, ".changeset");
  for (const file of existsSync(changesets)
    ? readdirSync(changesets).filter((name) => name.endsWith(".md"))
    : []) {
    const text = readFileSync(join(changesets, file), "utf8");
    if (EXTERNAL_REFERENCE.test(text)) {
      problems.push(
        `.changeset/${file}: points at the design seeds or DESIGN.md; describe the change itself`,
      );
    }
    // One fixed group: a major bump of any package would make every package 1.0.0.
    if (version?.startsWith("0.") && /^"[^"]+":\s*major\s*$/m.test(text)) {
      problems.push(`.changeset/${file}: a major bump before 1.0 releases every package as 1.0.0; use minor`);
    }
  }

  for (const pkg of packages) {
    const where = relative(root, pkg.dir) || ".";
    const arrows = ARROWS[pkg.name];
    if (arrows === undefined) {
      problems.push(
        `${pkg.name} (${where}): not in the arrows table of scripts/check-packages.ts (the arrows of docs/architecture.md)`,
      );
    }
    const forTests = reachable(pkg.name);
    const allowed = (target: string, testOnly: boolean) =>
      arrows === "*" ||
      target === pkg.name ||
      (arrows?.includes(target) ?? false) ||
      (testOnly &&
        (TEST_ONLY.includes(target) ||
          forTests.has(target) ||
          (TEST_EXTRA[pkg.name]?.includes(target) ?? false)));

    if (!existsSync(join(pkg.dir, "README.md"))) problems.push(`${pkg.name}: missing README.md`);
    if (pkg.json.type !== "module") problems.push(`${pkg.name}: package.json must say "type": "module"`);
    checkExports(pkg, problems);
    const entrySize = checkMainEntrySize(pkg, root);
    if (entrySize) problems.push(entrySize);
    if (!pkg.json.private && !Array.isArray(pkg.json.files))
      problems.push(`${pkg.name}: package.json has no "files" list`);

    const runtime = {
      ...pkg.json.dependencies,
      ...pkg.json.peerDependencies,
      ...pkg.json.optionalDependencies,
    };
    const declared = new Set([...Object.keys(runtime), ...Object.keys(pkg.json.devDependencies ?? {})]);
    for (const dependency of Object.keys(runtime)) {
      if (names.has(dependency) && !allowed(dependency, false)) {
        problems.push(
          `${pkg.name}: depends on ${dependency}, which the arrows of docs/architecture.md do not allow`,
        );
      }
    }
    for (const dependency of Object.keys(pkg.json.devDependencies ?? {})) {
      if (names.has(dependency) && !allowed(dependency, true)) {
        problems.push(
          `${pkg.name}: devDependency ${dependency} is not allowed by the arrows of docs/architecture.md`,
        );
      }
    }

    const sourceFiles = listFiles(join(pkg.dir, "src"));
    const testFiles = [...listFiles(join(pkg.dir, "test")), ...listFiles(join(pkg.dir, "tests"))];
    const looseFiles =
      pkg.name.startsWith("@internal/") && !existsSync(join(pkg.dir, "src"))
        ? readdirSync(pkg.dir)
            .filter((entry) => SOURCE_EXTENSIONS.test(entry))
            .map((entry) => join(pkg.dir, entry))
        : [];
    for (const [files, testOnly] of [
      [[...sourceFiles, ...looseFiles], false],
      [testFiles, true],
    ] as const) {
      for (const file of files) {
        const source = readFileSync(file, "utf8");
        const relativePath = relative(root, file);
        if (!testOnly) {
          const lines = source.split("\n").length - (source.endsWith("\n") ? 1 : 0);
          if (lines > MAX_LINES)
            problems.push(`${relativePath}: ${lines} lines (limit ${MAX_LINES}); split it by concept`);
          if (file.startsWith(`${join(pkg.dir, "src")}/`) && readsPackageJson(source))
            problems.push(
              `${relativePath}: reads package.json at run time; import VERSION from the generated src/version.ts (\`pnpm write-versions\`)`,
            );
        }
        for (const specifier of importsOf(source)) {
          if (specifier.startsWith(".")) {
            const resolved = resolve(dirname(file), specifier);
            if (relative(pkg.dir, resolved).startsWith("..")) {
              problems.push(
                `${relativePath}: imports ${specifier}, which reaches outside ${pkg.name}; import the package by name`,
              );
            }
            continue;
          }
          const target = workspaceTarget(specifier, names);
          if (target === undefined || target === pkg.name) continue;
          if (!allowed(target, testOnly)) {
            problems.push(
              `${relativePath}: imports ${specifier}, but ${pkg.name} may not import ${target} (the arrows of docs/architecture.md)`,
            );
          } else if (!declared.has(target)) {
            problems.push(
              `${relativePath}: imports ${target}, which ${pkg.name}'s package.json does not declare`,
            );
          }
        }
      }
    }
  }
  return problems;
}

function main(): void {
  const root = resolve(process.argv[2] ?? join(fileURLToPath(import.meta.url), "..", ".."));
  const packages = findPackages(root);
  const problems = checkPackages(root);
  if (problems.length > 0) {
    console.error(`check:packages found ${problems.length} problem(s):`);
    for (const problem of problems) console.error(`  - ${problem}`);
    process.exit(1);
  }
  console.log(`check:packages: ${packages.length} packages follow the arrows and the package rules.`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
