/**
 * A test utility (never used by published code): a local HTTP server on 127.0.0.1 that speaks the OpenAI wire
 * protocol (Chat Completions and Responses SSE, JSON errors, `GET /v1/models`) from a script of replies, for
 * the provider's tests and the CLI's end-to-end tests.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the server received. */
export interface OpenAIWireRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (`undefined` for a GET). */
  body: Record<string, unknown> | undefined;
}

/** One scripted answer. */
export type OpenAIWireReply =
  | {
      kind: "sse";
      /** Raw SSE frames, each ending with a blank line. */
      frames: string[];
      status?: number;
      headers?: Record<string, string>;
      /** Delay before each frame (0: all frames in one write). */
      frameDelayMs?: number;
      /** Destroy the socket after this many frames (a mid-stream disconnect). */
      disconnectAfter?: number;
      /** Stop sending after this many frames, keeping the connection open (a stalled stream). */
      stallAfter?: number;
    }
  | { kind: "json"; status: number; body: unknown; headers?: Record<string, string> }
  | ((request: OpenAIWireRequest) => OpenAIWireReply);

/** A local server that speaks the OpenAI wire protocol from a script of replies. */
export interface OpenAIWireServer {
  /** The base URL with `/v1`, e.g. `http://127.0.0.1:40123/v1`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: OpenAIWireRequest[];
  /** Replies not used yet. */
  readonly remaining: number;
  /** Adds replies to the script. */
  push(...replies: OpenAIWireReply[]): void;
  close(): Promise<void>;
}

/** SSE frames of Chat Completions: `data: <json>` per chunk, then `data: [DONE]`. */
export function chatFrames(chunks: readonly unknown[], done = true): string[] {
  const frames = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
  if (done) frames.push("data: [DONE]\n\n");
  return frames;
}

/** SSE frames of the Responses API: `event: <type>` and `data: <json>` per event. */
export function responsesFrames(events: readonly { type: string }[]): string[] {
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}

/** An OpenAI-style JSON error reply. */
export function openAIErrorReply(
  status: number,
  message: string,
  options: { type?: string; code?: string | null; headers?: Record<string, string> } = {},
): OpenAIWireReply {
  return {
    kind: "json",
    status,
    headers: options.headers,
    body: {
      error: {
        message,
        type: options.type ?? "invalid_request_error",
        param: null,
        code: options.code ?? null,
      },
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function writeSse(
  response: ServerResponse,
  reply: Extract<OpenAIWireReply, { kind: "sse" }>,
): Promise<void> {
  response.writeHead(reply.status ?? 200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-request-id": "req_test",
    ...reply.headers,
  });
  const limit = reply.disconnectAfter ?? reply.stallAfter ?? reply.frames.length;
  const frames = reply.frames.slice(0, limit);
  if (!reply.frameDelayMs) {
    if (frames.length > 0) response.write(frames.join(""));
  } else {
    for (const frame of frames) {
      await sleep(reply.frameDelayMs);
      if (response.destroyed || response.writableEnded) return;
      response.write(frame);
    }
  }
  if (reply.stallAfter !== undefined && reply.disconnectAfter === undefined) {
    // Headers (and the frames before the stall) sent; nothing more until the client gives up.
    response.flushHeaders();
    return;
  }
  if (reply.disconnectAfter !== undefined) {
    // Let the written frames reach the client, then cut the connection mid-body.
    await sleep(20);
    response.socket?.destroy();
    return;
  }
  response.end();
}

/** Starts a server on 127.0.0.1 (random port) answering from `replies`, in order. */
export async function startOpenAIWireServer(replies: OpenAIWireReply[] = []): Promise<OpenAIWireServer> {
  const script = [...replies];
  const requests: OpenAIWireRequest[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const recorded: OpenAIWireRequest = {
        method: request.method ?? "GET",
        path: request.url ?? "/",
        headers: request.headers,
        body: text.length > 0 ? (JSON.parse(text) as Record<string, unknown>) : undefined,
      };
      requests.push(recorded);
      let reply = script.shift();
      while (typeof reply === "function") reply = reply(recorded);
      if (reply === undefined) {
        response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: "test server: no reply scripted", type: "test" } }));
        return;
      }
      if (reply.kind === "json") {
        response.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        response.end(JSON.stringify(reply.body));
        return;
      }
      void writeSse(response, reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get remaining() {
      return script.length;
    },
    push: (...more) => {
      script.push(...more);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
