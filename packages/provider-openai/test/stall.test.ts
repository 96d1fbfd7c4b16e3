import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chatFrames, chatTextChunks } from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIProvider } from "../src/index.js";
import { ask, drain, FAST_RETRY } from "./helpers/run.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server whose first request gets no answer, whose second stops after one frame, whose third completes. */
async function stallingServer(): Promise<{ url: string; requests: () => number }> {
  let count = 0;
  const frames = chatFrames(chatTextChunks("Hello after the stall."));
  server = createServer((request, response) => {
    request.resume();
    count++;
    if (count === 1) return; // never answers
    response.writeHead(200, { "content-type": "text/event-stream" });
    if (count === 2) {
      response.write(frames[0]);
      return; // stalls mid-stream
    }
    for (const frame of frames) response.write(frame);
    response.end();
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, requests: () => count };
}

describe("openai provider: the stream idle timeout", () => {
  it("abandons a silent server and a stalled stream, and retries", async () => {
    const { url, requests } = await stallingServer();
    const provider = createOpenAIProvider({
      baseURL: url,
      retry: { ...FAST_RETRY, maxStallRetries: 2 },
      streamIdleTimeoutMs: 150,
    });
    const { result } = await drain(provider.stream(provider.unlistedModel("m"), ask("hi")));
    expect(result.stopReason).toBe("stop");
    expect(result.content).toEqual([{ type: "text", text: "Hello after the stall." }]);
    expect(requests()).toBe(3);
  });

  it("says so in the error when retrying is off", async () => {
    const { url } = await stallingServer();
    const provider = createOpenAIProvider({ baseURL: url });
    const { result } = await drain(
      provider.stream(provider.unlistedModel("m"), ask("hi"), { streamIdleTimeoutMs: 100, maxRetries: 0 }),
    );
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/stream stalled: no data from the server for 0\.1 s/);
    expect(() => createOpenAIProvider({ streamIdleTimeoutMs: -1 })).toThrow(/streamIdleTimeoutMs/);
  });
});
