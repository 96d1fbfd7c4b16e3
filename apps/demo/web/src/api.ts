/**
 * The page's link to the demo server: the token from the page's address, `command()` for
 * `POST /api/command` (the protocol's typed client of `@arbor/app-runtime/client`: each command's answer
 * is its `CommandResult`), and `connectEvents()` for the server-sent events (EventSource reconnects by
 * itself and sends `Last-Event-ID`, so the server resends what was missed).
 */
import {
  type CommandResult,
  createProtocolClient,
  ProtocolCommandError,
  type ProtocolTransport,
  type RpcCommand,
} from "@arbor/app-runtime/client";
import type { CompactionNotice, ContextBreakdown, EntryView, GraphNode } from "@arbor/session-view";

export type { CompactionNotice, ContextBreakdown, EntryView, GraphNode, RpcCommand };

/** `get_context`'s answer (the meter's breakdown and its notice). */
export type ContextAnswer = CommandResult<"get_context">;

/** The token of this run, from `?token=` of the page's address. */
export const TOKEN = new URLSearchParams(window.location.search).get("token") ?? "";

/** A command's failure, with the server's message for the user. */
export const CommandFailed = ProtocolCommandError;

/** `POST /api/command` as a protocol transport: the server answers `{ ok, data }` or `{ ok: false, error }`. */
const httpTransport: ProtocolTransport = {
  async send(body) {
    const response = await fetch("api/command", {
      method: "POST",
      headers: { "content-type": "application/json", "x-arbor-token": TOKEN },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { ok: boolean; data?: unknown; error?: string; code?: string };
    if (answer.ok) return { success: true, data: answer.data };
    return {
      success: false,
      error: answer.error ?? `HTTP ${response.status}`,
      ...(answer.code === undefined ? {} : { code: answer.code }),
    };
  },
};

/** The typed client of the demo server. */
export const client = createProtocolClient(httpTransport);

/**
 * Sends one command; resolves to its typed result, rejects with {@link CommandFailed} and the server's
 * message.
 */
export function command<C extends RpcCommand>(body: C): Promise<CommandResult<C["type"]>> {
  return client.request(body);
}

/** The server's `GET /api/info`. */
export interface ServerInfo {
  model: string;
  modelName: string;
  contextWindow: number;
  persistent: boolean;
  store: string;
  version: string;
  sessionId: string;
  /** Where the agent's tools run (`--cwd`). */
  cwd: string;
  /** Whether {@link ServerInfo.cwd} is a fresh temporary folder made for this demo (no `--cwd`). */
  freshCwd: boolean;
}

/** Reads the server's info. */
export async function serverInfo(): Promise<ServerInfo> {
  const response = await fetch("api/info", { headers: { "x-arbor-token": TOKEN } });
  const answer = (await response.json()) as { ok: boolean; data: ServerInfo; error?: string };
  if (!answer.ok) throw new CommandFailed(answer.error ?? `HTTP ${response.status}`, "info");
  return answer.data;
}

/** One event of the stream: a compact harness event with its session's id. */
export type ServerEvent = { type: string; sessionId: string } & Record<string, unknown>;

/** `get_graph`'s answer. */
export type GraphAnswer = CommandResult<"get_graph">;

/** `get_summary`'s answer. */
export type SummaryAnswer = CommandResult<"get_summary">;

/** `get_transcript`'s answer. */
export type TranscriptAnswer = CommandResult<"get_transcript">;

/** `list_sessions`' answer. */
export type SessionPageAnswer = CommandResult<"list_sessions">;

/** `diff`'s answer. */
export type DiffAnswer = CommandResult<"diff">;

/**
 * Opens the event stream; `onEvent` receives every record in order, `onReset` when the server no longer
 * holds what was missed (reload everything), `onOpen` on each (re)connection.
 */
export function connectEvents(handlers: {
  onEvent: (event: ServerEvent) => void;
  onReset: () => void;
  onOpen: () => void;
  onError: () => void;
}): () => void {
  const source = new EventSource(`api/events?token=${encodeURIComponent(TOKEN)}`);
  source.onmessage = (message) => handlers.onEvent(JSON.parse(message.data as string) as ServerEvent);
  source.addEventListener("reset", () => handlers.onReset());
  source.onopen = () => handlers.onOpen();
  source.onerror = () => handlers.onError();
  return () => source.close();
}
