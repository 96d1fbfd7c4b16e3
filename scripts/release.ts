/**
 * `pnpm release`: publishes the packages `pnpm version-packages` versioned, in one command.
 *
 * 1. Refuses a working tree with changes, a branch other than `main`, or pending changesets (run
 *    `pnpm version-packages` and commit first: the versions and changelogs are reviewed before they ship).
 * 2. Installs the locked dependencies, builds, runs `pnpm check`, the tests and `pnpm pack:check` (what a
 *    stranger gets from npm), stopping at the first failure.
 * 3. `changeset publish` with npm provenance (`NPM_CONFIG_PROVENANCE=true`: CI's OIDC token signs where the
 *    tarball was built), which publishes each package whose version npm does not have yet and tags it.
 *
 * `--dry-run` does all of it but publishing: the tree checks are reported instead of enforced, and step 3
 * becomes `pnpm -r publish --dry-run` (npm's own dry run of every published package: what would be uploaded).
 * `--skip-checks` skips step 2 (for the test of this script, which the suite runs).
 */
import { spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { findPackages } from "./check-packages.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = new Set(process.argv.slice(2));
const dryRun = args.has("--dry-run");
const skipChecks = args.has("--skip-checks");
for (const arg of args) {
  if (arg !== "--dry-run" && arg !== "--skip-checks") {
    console.error(`release: unknown option ${arg} (options: --dry-run, --skip-checks)`);
    process.exit(2);
  }
}

function run(
  command: string,
  commandArgs: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): string {
  const cwd = options.cwd ?? root;
  console.log(
    `release: ${cwd === root ? "" : `(in ${cwd.slice(root.length + 1)}) `}${command} ${commandArgs.join(" ")}`,
  );
  const result = spawnSync(command, commandArgs, {
    cwd,
    env: options.env ?? process.env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (result.stdout) process.stdout.write(result.stdout);
  if (result.status !== 0) {
    console.error(
      `release: stopped: \`${command} ${commandArgs.join(" ")}\` failed (exit ${result.status ?? result.signal})`,
    );
    process.exit(1);
  }
  return result.stdout ?? "";
}

function output(command: string, commandArgs: string[]): string {
  return spawnSync(command, commandArgs, { cwd: root, encoding: "utf8" }).stdout?.trim() ?? "";
}

// 1. What is released: a clean main whose changesets are all applied.
const problems: string[] = [];
if (output("git", ["status", "--porcelain"]) !== "")
  problems.push("the working tree has changes: commit them first");
const branch = output("git", ["rev-parse", "--abbrev-ref", "HEAD"]);
if (branch !== "main") problems.push(`the branch is ${branch}, not main`);
const pending = output("git", ["ls-files", ".changeset/*.md"])
  .split("\n")
  .filter((file) => file !== "" && !file.endsWith("README.md"));
if (pending.length > 0) {
  problems.push(
    `${pending.length} changesets are not applied yet: run \`pnpm version-packages\`, review and commit`,
  );
}
for (const problem of problems) console.log(`release: ${dryRun ? "(dry run, not enforced) " : ""}${problem}`);
if (problems.length > 0 && !dryRun) process.exit(1);

// 2. Everything CI checks, on this tree.
if (!skipChecks) {
  run("pnpm", ["install", "--frozen-lockfile"]);
  run("pnpm", ["exec", "turbo", "run", "build", "--output-logs=errors-only"]);
  run("pnpm", ["run", "check"]);
  run("pnpm", ["exec", "vitest", "run"]);
  run("pnpm", ["run", "pack:check"]);
}

// 3. Publish (or npm's dry run of it).
const published = findPackages(root).filter((pkg) => !pkg.json.private);
if (dryRun) {
  // pnpm's recursive publish leaves private packages out, as `changeset publish` does.
  run("pnpm", ["-r", "publish", "--dry-run", "--no-git-checks", "--ignore-scripts", "--access", "public"], {
    env: { ...process.env, npm_config_loglevel: "error" },
  });
} else {
  run("pnpm", ["exec", "changeset", "publish"], { env: { ...process.env, NPM_CONFIG_PROVENANCE: "true" } });
}
console.log(
  `release: ${dryRun ? "would publish" : "published"} ${published.map((pkg) => `${pkg.json.name}@${pkg.json.version}`).join(", ")}`,
);
