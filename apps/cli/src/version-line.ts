/**
 * What `arbor --version` prints: the package version and the commit it was built from, e.g.
 * `arbor 0.3.0 (commit abc1234)` — in a clone, where the package version alone (0.0.0 before a release)
 * says little, the commit says which code runs.
 */
import { execFileSync } from "node:child_process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { VERSION } from "./version.js";

/** The commit the bundle was built from (`scripts/bundle.mjs` defines it; "" when it was not a git checkout). */
declare const ARBOR_BUILD_COMMIT: string | undefined;

/**
 * The short commit of the code that runs: the bundle's, defined at build time; from source (tests, `tsx`),
 * the checkout's `HEAD`; undefined outside a git checkout.
 *
 * Contract: never throws.
 */
export function buildCommit(): string | undefined {
  if (typeof ARBOR_BUILD_COMMIT === "string")
    return ARBOR_BUILD_COMMIT === "" ? undefined : ARBOR_BUILD_COMMIT;
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: dirname(fileURLToPath(import.meta.url)),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return commit === "" ? undefined : commit;
  } catch {
    return undefined;
  }
}

/** `arbor <version> (commit <short sha>)`, or `arbor <version>` when the commit is unknown. */
export function versionLine(): string {
  const commit = buildCommit();
  return `arbor ${VERSION}${commit === undefined ? "" : ` (commit ${commit})`}`;
}
