/**
 * The RPC protocol over any line transport: {@link createRpcServer} takes command lines and writes JSON
 * lines. Every command line gets exactly one response, `{"type":"response","id","command","success":true,
 * "data"}` or `{…,"success":false,"error"}`; the session's events are interleaved (see `json-events.ts`).
 * Commands run concurrently (an `abort` or a `steer` is handled while a prompt runs), so responses may come
 * in another order than the commands: `id` (any string or number, echoed back) tells them apart.
 */
import type { AppRuntime } from "../app-runtime.js";
import { OperationRefusedError } from "../operations/operation-error.js";
import { dispatchRpcCommand, type RpcContext } from "./command-handlers.js";
import { JsonEventWriter, type JsonRecord, sessionRecord } from "./json-events.js";
import { parseRpcCommand, type RpcCommand } from "./rpc-commands.js";

/** A running RPC conversation over one runtime. */
export interface RpcServer {
  /**
   * Handles one command line (JSON); its response is written when the command settles.
   *
   * Contract: never throws; a line that is not a valid command gets a failed response.
   */
  handleLine(line: string): void;
  /**
   * Waits for the work in flight (commands and the runs they started), then stops writing events.
   *
   * Contract: call once, after the last line; resolves when the session is idle.
   */
  close(): Promise<void>;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Starts the protocol: writes the `session` record, then the session's events and the responses to the
 * lines given to {@link RpcServer.handleLine}, each as one JSON line through `write`.
 *
 * Contract: `write` receives complete lines (ending with `\n`) and must not throw.
 */
export function createRpcServer(runtime: AppRuntime, write: (line: string) => void): RpcServer {
  const writer = new JsonEventWriter(write);
  writer.record(sessionRecord(runtime));
  let unsubscribe = runtime.session.subscribe((event) => writer.handle(event));
  const stopNotices = runtime.extensions.onNotice((notice) => writer.record({ type: "notice", ...notice }));
  // The client is asked through the protocol: a `permission_request` record, answered by `permission_reply`.
  const stopAsking = runtime.permissions.attachAsker((request) =>
    writer.record({ type: "permission_request", ...request }),
  );
  const stopDecisions = runtime.permissions.onDecision((decision) =>
    writer.record({ type: "permission_decision", ...decision }),
  );
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
  const idOf = (command: RpcCommand) => (command.id === undefined ? {} : { id: command.id });
  const context: RpcContext = {
    runtime,
    track: (command, work) => {
      keep(
        work.catch((error: unknown) => {
          writer.record({
            type: "error",
            command: command.type,
            ...idOf(command),
            error: errorMessage(error),
          });
        }),
      );
    },
    notice: (notice) => writer.record({ type: "notice", ...notice }),
  };

  const handle = async (line: string): Promise<void> => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      writer.record({
        type: "response",
        command: null,
        success: false,
        error: `Invalid JSON: ${errorMessage(error)}`,
      });
      return;
    }
    const parsed = parseRpcCommand(value);
    if (!parsed.ok) {
      const response: JsonRecord = {
        type: "response",
        ...(parsed.id === undefined ? {} : { id: parsed.id }),
        command: parsed.type ?? null,
        success: false,
        error: parsed.error,
      };
      writer.record(response);
      return;
    }
    const { command } = parsed;
    const base = { type: "response", ...idOf(command), command: command.type };
    try {
      const data = await dispatchRpcCommand(command, context);
      writer.record({ ...base, success: true, ...(data === undefined ? {} : { data }) });
    } catch (error) {
      const code = OperationRefusedError.isInstance(error) ? { code: error.code } : {};
      writer.record({ ...base, success: false, error: errorMessage(error), ...code });
    }
  };

  return {
    handleLine(line) {
      if (line.trim() === "") return;
      keep(handle(line));
    },
    async close() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      await runtime.session.waitForIdle();
      writer.flush();
      unsubscribe();
      stopNotices();
      stopAsking();
      stopDecisions();
      stopWatching();
    },
  };
}
