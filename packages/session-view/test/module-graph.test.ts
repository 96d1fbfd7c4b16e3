import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, test } from "vitest";

const here = fileURLToPath(new URL(".", import.meta.url));
const packageDir = join(here, "..");
const workspace = join(packageDir, "../..");
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const RECORDER = pathToFileURL(join(here, "fixtures/record-modules.mjs")).href;
/** A terminal, a UI framework or a command-line parser, from any install path. */
const FORBIDDEN = /\/node_modules\/(ink|ink-[\w-]+|react|react-dom|react-reconciler|commander)\//;

const directory = mkdtempSync(join(tmpdir(), "arbor-module-graph-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** The URLs of every module a fresh `node` (sources through tsx) resolves while running `code` in `cwd`. */
function modulesLoadedBy(code: string, cwd: string, name: string): string[] {
  const record = join(directory, `${name}.txt`);
  const run = spawnSync(
    process.execPath,
    [
      "--conditions=@arbor/source",
      "--import",
      TSX_LOADER,
      "--import",
      RECORDER,
      "--input-type=module",
      "-e",
      code,
    ],
    { cwd, env: { ...process.env, ARBOR_MODULE_RECORD: record }, encoding: "utf8", timeout: 60_000 },
  );
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return readFileSync(record, "utf8").split("\n").filter(Boolean);
}

describe("the module graph", () => {
  test("importing @arbor/session-view loads none of ink, react or commander", () => {
    const loaded = modulesLoadedBy(
      'const view = await import("@arbor/session-view"); if (typeof view.SessionViewModel !== "function") process.exit(3);',
      packageDir,
      "session-view",
    );
    // The whole graph was recorded: the package's sources and its dependencies.
    expect(loaded.some((url) => url.endsWith("/packages/session-view/src/index.ts"))).toBe(true);
    expect(loaded.some((url) => url.endsWith("/packages/session-view/src/export-html.ts"))).toBe(true);
    // Its Markdown parser (the HTML export's), which the terminal renders with too.
    expect(loaded.some((url) => url.includes("/node_modules/marked/"))).toBe(true);
    expect(loaded.some((url) => url.endsWith("/packages/ai-providers/src/index.ts"))).toBe(true);
    expect(loaded.filter((url) => FORBIDDEN.test(url))).toEqual([]);
  });

  test("the check sees them when a module does import them (control)", () => {
    // The CLI's transcript component imports ink, react, marked and @arbor/session-view.
    const component = pathToFileURL(join(workspace, "apps/cli/src/ui/components/transcript.tsx")).href;
    const loaded = modulesLoadedBy(
      `await import(${JSON.stringify(component)}); await import("commander");`,
      join(workspace, "apps/cli"),
      "control",
    );
    const found = new Set(loaded.map((url) => FORBIDDEN.exec(url)?.[1]).filter(Boolean));
    expect([...found].sort()).toEqual(expect.arrayContaining(["commander", "ink", "react"]));
  });
});
