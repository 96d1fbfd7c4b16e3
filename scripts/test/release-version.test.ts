/**
 * The first release: `changeset version` in a throwaway clone of this repository gives every published
 * package the same version, 0.1.0 (the `fixed` group), and leaves the private ones alone; no changelog it
 * writes points at an issue or a step of this project's work, and each is a few paragraphs (the changesets
 * say what users get, not how it was built).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { findPackages } from "../check-packages.ts";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
/** The largest CHANGELOG.md a package's first release may have, in bytes. */
const MAX_CHANGELOG = 6 * 1024;
const work = mkdtempSync(join(tmpdir(), "arbor-release-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("changeset version", () => {
  it("gives every published package 0.1.0 and keeps the changelogs to what users need", {
    timeout: 120_000,
  }, () => {
    const clone = join(work, "clone");
    execFileSync("git", ["clone", "--quiet", "--no-hardlinks", root, clone]);
    const changesetBin = join(
      createRequire(join(root, "package.json")).resolve("@changesets/cli/package.json"),
      "..",
      "bin.js",
    );
    execFileSync(process.execPath, [changesetBin, "version"], { cwd: clone, stdio: "pipe" });
    const packages = findPackages(clone);
    const published = packages.filter((pkg) => !pkg.json.private);
    expect(published.length).toBeGreaterThan(10);
    for (const pkg of published) {
      expect(`${pkg.json.name}@${pkg.json.version}`).toBe(`${pkg.json.name}@0.1.0`);
      const changelog = readFileSync(join(pkg.dir, "CHANGELOG.md"), "utf8");
      expect(changelog, `${pkg.json.name}'s changelog`).not.toMatch(/\b(issue|step) \d+\b/i);
      // What a user reads before installing, not the development log (that is in git): a few paragraphs.
      expect(Buffer.byteLength(changelog), `${pkg.json.name}'s changelog size`).toBeLessThan(MAX_CHANGELOG);
    }
    for (const pkg of packages.filter((candidate) => candidate.json.private)) {
      const before = JSON.parse(
        readFileSync(join(root, pkg.dir.slice(clone.length), "package.json"), "utf8"),
      );
      expect(pkg.json.version).toBe(before.version);
    }
  });
});
