#!/usr/bin/env node
/**
 * `pnpm demo` / `arbor-demo`: parses the flags, starts the demo and prints its address; Ctrl-C stops it.
 */
import { runDemoCli } from "./server/run-demo-cli.js";

// `pnpm demo` runs this in the repository's root: a relative `--cwd` means the folder pnpm was started in.
const started = process.env.INIT_CWD;
if (started !== undefined && started !== "") {
  try {
    process.chdir(started);
  } catch {
    // That folder is gone: relative paths stay relative to the root.
  }
}

process.exitCode = await runDemoCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
