/**
 * The app layer must load in any front end: importing `@arbor/app-runtime` (and its `./demo` subpath) must
 * not pull a terminal library into the module graph. A child process imports them with a resolution hook
 * that records every module it resolves; a control run shows the hook does see such a library when one is
 * imported.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "./helpers.js";

const here = dirname(fileURLToPath(import.meta.url));
const packageDirectory = join(here, "..");
const cliDirectory = join(packageDirectory, "..", "..", "apps", "cli");
const recorder = pathToFileURL(join(here, "fixtures", "record-loads.mjs")).href;

/** Terminal and CLI libraries no front-end-neutral package may load (Markdown is session-view's own: marked). */
const FORBIDDEN = ["ink", "ink-spinner", "react", "react-dom", "commander"];

/** Imports the specifiers in a child (from `cwd`) and returns every module URL it resolved. */
async function loadedModules(specifiers: readonly string[], cwd: string): Promise<string[]> {
  const log = join(temporaryDirectory(), "loads.txt");
  const program = specifiers.map((specifier) => `await import(${JSON.stringify(specifier)});`).join("\n");
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [
        "--conditions=@arbor/source",
        "--import",
        "tsx",
        "--import",
        recorder,
        "--input-type=module",
        "-e",
        program,
      ],
      { cwd, env: { ...process.env, ARBOR_LOAD_LOG: log, ARBOR_LOAD_LOG_HOOKS: "" } },
      (error, _stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve()),
    );
  });
  return readFileSync(log, "utf8").split("\n").filter(Boolean);
}

/** The forbidden packages among the URLs (by their `node_modules/<name>/` segment). */
function forbiddenIn(urls: readonly string[]): string[] {
  const found = new Set<string>();
  for (const url of urls) {
    for (const name of FORBIDDEN) if (url.includes(`/node_modules/${name}/`)) found.add(name);
  }
  return [...found].sort();
}

describe("the module graph of @arbor/app-runtime", () => {
  it("holds no ink, react or commander (the root, ./demo, ./input and ./extensions)", async () => {
    const urls = await loadedModules(
      [
        "@arbor/app-runtime",
        "@arbor/app-runtime/demo",
        "@arbor/app-runtime/input",
        "@arbor/app-runtime/extensions",
      ],
      packageDirectory,
    );
    // The hook saw the whole graph: the package's own sources, its workspace dependencies, TypeBox.
    expect(urls.some((url) => url.endsWith("/packages/app-runtime/src/index.ts"))).toBe(true);
    expect(urls.some((url) => url.endsWith("/packages/app-runtime/src/demo/index.ts"))).toBe(true);
    expect(urls.some((url) => url.endsWith("/packages/app-runtime/src/input.ts"))).toBe(true);
    expect(urls.some((url) => url.endsWith("/packages/app-runtime/src/extensions/index.ts"))).toBe(true);
    expect(urls.some((url) => url.includes("/packages/harness/src/"))).toBe(true);
    expect(urls.some((url) => url.includes("/node_modules/@sinclair/typebox/"))).toBe(true);
    expect(forbiddenIn(urls)).toEqual([]);
  }, 60_000);

  it("./client loads nothing but itself: no workspace package, no node: module", async () => {
    const urls = await loadedModules(["@arbor/app-runtime/client"], packageDirectory);
    const own = urls.filter((url) => url.includes("/packages/"));
    expect([...new Set(own.map((url) => url.slice(url.indexOf("/packages/"))))]).toEqual([
      "/packages/app-runtime/src/protocol/client.ts",
    ]);
    expect(urls.filter((url) => url.startsWith("node:"))).toEqual([]);
  }, 60_000);

  it("control: the same probe does report a terminal library when one is imported", async () => {
    const urls = await loadedModules(["commander", "ink"], cliDirectory);
    expect(forbiddenIn(urls)).toEqual(["commander", "ink", "react"]);
  }, 60_000);
});
