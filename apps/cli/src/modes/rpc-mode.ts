/**
 * `--mode rpc`: JSON-lines commands on stdin, JSON lines on stdout. The protocol (commands, responses,
 * events) is `@arbor/app-runtime`'s `createRpcServer`; this mode only reads the lines and writes them.
 * End of input ends the mode after the work in flight.
 */
import { createInterface } from "node:readline";
import { type AppRuntime, createRpcServer } from "@arbor/app-runtime";
import type { CliIo } from "../io.js";

/**
 * Runs the RPC loop until stdin ends and the work in flight is done.
 *
 * Contract: stdout carries only JSON lines; resolves to 0 (a failed command is a response, not an exit
 * code), or 1 when work of the run was not saved (a `save_error` no later save made good: another process
 * holds or changed the session), said once on stderr.
 */
export async function runRpcMode(runtime: AppRuntime, io: CliIo): Promise<number> {
  const saves = runtime.watchUnsavedWork();
  const server = createRpcServer(runtime, (line) => io.stdout.write(line));
  const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
  let unsaved: string | undefined;
  try {
    for await (const line of lines) server.handleLine(line);
    await server.close();
  } finally {
    unsaved = saves();
  }
  if (unsaved === undefined) return 0;
  const { unsavedLine } = await import("./one-shot.js");
  io.stderr.write(`arbor: error: ${unsavedLine(unsaved, saves)}\n`);
  return 1;
}
