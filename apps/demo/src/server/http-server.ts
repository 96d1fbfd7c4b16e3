/**
 * The demo's HTTP server (Node's `http`, nothing else): the page's files, `POST /api/command` (one JSON
 * command, answered with `{ ok, data }` or `{ ok: false, error }`), `GET /api/info`, and `GET /api/events`
 * (server-sent events: every record of the event log with its id; a page that reconnects with
 * `Last-Event-ID` gets what it missed, or a `reset` event when that is no longer kept). Every request
 * passes the rules of `security.ts` first.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { DemoHub } from "./demo-hub.js";
import type { LoggedEvent } from "./event-log.js";
import { checkRequest, DEMO_HOST, SECURITY_HEADERS } from "./security.js";
import { serveStatic } from "./static-files.js";

/** Largest request body (an imported session file can be big). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Interval of the keep-alive comment on an event stream. */
const HEARTBEAT_MS = 15_000;

/** Options of {@link startDemoServer}. */
export interface DemoServerOptions {
  hub: DemoHub;
  token: string;
  /** The port; 0 picks a free one. */
  port: number;
  /** The folder of the built page (`index.html` and its assets). */
  webRoot: string;
  /** What `GET /api/info` adds (the model, the store): never a key or the environment. */
  info?: Record<string, unknown>;
}

/** A running demo server. */
export interface DemoServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>/?token=<token>`: the address to open. */
  readonly url: string;
  readonly server: Server;
  /**
   * Stops listening and ends every event stream.
   *
   * Contract: resolves once the server is closed; does not dispose the hub's runtime.
   */
  close(): Promise<void>;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`The request is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB.`));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

/** The `Last-Event-ID` a reconnecting page sends (-1: none, a first connection). */
function lastEventIdOf(request: IncomingMessage, url: URL): number {
  const header = request.headers["last-event-id"];
  const raw = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get("lastEventId") ?? "";
  if (raw.trim() === "") return -1;
  const id = Number(raw);
  return Number.isSafeInteger(id) && id >= 0 ? id : -1;
}

function eventText(event: LoggedEvent): string {
  return `id: ${event.id}\ndata: ${event.data}\n\n`;
}

function streamEvents(hub: DemoHub, request: IncomingMessage, response: ServerResponse, url: URL): void {
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
  });
  response.write("retry: 1000\n\n");
  const lastId = lastEventIdOf(request, url);
  // A first connection starts at the present: the page reads the state with commands.
  const missed = lastId < 0 ? [] : hub.log.since(lastId);
  if (missed === undefined) {
    response.write(`id: ${hub.log.lastId}\nevent: reset\ndata: {}\n\n`);
  } else {
    for (const event of missed) response.write(eventText(event));
    if (lastId < 0) response.write(`id: ${hub.log.lastId}\nevent: hello\ndata: {}\n\n`);
  }
  const unsubscribe = hub.log.subscribe((event) => {
    response.write(eventText(event));
  });
  const heartbeat = setInterval(() => response.write(": keep-alive\n\n"), HEARTBEAT_MS);
  heartbeat.unref();
  const end = () => {
    clearInterval(heartbeat);
    unsubscribe();
  };
  request.on("close", end);
  response.on("close", end);
}

async function handle(
  options: DemoServerOptions,
  port: number,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? "/", `http://${DEMO_HOST}:${port}`);
  const api = url.pathname.startsWith("/api/");
  const refusal = checkRequest(request, url, { port, token: options.token, api });
  if (refusal !== undefined) {
    send(response, refusal.status, { ok: false, error: refusal.message });
    return;
  }
  if (!api) {
    if (request.method !== "GET" && request.method !== "HEAD") {
      send(response, 405, { ok: false, error: "Only GET here." });
      return;
    }
    serveStatic(options.webRoot, url.pathname, response);
    return;
  }
  if (url.pathname === "/api/events" && request.method === "GET") {
    streamEvents(options.hub, request, response, url);
    return;
  }
  if (url.pathname === "/api/info" && request.method === "GET") {
    send(response, 200, { ok: true, data: { ...options.info, sessionId: options.hub.runtime.session.id } });
    return;
  }
  if (url.pathname === "/api/command" && request.method === "POST") {
    const type = request.headers["content-type"] ?? "";
    if (!type.startsWith("application/json")) {
      send(response, 415, { ok: false, error: "Send the command as application/json." });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(await readBody(request));
    } catch (error) {
      send(response, 400, {
        ok: false,
        error: error instanceof SyntaxError ? "The body is not JSON." : String(error),
      });
      return;
    }
    const answer = await options.hub.command(value);
    if (answer.ok) send(response, 200, answer);
    else send(response, answer.status, { ok: false, error: answer.error });
    return;
  }
  send(response, 404, { ok: false, error: `No ${request.method} ${url.pathname} here.` });
}

/**
 * Starts the server on 127.0.0.1 (see the module comment).
 *
 * Contract: listens on 127.0.0.1 only; rejects when the port is taken, with a message naming it.
 */
export function startDemoServer(options: DemoServerOptions): Promise<DemoServer> {
  const server = createServer();
  let port = options.port;
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    handle(options, port, request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { ok: false, error: String(error) });
      else response.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`Port ${options.port} is taken: pass another with --port (0 picks a free one).`)
          : error,
      );
    });
    server.listen(options.port, DEMO_HOST, () => {
      port = (server.address() as AddressInfo).port;
      resolve({
        port,
        url: `http://${DEMO_HOST}:${port}/?token=${options.token}`,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
