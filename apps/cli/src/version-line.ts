/**
 * What `arbor --version` prints: the package version and the commit it was built from, e.g.
 * `arbor 0.3.0 (commit abc1234)` — in a clone, where the package version alone (0.0.0 before a release)
 * says little, the commit says which code runs.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { VERSION } from "./version.js";

/** The commit the bundle was built from (`scripts/bundle.mjs` defines it; "" when it was not a git checkout). */
declare const ARBOR_BUILD_COMMIT: string | undefined;

/**
 * The short commit of Arbor's own checkout this file runs from (a clone, built or not): its `HEAD`, read
 * now, so a build turbo replayed from its cache still says the commit checked out. Undefined outside a
 * git checkout, or in one that is not Arbor's (an installed package inside someone's repository).
 */
function checkoutCommit(): string | undefined {
  try {
    const [top, commit] = execFileSync("git", ["rev-parse", "--show-toplevel", "--short", "HEAD"], {
      cwd: dirname(fileURLToPath(import.meta.url)),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    })
      .trim()
      .split("\n");
    if (top === undefined || commit === undefined) return undefined;
    return existsSync(join(top, "apps", "cli", "src", "version-line.ts")) ? commit : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The short commit of the code that runs: the checkout's `HEAD` in a clone of Arbor, else the one the
 * bundle was built from (defined at build time); undefined when neither is known.
 *
 * Contract: never throws.
 */
export function buildCommit(): string | undefined {
  const checkout = checkoutCommit();
  if (checkout !== undefined) return checkout;
  return typeof ARBOR_BUILD_COMMIT === "string" && ARBOR_BUILD_COMMIT !== "" ? ARBOR_BUILD_COMMIT : undefined;
}

/** `arbor <version> (commit <short sha>)`, or `arbor <version>` when the commit is unknown. */
export function versionLine(): string {
  const commit = buildCommit();
  return `arbor ${VERSION}${commit === undefined ? "" : ` (commit ${commit})`}`;
}
