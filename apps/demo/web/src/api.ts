/**
 * The page's link to the demo server: the token from the page's address, `command()` for
 * `POST /api/command`, and `connectEvents()` for the server-sent events (EventSource reconnects by
 * itself and sends `Last-Event-ID`, so the server resends what was missed).
 */
import type { CompactionNotice, ContextBreakdown, EntryView, GraphNode } from "@arbor/session-view";

export type { CompactionNotice, ContextBreakdown, EntryView, GraphNode };

/**
 * `get_context`'s answer: the meter's breakdown, and `notice` when the context is over the compaction
 * threshold and the last compaction freed nothing.
 */
export type ContextAnswer = ContextBreakdown & { notice?: CompactionNotice };

/** The token of this run, from `?token=` of the page's address. */
export const TOKEN = new URLSearchParams(window.location.search).get("token") ?? "";

/** A command's failure, with the server's message for the user. */
export class CommandFailed extends Error {}

/** Sends one command; resolves to its data, rejects with {@link CommandFailed} and the server's message. */
export async function command<T = unknown>(body: { type: string } & Record<string, unknown>): Promise<T> {
  const response = await fetch("api/command", {
    method: "POST",
    headers: { "content-type": "application/json", "x-arbor-token": TOKEN },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { ok: boolean; data?: T; error?: string };
  if (!answer.ok) throw new CommandFailed(answer.error ?? `HTTP ${response.status}`);
  return answer.data as T;
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
}

/** Reads the server's info. */
export async function serverInfo(): Promise<ServerInfo> {
  const response = await fetch("api/info", { headers: { "x-arbor-token": TOKEN } });
  const answer = (await response.json()) as { ok: boolean; data: ServerInfo; error?: string };
  if (!answer.ok) throw new CommandFailed(answer.error ?? `HTTP ${response.status}`);
  return answer.data;
}

/** One event of the stream: a compact harness event with its session's id. */
export type ServerEvent = { type: string; sessionId: string } & Record<string, unknown>;

/** `get_graph`'s answer. */
export interface GraphAnswer {
  sessionId: string;
  nodes: GraphNode[];
  leafId: string | null;
  entryCount: number;
}

/** `get_summary`'s answer. */
export interface SummaryAnswer {
  id: string;
  type: "compaction" | "branch_summary";
  summary: string;
  tokensBefore?: number;
  tokensAfter?: number;
  fromId?: string;
  readFiles: string[];
  modifiedFiles: string[];
  coveredCount: number;
  covered: { id: string; kind: string; preview: string }[];
}

/** `get_transcript`'s answer. */
export interface TranscriptAnswer {
  sessionId: string;
  earlier: number;
  entries: EntryView[];
}

/** `list_sessions`' answer. */
export interface SessionPageAnswer {
  sessions: {
    id: string;
    name: string | null;
    cwd: string;
    updatedAt: string;
    messageCount: number;
    parentSession: string | null;
    firstMessage: string | null;
    current: boolean;
  }[];
  nextCursor: string | null;
}

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
