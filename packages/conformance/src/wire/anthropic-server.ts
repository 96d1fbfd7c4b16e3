/**
 * A test utility (never used by published code): a local HTTP server on 127.0.0.1 that speaks the Anthropic
 * Messages API streaming protocol from scripted replies, for the provider's tests and the CLI's end-to-end
 * tests.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeSseEvent, type SseEvent } from "./anthropic-sse.js";

/** What the fake server answers one request with. */
export type FakeAnthropicReply =
  | {
      kind: "stream";
      events: SseEvent[];
      /** Pause before each event (ms); 0 still flushes each event as its own chunk. */
      delayMs?: number;
      /** Destroys the socket after this many events, mid-stream (a dropped connection). */
      disconnectAfter?: number;
      /** Stops sending after this many events (0: right after the headers), keeping the connection open: a stall. */
      stallAfter?: number;
      headers?: Record<string, string>;
    }
  | { kind: "error"; status: number; body: unknown; headers?: Record<string, string> }
  /** Reads the request and never answers (no status, no headers), keeping the connection open. */
  | { kind: "stall" };

/** A request as the server received it. */
export interface FakeAnthropicRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A local server that speaks the Messages API streaming protocol from scripted replies. */
export interface FakeAnthropicServer {
  /** Base URL to give the provider (`http://127.0.0.1:<port>`). */
  url: string;
  requests: FakeAnthropicRequest[];
  /** Replies not used yet. */
  readonly remaining: number;
  close(): Promise<void>;
}

/** An Anthropic-shaped error body. */
export function anthropicErrorBody(type: string, message: string): unknown {
  return { type: "error", error: { type, message } };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function writeStream(response: ServerResponse, reply: Extract<FakeAnthropicReply, { kind: "stream" }>) {
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "request-id": "req_fake_stream",
    ...reply.headers,
  });
  response.flushHeaders();
  for (const [index, item] of reply.events.entries()) {
    if (response.destroyed) return;
    if (reply.disconnectAfter !== undefined && index >= reply.disconnectAfter) {
      response.socket?.destroy();
      return;
    }
    if (reply.stallAfter !== undefined && index >= reply.stallAfter) return; // until the client gives up
    if (reply.delayMs !== undefined && reply.delayMs > 0) await sleep(reply.delayMs);
    if (response.destroyed) return;
    // Each event is its own chunk, flushed before the next (and before a planned disconnect).
    await new Promise<void>((resolve) => response.write(encodeSseEvent(item), () => resolve()));
  }
  response.end();
}

/**
 * Starts a server on 127.0.0.1 (random port) that answers `POST /v1/messages` with the next scripted
 * reply and records every request. A request beyond the script gets a 500 saying so.
 */
export async function startFakeAnthropicServer(replies: FakeAnthropicReply[]): Promise<FakeAnthropicServer> {
  const queue = [...replies];
  const requests: FakeAnthropicRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      requests.push({
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      });
      const reply = queue.shift();
      if (reply === undefined) {
        response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify(anthropicErrorBody("api_error", "fake server: no reply scripted")));
        return;
      }
      if (reply.kind === "stall") return; // no answer: the connection stays open until either side closes it
      if (reply.kind === "error") {
        response.writeHead(reply.status, {
          "content-type": "application/json",
          "request-id": "req_fake_error",
          ...reply.headers,
        });
        response.end(JSON.stringify(reply.body));
        return;
      }
      void writeStream(response, reply).catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get remaining() {
      return queue.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
