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
 * Contract: stdout carries only JSON lines; resolves to 0 (a failed command is a response, not an exit code).
 */
export async function runRpcMode(runtime: AppRuntime, io: CliIo): Promise<number> {
  const server = createRpcServer(runtime, (line) => io.stdout.write(line));
  const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
  for await (const line of lines) server.handleLine(line);
  await server.close();
  return 0;
}
