import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("CONTRIBUTING.md command table", () => {
  it("is true to package.json: every listed script exists and every script is listed", () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> })
        .scripts,
    );
    const contributing = readFileSync(join(root, "CONTRIBUTING.md"), "utf8");
    const table = contributing.slice(contributing.indexOf("## Commands"), contributing.indexOf("## Layout"));
    const listed = [...table.matchAll(/^\| `pnpm ([\w:-]+)`/gm)].map((match) => match[1]);
    expect(listed.length).toBeGreaterThan(5);
    expect(scripts.filter((script) => !listed.includes(script))).toEqual([]);
    expect(listed.filter((script) => !scripts.includes(script!))).toEqual([]);
  });

  it("the README names exactly the two set-up commands, and both exist", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const block = readme.slice(
      readme.indexOf("```bash") + 7,
      readme.indexOf("```", readme.indexOf("```bash") + 7),
    );
    const commands = block
      .trim()
      .split("\n")
      .map((line) => line.replace(/#.*$/, "").trim());
    expect(commands).toEqual(["bash scripts/main.sh", "bash .ci/run"]);
    expect(readFileSync(join(root, ".ci/run"), "utf8")).toMatch(
      /`vitest: \$\{r\.numPassedTests\} passed, \$\{r\.numFailedTests\} failed, \$\{skipped\} skipped`/,
    );
  });
});
