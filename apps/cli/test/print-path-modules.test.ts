import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { sandbox } from "./cli-helpers.js";

/** The built, bundled executable (`pnpm exec turbo run build` makes it). */
const BINARY = fileURLToPath(new URL("../dist/arbor.js", import.meta.url));

/** Node's own modules the built `arbor` had loaded when it exited, for `args`. */
function builtinsLoadedBy(args: string[]): string[] {
  expect(existsSync(BINARY), `${BINARY} is missing: build the CLI first`).toBe(true);
  const box = sandbox();
  const preload = join(box.cwd, "record-builtins.cjs");
  const record = join(box.cwd, "builtins.txt");
  writeFileSync(
    preload,
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(record)}, process.moduleLoadList.join("\\n")));\n`,
  );
  const run = spawnSync(process.execPath, ["--require", preload, BINARY, ...args], {
    cwd: box.cwd,
    env: box.env,
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return readFileSync(record, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("NativeModule "))
    .map((line) => line.slice("NativeModule ".length));
}

// What loads before a one-shot answer's first request delays it (docs/performance.md). Node's fetch
// (undici, with http2, zlib and worker_threads: ~50 ms) loads on the first touch of `fetch`, `Headers`,
// `Request` or `Response`: only a provider that sends HTTP requests may touch them.
test("a one-shot print answer with the scripted provider does not load Node's fetch", () => {
  const loaded = builtinsLoadedBy(["-p", "hi", "--provider", "scripted"]);
  expect(loaded).toContain("fs/promises"); // the record is real: the session was written
  expect(loaded).not.toContain("internal/deps/undici/undici");
});
