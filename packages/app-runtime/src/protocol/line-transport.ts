/**
 * A {@link ProtocolTransport} over JSON lines — the other end of `createRpcServer`, e.g. a child process
 * running `arbor --mode rpc`: each command gets an `id`, its `response` line resolves it; every other
 * record (the session's events, notices) goes to `onRecord`. Node only (it reads a stream).
 */
import { createInterface } from "node:readline";
import type { ProtocolResponse, ProtocolTransport } from "./client.js";
import type { RpcCommand } from "./rpc-commands.js";

/** A line transport: the transport, and `close()` to stop reading. */
export interface LineTransport extends ProtocolTransport {
  /**
   * Stops reading; commands still waiting reject.
   *
   * Contract: calling it twice is harmless.
   */
  close(): void;
}

/** Options of {@link createLineTransport}. */
export interface LineTransportOptions {
  /** Where the records come from (the child's stdout). */
  input: NodeJS.ReadableStream;
  /** Where command lines go (the child's stdin). */
  output: NodeJS.WritableStream;
  /**
   * Receives every record that is not a response (events, `session`, `notice`, `error`).
   *
   * Contract: must not throw.
   */
  onRecord?: (record: Record<string, unknown>) => void;
}

/**
 * Speaks the protocol over a pair of streams (see the module comment).
 *
 * Contract: a line that is not JSON is ignored; when `input` ends, commands still waiting reject.
 */
export function createLineTransport(options: LineTransportOptions): LineTransport {
  const waiting = new Map<
    string,
    { resolve: (response: ProtocolResponse<unknown>) => void; reject: (error: Error) => void }
  >();
  let next = 0;
  let closed = false;
  const lines = createInterface({ input: options.input });
  const fail = (message: string) => {
    closed = true;
    for (const entry of waiting.values()) entry.reject(new Error(message));
    waiting.clear();
  };
  lines.on("line", (line) => {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const id = typeof record.id === "string" ? record.id : undefined;
    const entry = id === undefined ? undefined : waiting.get(id);
    if (record.type !== "response" || entry === undefined) {
      options.onRecord?.(record);
      return;
    }
    waiting.delete(id as string);
    entry.resolve(
      record.success === true
        ? { success: true, data: record.data }
        : {
            success: false,
            error: String(record.error),
            ...(typeof record.code === "string" ? { code: record.code } : {}),
          },
    );
  });
  lines.on("close", () => fail("The protocol's input ended before the response."));
  return {
    send(command: RpcCommand) {
      if (closed) return Promise.reject(new Error("The line transport is closed."));
      const id = `c${++next}`;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        options.output.write(`${JSON.stringify({ ...command, id })}\n`);
      });
    },
    close() {
      if (closed) return;
      lines.close();
      fail("The line transport was closed.");
    },
  };
}
