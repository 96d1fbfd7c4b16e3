import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/**
 * Runs `code` after creating every coding tool in a fresh `node` (sources through tsx) and reports whether
 * it had loaded the globbing library and ignore by then (the require cache, which ES module imports of
 * CommonJS fill too: tinyglobby is an ES module, its matcher picomatch is CommonJS).
 */
function loadedAfter(code: string): { glob: boolean; ignore: boolean } {
  const script = `
    import { createCodingTools } from "@arbor/coding-tools";
    const tools = createCodingTools({ cwd: process.cwd() });
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    const call = (name, args) => byName[name].execute(args, { toolCallId: "c", signal: new AbortController().signal, onUpdate() {} });
    ${code}
    const cached = Object.keys((await import("node:module")).createRequire(import.meta.url).cache);
    console.log(JSON.stringify({
      glob: cached.some((path) => path.includes("/picomatch/")),
      ignore: cached.some((path) => path.includes("/ignore/")),
    }));`;
  const run = spawnSync(
    process.execPath,
    ["--conditions=@arbor/source", "--import", TSX_LOADER, "--input-type=module", "-e", script],
    { cwd: packageDir, encoding: "utf8", timeout: 60_000 },
  );
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!);
}

test("creating the tools (what a first request needs) loads neither the globbing library nor ignore", () => {
  expect(loadedAfter("")).toEqual({ glob: false, ignore: false });
});

test("each loads on the first call that needs it (control)", () => {
  expect(
    loadedAfter('await call("bash", { command: "true" }); await call("find", { pattern: "*.json" });'),
  ).toEqual({ glob: true, ignore: true });
});
