/**
 * Behind a proxy: `HTTPS_PROXY` / `HTTP_PROXY` route every provider request through it, `NO_PROXY` exempts
 * hosts. A logging proxy on 127.0.0.1 records what reaches it and refuses to forward, so no request leaves
 * the machine. (undici's proxy agent tunnels `http:` requests with CONNECT too.)
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  chatFrames,
  chatTextChunks,
  type OpenAIWireServer,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { arborProcess, runArbor, sandbox } from "./cli-helpers.js";

interface LoggingProxy {
  url: string;
  /** `CONNECT host:port` for tunnels, `GET http://…` for plain requests. */
  seen: string[];
  close(): Promise<void>;
}

async function startLoggingProxy(): Promise<LoggingProxy> {
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    // 401: an answer no client retries, so the run ends at once.
    response.writeHead(401, { "content-type": "application/json" }).end(
      JSON.stringify({
        error: { message: "the test proxy forwards nothing", type: "invalid_request_error" },
      }),
    );
  });
  server.on("connect", (request, socket) => {
    seen.push(`CONNECT ${request.url}`);
    socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let proxy: LoggingProxy | undefined;
let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await proxy?.close();
  await server?.close();
  proxy = undefined;
  server = undefined;
});

/**
 * Runs arbor until the proxy has seen `line` (or 45 s passed), then stops it: a refused tunnel is retried
 * with backoff, which the test need not wait for. Returns what the proxy saw.
 */
async function runUntilSeen(
  logging: LoggingProxy,
  args: string[],
  env: Record<string, string>,
  line: string,
) {
  const child = arborProcess(sandbox(), [...args, "--no-session", "-p", "hello"], { env });
  child.stdin.end();
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const deadline = Date.now() + 45_000;
  while (!logging.seen.includes(line) && Date.now() < deadline && child.exitCode === null) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill();
  await exited;
  return logging.seen;
}

describe("arbor behind a proxy", () => {
  it("tunnels an Anthropic request through HTTPS_PROXY (CONNECT api.anthropic.com:443)", {
    timeout: 60_000,
  }, async () => {
    proxy = await startLoggingProxy();
    const line = "CONNECT api.anthropic.com:443";
    const args = ["--provider", "anthropic", "--api-key", "sk-test"];
    expect(await runUntilSeen(proxy, args, { HTTPS_PROXY: proxy.url }, line)).toContain(line);
  });

  it("sends an http request through HTTP_PROXY (lower-case too)", { timeout: 60_000 }, async () => {
    proxy = await startLoggingProxy();
    const line = "CONNECT models.example.invalid:8080";
    const args = ["--base-url", "http://models.example.invalid:8080/v1", "--model", "m", "--api-key", "k"];
    expect(await runUntilSeen(proxy, args, { http_proxy: proxy.url }, line)).toContain(line);
  });

  it("reaches a host NO_PROXY names directly", { timeout: 60_000 }, async () => {
    proxy = await startLoggingProxy();
    server = await startOpenAIWireServer([{ kind: "sse", frames: chatFrames(chatTextChunks("Direct.")) }]);
    const run = await runArbor(
      sandbox(),
      ["--base-url", server.url, "--model", "m", "--api-key", "k", "--no-session", "-p", "hello"],
      {
        env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: "localhost,127.0.0.1" },
      },
    );
    expect(run.stdout).toContain("Direct.");
    expect(proxy.seen).toEqual([]);
  });
});
