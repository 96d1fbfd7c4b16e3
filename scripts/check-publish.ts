/**
 * The publishing rules of `pnpm check:packages`: what every published (not `private`) package needs so a
 * stranger can install it from npm. `scripts/pack-check.ts` checks the packed tarballs themselves.
 *
 * A published package needs
 * - a LICENSE file (MIT, a copy of the root one), `"license": "MIT"`, `keywords`, `homepage`, `bugs`,
 *   `repository` with its `directory`, `publishConfig.access` `public`, a `prepack` script that builds from a clean `dist`;
 * - the version every other published package has (changesets bumps them as one `fixed` group);
 * - a `files` list naming README.md, CHANGELOG.md and LICENSE, and leaving out `dist/.tsbuildinfo`;
 * - caret (or tilde) ranges, never exact versions, for its third-party runtime dependencies;
 * - the root's `engines.node` (the Node.js versions CI tests), never a looser range;
 * - the `@arbor/source` export condition, never a bare `source` (a common name other tools also use);
 * - a README of at most {@link README_MAX_LINES} lines whose install line names every package its first
 *   ```ts block imports;
 * - and no reference to documents outside the repository (the design seeds, DESIGN.md) in its README or
 *   its sources (TSDoc becomes the shipped `.d.ts`): the repository's own docs/ hold that text.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { importedPackages, readmeQuickStart } from "./readme-quick-start.ts";

/** The repository every package.json points at. */
export const REPOSITORY = "https://github.com/arbor-dev/arbor";
/** A README is one screen: install, one complete example, links. Reference lives in docs/. */
export const README_MAX_LINES = 60;
/** Text that points at documents a user cannot open. */
export const EXTERNAL_REFERENCE = /\bseeds?\s+0\d\d\b|\bseeds\/|DESIGN\.md|\bseed documents?\b|\bthe seeds'/i;

interface PublishedPackage {
  dir: string;
  name: string;
  json: Record<string, unknown>;
}

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};

/** The root package.json's `engines.node`, when it has one. */
function rootEnginesOf(root: string): string | undefined {
  const file = join(root, "package.json");
  if (!existsSync(file)) return undefined;
  const node = asRecord(asRecord(JSON.parse(readFileSync(file, "utf8"))).engines).node;
  return typeof node === "string" ? node : undefined;
}

/** Checks one published package; `version` is the version the published packages share. */
export function checkPublished(
  pkg: PublishedPackage,
  root: string,
  version: string,
  problems: string[],
): void {
  const where = relative(root, pkg.dir);
  const say = (text: string) => problems.push(`${pkg.name}: ${text}`);
  const json = pkg.json;
  if (!existsSync(join(pkg.dir, "LICENSE"))) say("no LICENSE file (copy the root LICENSE)");
  if (json.license !== "MIT") say('package.json must say "license": "MIT"');
  if (json.version !== version) {
    say(
      `version ${String(json.version)} differs from the other packages' ${version} (one fixed release group)`,
    );
  }
  if (!Array.isArray(json.keywords) || json.keywords.length === 0) say('package.json has no "keywords"');
  // The Node.js versions the repository is tested on (the root's engines), no more.
  const rootEngines = rootEnginesOf(root);
  if (rootEngines !== undefined && asRecord(json.engines).node !== rootEngines) {
    say(`"engines" must be { "node": "${rootEngines}" }, the root's (the versions CI tests)`);
  }
  if (json.homepage !== `${REPOSITORY}/tree/main/${where}#readme`) {
    say(`"homepage" must be "${REPOSITORY}/tree/main/${where}#readme"`);
  }
  if (asRecord(json.bugs).url !== `${REPOSITORY}/issues`)
    say(`"bugs" must be { "url": "${REPOSITORY}/issues" }`);
  const repository = asRecord(json.repository);
  if (
    repository.type !== "git" ||
    repository.url !== `git+${REPOSITORY}.git` ||
    repository.directory !== where
  ) {
    say(`"repository" must be { "type": "git", "url": "git+${REPOSITORY}.git", "directory": "${where}" }`);
  }
  if (asRecord(json.publishConfig).access !== "public") say('"publishConfig" must say "access": "public"');
  if (asRecord(json.scripts).prepack !== "rm -rf dist && pnpm run build") {
    say('"prepack" must be "rm -rf dist && pnpm run build" (a clean build: no stale files in the tarball)');
  }

  // A missing "files" list is reported by check-packages.ts itself.
  const files = Array.isArray(json.files) ? (json.files as string[]) : undefined;
  for (const required of ["README.md", "CHANGELOG.md", "LICENSE"]) {
    if (files && !files.includes(required)) say(`"files" must list ${required}`);
  }
  if (files?.includes("dist") && !files.includes("!dist/.tsbuildinfo")) {
    say('"files" must leave out dist/.tsbuildinfo ("!dist/.tsbuildinfo")');
  }

  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [dependency, range] of Object.entries(asRecord(json[field]))) {
      if (typeof range === "string" && /^\d+\.\d+\.\d+/.test(range)) {
        say(`${field}.${dependency} is pinned to ${range}; use a caret range (^${range})`);
      }
    }
  }
  for (const [subpath, target] of Object.entries(asRecord(json.exports))) {
    if ("source" in asRecord(target))
      say(`exports["${subpath}"] uses the "source" condition; name it "@arbor/source"`);
  }

  const readmePath = join(pkg.dir, "README.md");
  if (!existsSync(readmePath)) return;
  const readme = readFileSync(readmePath, "utf8");
  const lines = readme.trimEnd().split("\n").length;
  if (lines > README_MAX_LINES) {
    say(
      `README.md has ${lines} lines (limit ${README_MAX_LINES}): keep install, one example and links; move reference to docs/`,
    );
  }
  if (EXTERNAL_REFERENCE.test(readme))
    say("README.md points at the design seeds or DESIGN.md; point at docs/ instead");
  if (json.bin === undefined) {
    const { code, installs } = readmeQuickStart(readme);
    if (code === undefined) say("README.md has no ```ts quick start");
    else {
      if (!installs.includes(pkg.name))
        say(`README.md's install line (the first \`\`\`sh block) must install ${pkg.name}`);
      for (const imported of importedPackages(code)) {
        if (!installs.includes(imported))
          say(`README.md's quick start imports ${imported}, which its install line omits`);
      }
    }
  }
  for (const file of sourceFiles(join(pkg.dir, "src"))) {
    const text = readFileSync(file, "utf8");
    const line = text.split("\n").findIndex((content) => EXTERNAL_REFERENCE.test(content));
    if (line >= 0) {
      problems.push(
        `${relative(root, file)}:${line + 1}: points at the design seeds or DESIGN.md; point at docs/ instead`,
      );
    }
  }
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts|js|mjs)$/.test(entry) ? [path] : [];
  });
}

/** Files anywhere in a package (node_modules and dist left out) that still pass the bare `source` condition. */
export function bareSourceConditions(dir: string, root: string): string[] {
  const found: string[] = [];
  const visit = (current: string) => {
    for (const entry of readdirSync(current)) {
      if (entry === "node_modules" || entry === "dist" || entry.startsWith(".")) continue;
      const path = join(current, entry);
      if (statSync(path).isDirectory()) visit(path);
      else if (/\.(ts|tsx|mts|js|mjs|json|md|sh)$/.test(entry)) {
        const text = readFileSync(path, "utf8");
        if (/--conditions[= ]source\b|conditions: \[\s*"source"|"source", \.\.\.default/.test(text)) {
          found.push(`${relative(root, path)}: uses the bare "source" condition; use "@arbor/source"`);
        }
      }
    }
  };
  visit(dir);
  return found;
}
