/**
 * `--mode rpc`: JSON-lines commands on stdin, JSON lines on stdout. Every command line gets exactly one
 * response, `{"type":"response","id","command","success":true,"data"}` or `{…,"success":false,"error"}`;
 * the session's events are interleaved as in `--mode json`. Commands run concurrently (an `abort` or a
 * `steer` is handled while a prompt runs), so responses may come in another order than the commands: `id`
 * (any string or number, echoed back) tells them apart. End of input ends the mode after the work in flight.
 */
import { createInterface } from "node:readline";
import type { CliIo } from "../io.js";
import type { ArborRuntime } from "../runtime-factory.js";
import { JsonEventWriter, type JsonRecord } from "./json-events.js";
import { sessionRecord } from "./one-shot.js";
import { RPC_COMMANDS, type RpcCommand, type RpcContext } from "./rpc-commands.js";

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Parses one input line; a string is the error to answer with. */
function parseCommand(line: string): RpcCommand | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return `Invalid JSON: ${errorMessage(error)}`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return "A command must be a JSON object.";
  const command = value as Record<string, unknown>;
  if (typeof command.type !== "string") return 'A command needs a string "type".';
  if (command.id !== undefined && typeof command.id !== "string" && typeof command.id !== "number") {
    return '"id" must be a string or a number.';
  }
  return command as RpcCommand;
}

function idOf(line: string): string | number | undefined {
  try {
    const id = (JSON.parse(line) as { id?: unknown }).id;
    return typeof id === "string" || typeof id === "number" ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs the RPC loop until stdin ends and the work in flight is done.
 *
 * Contract: stdout carries only JSON lines; resolves to 0 (a failed command is a response, not an exit code).
 */
export async function runRpcMode(runtime: ArborRuntime, io: CliIo): Promise<number> {
  const writer = new JsonEventWriter((line) => io.stdout.write(line));
  const respond = (response: JsonRecord) => writer.record(response);
  writer.record(sessionRecord(runtime));
  let unsubscribe = runtime.session.subscribe((event) => writer.handle(event));
  const stopWatching = runtime.onSessionChange((session) => {
    unsubscribe();
    unsubscribe = session.subscribe((event) => writer.handle(event));
    writer.record(sessionRecord(runtime));
  });

  const inFlight = new Set<Promise<unknown>>();
  const keep = (work: Promise<unknown>) => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };
  const context: RpcContext = {
    runtime,
    track: (command, work) => {
      keep(
        work.catch((error: unknown) => {
          writer.record({
            type: "error",
            command: command.type,
            ...(command.id === undefined ? {} : { id: command.id }),
            error: errorMessage(error),
          });
        }),
      );
    },
  };

  const handle = async (line: string): Promise<void> => {
    const command = parseCommand(line);
    if (typeof command === "string") {
      const id = idOf(line);
      respond({
        type: "response",
        ...(id === undefined ? {} : { id }),
        command: null,
        success: false,
        error: command,
      });
      return;
    }
    const base = {
      type: "response",
      ...(command.id === undefined ? {} : { id: command.id }),
      command: command.type,
    };
    const handler = Object.hasOwn(RPC_COMMANDS, command.type) ? RPC_COMMANDS[command.type] : undefined;
    if (handler === undefined) {
      const known = Object.keys(RPC_COMMANDS).join(", ");
      respond({ ...base, success: false, error: `Unknown command "${command.type}". Commands: ${known}.` });
      return;
    }
    try {
      const data = await handler(command, context);
      respond({ ...base, success: true, ...(data === undefined ? {} : { data }) });
    } catch (error) {
      respond({ ...base, success: false, error: errorMessage(error) });
    }
  };

  const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    keep(handle(line));
  }
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  await runtime.session.waitForIdle();
  writer.flush();
  unsubscribe();
  stopWatching();
  return 0;
}
