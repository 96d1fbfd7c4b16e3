#!/usr/bin/env node
/**
 * `pnpm demo` / `arbor-demo`: parses the flags, starts the demo and prints its address; Ctrl-C stops it.
 */
import { runDemoCli } from "./server/run-demo-cli.js";

process.exitCode = await runDemoCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
