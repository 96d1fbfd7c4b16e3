/**
 * What every `arbor` process does around `main`, whichever way `main` is loaded: `--version` answered from
 * `version.ts` alone, closed output pipes tolerated, Node's WebAssembly tiering held back, and an exit once
 * the output is written. `cli.ts` (run from source) imports `main.ts`; `bin.ts` (the published bin) loads the
 * CommonJS bundle of it through the compile cache.
 */
import { setFlagsFromString } from "node:v8";
import { versionLine } from "./version-line.js";

/** The module `runArborProcess` runs: `main.ts`, or its bundle. */
export interface MainModule {
  /** Runs the command `argv` names; resolves to the exit code. */
  main(argv: string[]): Promise<number>;
}

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

/**
 * Runs one `arbor` process with the command-line arguments `args` (`process.argv` without node and the
 * script): `--version` without loading `main`, anything else through the module `loadMain` returns.
 *
 * Contract: `loadMain` is called at most once, after the V8 flags of the process are set (a code cache is
 * only accepted by a process with the flags it was made under), and the process exits when `main` resolves.
 */
export async function runArborProcess(
  args: string[],
  loadMain: () => MainModule | Promise<MainModule>,
): Promise<void> {
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
    process.stdout.write(`${versionLine()}\n`);
    return;
  }
  // Node's `fetch` (which the provider SDKs use) parses HTTP with a WebAssembly module. V8 compiles it fast
  // (Liftoff), then recompiles its busiest functions optimized on a background thread, and a process that
  // exits waits for that job: 250–350 ms after a one-line answer, more on a busy machine. A tiering budget
  // ~500× V8's default keeps the fast code for a run's first requests; a long session still tiers up. Only
  // WebAssembly instantiated from here on is affected.
  setFlagsFromString("--wasm-tiering-budget=1000000000");
  process.stdout.on("error", ignoreClosedOutput);
  process.stderr.on("error", ignoreClosedOutput);
  const { main } = await loadMain();
  finish(await main(args));
}
