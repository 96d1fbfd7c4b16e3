import type { Context } from "@arbor/ai-providers";
import { anthropicSse, completeAnthropicStream, type FakeAnthropicReply } from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { drain, FAST_RETRY, setupWire, type WireSetup } from "./support/harness.js";

const hello: Context = { messages: [{ role: "user", content: "Say hello.", timestamp: 1 }] };
const events = completeAnthropicStream([anthropicSse.textBlock(0, "Hello after the stall.")]);
const ok: FakeAnthropicReply = { kind: "stream", events };

let setup: WireSetup | undefined;
afterEach(async () => {
  await setup?.server.close();
  setup = undefined;
});

describe("anthropic provider: the stream idle timeout", () => {
  it("abandons a server that never answers and one that stops mid-stream, and retries both", async () => {
    setup = await setupWire([{ kind: "stall" }, { kind: "stream", events, stallAfter: 1 }, ok], {
      streamIdleTimeoutMs: 150,
      retry: { ...FAST_RETRY, maxStallRetries: 2 },
    });
    const { result } = await drain(setup.provider.stream(setup.model, hello));
    expect(result.stopReason).toBe("stop");
    expect(result.content).toEqual([{ type: "text", text: "Hello after the stall." }]);
    expect(setup.server.requests).toHaveLength(3);
  });

  it("gives up after one stall retry by default, saying so", async () => {
    setup = await setupWire([{ kind: "stall" }, { kind: "stall" }, ok], { streamIdleTimeoutMs: 100 });
    const { result } = await drain(setup.provider.stream(setup.model, hello));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/gave up after 1 retry: .*stream stalled/);
    expect(setup.server.requests).toHaveLength(2);
  });

  it("reports a stall as a transient failure in words when retrying is off, per request", async () => {
    setup = await setupWire([{ kind: "stall" }]);
    const { result } = await drain(
      setup.provider.stream(setup.model, hello, { streamIdleTimeoutMs: 100, maxRetries: 0 }),
    );
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/stream stalled: no data from the server for 0\.1 s/);
    expect(setup.server.requests).toHaveLength(1);
  });
});
