import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

describe("the README", () => {
  test("its example runs and prints what the README says", () => {
    const readme = readFileSync(join(packageDir, "README.md"), "utf8");
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code).toBeDefined();
    // Inside the package, so that its imports resolve as a user's would.
    const file = join(packageDir, `.readme-example-${process.pid}.ts`);
    writeFileSync(file, code!);
    try {
      const run = spawnSync(process.execPath, ["--conditions=@arbor/source", "--import", TSX_LOADER, file], {
        cwd: packageDir,
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      const lines = run.stdout.split("\n");
      expect(lines[0]).toBe("(Waiting for the model…)");
      expect(lines).toContain("> Say hello");
      expect(lines).toContain("Hello from **Arbor**.");
      expect(lines).toContain("read path: src/a.ts, limit: 20");
      expect(lines.some((line) => /^tokens out: [1-9]\d*$/.test(line))).toBe(true);
      expect(lines.some((line) => /^# Session [0-9a-f-]{36}$/.test(line))).toBe(true);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
