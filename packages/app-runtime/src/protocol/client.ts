/**
 * `@arbor/app-runtime/client`: a small typed client of the protocol, safe for a browser (it imports only
 * types from the rest of the package). A {@link ProtocolTransport} sends one command and resolves to its
 * response — `fetch` to the demo server, a child process running `arbor --mode rpc`
 * (`createLineTransport` of the package's main entry), or `dispatchRpcCommand` in process — and
 * {@link createProtocolClient} types it: `client.send({ type: "get_graph" })` resolves to a response whose
 * `data` is `CommandResult<"get_graph">`.
 */
import type { CommandResult } from "./command-results.js";
import type { RpcCommand, RpcCommandType } from "./rpc-commands.js";

export type { CommandResult, CommandResults, PromptResult, SessionStateResult } from "./command-results.js";
export type { RpcCommand, RpcCommandOf, RpcCommandType } from "./rpc-commands.js";

/** One command's response: its result, or the error to show (`code`: why, when the server refused it). */
export type ProtocolResponse<T> =
  | { success: true; data: T }
  | { success: false; error: string; code?: string };

/** Sends one command, resolves to its response. */
export interface ProtocolTransport {
  /**
   * Sends `command` and waits for its response.
   *
   * Contract: resolves to a failed response for a refusal; rejects only when the transport itself fails
   * (the connection closed, the process ended).
   */
  send(command: RpcCommand): Promise<ProtocolResponse<unknown>>;
}

/** A refused command, thrown by {@link ProtocolClient.request}; the message is the server's. */
export class ProtocolCommandError extends Error {
  constructor(
    message: string,
    /** The command's `type`. */
    readonly command: string,
    /** Why the server refused it (`busy`, `not_found`, `invalid`, …), when it said. */
    readonly code?: string,
  ) {
    super(message);
    this.name = "ProtocolCommandError";
  }
}

/** A typed client (see the module comment). */
export interface ProtocolClient {
  /**
   * Sends a command; resolves to its typed response.
   *
   * Contract: as {@link ProtocolTransport.send}.
   */
  send<C extends RpcCommand>(command: C): Promise<ProtocolResponse<CommandResult<C["type"]>>>;
  /**
   * Sends a command; resolves to its result, rejects with a {@link ProtocolCommandError} when refused.
   *
   * Contract: rejects with the transport's error when the transport fails.
   */
  request<C extends RpcCommand>(command: C): Promise<CommandResult<C["type"]>>;
}

/** A client over `transport`. Contract: keeps no state; commands may be sent concurrently. */
export function createProtocolClient(transport: ProtocolTransport): ProtocolClient {
  const send = <C extends RpcCommand>(command: C) =>
    transport.send(command) as Promise<ProtocolResponse<CommandResult<C["type"]>>>;
  return {
    send,
    async request(command) {
      const response = await send(command);
      if (response.success) return response.data;
      throw new ProtocolCommandError(response.error, command.type, response.code);
    },
  };
}

/** The command types, for a caller that only has a string. */
export type { RpcCommandType as ProtocolCommandType };
