#!/usr/bin/env node
/**
 * The `arbor` executable. `arbor --version` is answered here from package.json alone; anything else loads
 * `main.ts`, which loads only what the command uses (providers, the interactive UI, the session commands,
 * the coding tools are all imported on demand).
 */
import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";

const args = process.argv.slice(2);

/** Writes everything out, then ends the process (an idle HTTP keep-alive socket must not hold it open). */
function finish(code: number): void {
  process.exitCode = code;
  process.stdout.write("", () => {
    process.stderr.write("", () => process.exit(code));
  });
}

/**
 * A reader that went away (`arbor --mode json … | head -1`) is not a failure of the run: the output is
 * dropped and the run finishes — its session saved — instead of crashing on EPIPE.
 */
function ignoreClosedOutput(error: NodeJS.ErrnoException): void {
  if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") return;
  throw error;
}

if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  process.stdout.write(`${version}\n`);
} else {
  // Node's `fetch` (which the provider SDKs use) parses HTTP with a WebAssembly module. V8 compiles it fast
  // (Liftoff), then recompiles its busiest functions optimized on a background thread, and a process that
  // exits waits for that job: 250–350 ms after a one-line answer, more on a busy machine. A tiering budget
  // ~500× V8's default keeps the fast code for a run's first requests; a long session still tiers up. Only
  // WebAssembly instantiated from here on is affected.
  setFlagsFromString("--wasm-tiering-budget=1000000000");
  process.stdout.on("error", ignoreClosedOutput);
  process.stderr.on("error", ignoreClosedOutput);
  const { main } = await import("./main.js");
  finish(await main(args));
}
