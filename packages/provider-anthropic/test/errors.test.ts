import {
  type AssistantEvent,
  type Context,
  isContextOverflow,
  type ProviderResponseInfo,
} from "@arbor/ai-providers";
import {
  anthropicErrorBody,
  anthropicSse,
  checkStreamProtocol,
  completeAnthropicStream,
  type FakeAnthropicReply,
  startFakeAnthropicServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicProvider } from "../src/index.js";
import { drain, FAST_RETRY, setupWire, type WireSetup } from "./support/harness.js";

const hello: Context = {
  systemPrompt: "You are helpful.",
  messages: [{ role: "user", content: "Say hello.", timestamp: 1 }],
};

const okStream = (text = "Hello after the retry."): FakeAnthropicReply => ({
  kind: "stream",
  events: completeAnthropicStream([anthropicSse.textBlock(0, text)]),
});

const environmentKey = process.env.ANTHROPIC_API_KEY;
let setup: WireSetup | undefined;
afterEach(async () => {
  await setup?.server.close();
  setup = undefined;
  if (environmentKey === undefined) delete process.env.ANTHROPIC_API_KEY;
  else process.env.ANTHROPIC_API_KEY = environmentKey;
});

describe("anthropic provider: failures are data", () => {
  it("retries a 429 after the server's retry-after, then succeeds", async () => {
    const responses: ProviderResponseInfo[] = [];
    setup = await setupWire(
      [
        {
          kind: "error",
          status: 429,
          body: anthropicErrorBody(
            "rate_limit_error",
            "Number of request tokens has exceeded your per-minute rate limit",
          ),
          headers: { "retry-after": "0.05" },
        },
        okStream(),
      ],
      { onResponse: (info) => void responses.push(info) },
    );
    const { events, result } = await drain(setup.provider.stream(setup.model, hello));
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(result.stopReason).toBe("stop");
    expect(result.content).toEqual([{ type: "text", text: "Hello after the retry." }]);
    expect(setup.server.requests).toHaveLength(2);
    expect(responses.map((info) => info.status)).toEqual([429, 200]);
    expect(responses[0]!.headers["retry-after"]).toBe("0.05");
    expect(responses[1]!.headers["content-type"]).toContain("text/event-stream");
  });

  it("fails at once, saying how long, when retry-after is longer than maxRetryDelayMs", async () => {
    setup = await setupWire([
      {
        kind: "error",
        status: 429,
        body: anthropicErrorBody("rate_limit_error", "Rate limited"),
        headers: { "retry-after": "3600" },
      },
      okStream(),
    ]);
    const { result } = await drain(setup.provider.stream(setup.model, hello, { maxRetryDelayMs: 60_000 }));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe(
      "Server asked to retry after 3600 s (longer than the 60 s limit): Anthropic API error 429 (rate_limit_error): Rate limited [request req_fake_error]",
    );
    expect(setup.server.requests).toHaveLength(1);
  });

  it("reads retry-after in seconds: 0.05 s is too long for a 10 ms limit", async () => {
    setup = await setupWire([
      {
        kind: "error",
        status: 429,
        body: anthropicErrorBody("rate_limit_error", "Slow down"),
        headers: { "retry-after": "0.05" },
      },
    ]);
    const { result } = await drain(setup.provider.stream(setup.model, hello, { maxRetryDelayMs: 10 }));
    expect(result.errorMessage).toMatch(
      /^Server asked to retry after 0\.05 s \(longer than the 0\.01 s limit\)/,
    );
  });

  it("retries 529 overloaded and gives up after the policy's retries, naming the failure", async () => {
    const overloaded: FakeAnthropicReply = {
      kind: "error",
      status: 529,
      body: anthropicErrorBody("overloaded_error", "Overloaded"),
    };
    setup = await setupWire([overloaded, overloaded, overloaded], {
      retry: { ...FAST_RETRY, maxRetries: 2 },
    });
    const { events, result } = await drain(setup.provider.stream(setup.model, hello));
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe(
      "gave up after 2 retries: Anthropic API error 529 (overloaded_error): Overloaded [request req_fake_error]",
    );
    expect(setup.server.requests).toHaveLength(3);
  });

  it("retries a 500 and succeeds", async () => {
    setup = await setupWire([
      { kind: "error", status: 500, body: anthropicErrorBody("api_error", "Internal server error") },
      okStream(),
    ]);
    const { result } = await drain(setup.provider.stream(setup.model, hello));
    expect(result.stopReason).toBe("stop");
    expect(setup.server.requests).toHaveLength(2);
  });

  it("ends a 500 that persists with stopReason error and the server's message", async () => {
    const failure: FakeAnthropicReply = {
      kind: "error",
      status: 500,
      body: anthropicErrorBody("api_error", "Internal server error"),
    };
    setup = await setupWire([failure, failure], { retry: { ...FAST_RETRY, maxRetries: 1 } });
    const { result } = await drain(setup.provider.stream(setup.model, hello));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain("Anthropic API error 500 (api_error): Internal server error");
  });

  it("retries an overloaded_error sent in the stream before any content", async () => {
    setup = await setupWire([
      {
        kind: "stream",
        events: [anthropicSse.messageStart(), anthropicSse.error("overloaded_error", "Overloaded")],
      },
      okStream("Second time lucky."),
    ]);
    const { events, result } = await drain(setup.provider.stream(setup.model, hello));
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(result.content).toEqual([{ type: "text", text: "Second time lucky." }]);
    expect(events.filter((event) => event.type === "start")).toHaveLength(1);
  });

  it("does not retry a 400: a context overflow keeps the server's text for isContextOverflow", async () => {
    setup = await setupWire([
      {
        kind: "error",
        status: 400,
        body: anthropicErrorBody(
          "invalid_request_error",
          "prompt is too long: 213462 tokens > 200000 maximum",
        ),
      },
      okStream(),
    ]);
    const { result } = await drain(setup.provider.stream(setup.model, hello));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe(
      "Anthropic API error 400 (invalid_request_error): prompt is too long: 213462 tokens > 200000 maximum [request req_fake_error]",
    );
    expect(isContextOverflow(result)).toBe(true);
    expect(setup.server.requests).toHaveLength(1);
  });

  it("does not retry a 401 and says what the server said", async () => {
    setup = await setupWire([
      { kind: "error", status: 401, body: anthropicErrorBody("authentication_error", "invalid x-api-key") },
    ]);
    const { result } = await drain(setup.provider.stream(setup.model, hello));
    expect(result.errorMessage).toContain(
      "Anthropic API error 401 (authentication_error): invalid x-api-key",
    );
    expect(isContextOverflow(result)).toBe(false);
  });

  it("keeps the partial text when the connection drops mid-text", async () => {
    const events = completeAnthropicStream([anthropicSse.textBlock(0, "The quick brown fox jumps over", 5)]);
    setup = await setupWire([{ kind: "stream", events, disconnectAfter: 6 }, okStream()]);
    const { events: received, result } = await drain(setup.provider.stream(setup.model, hello));
    expect(checkStreamProtocol(received, result)).toEqual([]);
    expect(result.stopReason).toBe("error");
    expect(result.content).toEqual([{ type: "text", text: "The quick brown" }]);
    expect(result.errorMessage).toMatch(/^The response was interrupted after content had streamed: /);
    expect(setup.server.requests).toHaveLength(1); // content had reached the caller: no retry
  });

  it("keeps the partial tool call when the connection drops mid-arguments", async () => {
    const json = JSON.stringify({ city: "Paris", unit: "celsius" });
    const events = completeAnthropicStream(
      [anthropicSse.toolUseBlock(0, { id: "toolu_cut", name: "get_weather", json, chunkSize: 4 })],
      {
        stopReason: "tool_use",
      },
    );
    setup = await setupWire([{ kind: "stream", events, disconnectAfter: 7 }]);
    const { events: received, result } = await drain(setup.provider.stream(setup.model, hello));
    expect(checkStreamProtocol(received, result)).toEqual([]);
    expect(result.stopReason).toBe("error");
    expect(result.content).toEqual([
      { type: "toolCall", id: "toolu_cut", name: "get_weather", arguments: { city: "Paris" } },
    ]);
  });

  it("retries a stream that closes cleanly before any content, and fails one that closes after", async () => {
    setup = await setupWire([
      { kind: "stream", events: [anthropicSse.messageStart()] },
      { kind: "stream", events: [anthropicSse.messageStart(), ...anthropicSse.textBlock(0, "Half")] },
    ]);
    const { result } = await drain(setup.provider.stream(setup.model, hello));
    expect(setup.server.requests).toHaveLength(2);
    expect(result.stopReason).toBe("error");
    expect(result.content).toEqual([{ type: "text", text: "Half" }]);
    expect(result.errorMessage).toContain("closed before the response was complete (no message_stop)");
  });

  it("ends with aborted, partial content kept, when the signal fires mid-stream", async () => {
    const events = completeAnthropicStream([
      anthropicSse.textBlock(0, "One two three four five six seven", 4),
    ]);
    setup = await setupWire([{ kind: "stream", events, delayMs: 10 }]);
    const controller = new AbortController();
    const stream = setup.provider.stream(setup.model, hello, { signal: controller.signal });
    const received: AssistantEvent[] = [];
    for await (const event of stream) {
      received.push(event);
      if (event.type === "text_delta" && received.filter((item) => item.type === "text_delta").length === 2) {
        controller.abort();
      }
    }
    const result = await stream.result();
    expect(checkStreamProtocol(received, result)).toEqual([]);
    expect(result.stopReason).toBe("aborted");
    expect(result.errorMessage).toBe("Request aborted");
    expect(result.content[0]).toMatchObject({ type: "text" });
    expect((result.content[0] as { text: string }).text.startsWith("One two ")).toBe(true);
  });

  it("fails without sending anything when no API key is configured", async () => {
    setup = await setupWire([okStream()], { apiKey: undefined });
    delete process.env.ANTHROPIC_API_KEY;
    const { events, result } = await drain(setup.provider.stream(setup.model, hello));
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(
      /^No Anthropic API key: set the ANTHROPIC_API_KEY environment variable/,
    );
    expect(setup.server.requests).toHaveLength(0);
  });

  it("reads ANTHROPIC_API_KEY at request time, and a per-request apiKey wins over it", async () => {
    setup = await setupWire([okStream(), okStream()], { apiKey: undefined });
    process.env.ANTHROPIC_API_KEY = "sk-ant-from-env";
    await drain(setup.provider.stream(setup.model, hello));
    await drain(setup.provider.stream(setup.model, hello, { apiKey: "sk-ant-per-request" }));
    expect(setup.server.requests.map((request) => request.headers.authorization)).toEqual([
      "Bearer sk-ant-from-env",
      "Bearer sk-ant-per-request",
    ]);
  });

  it("reports a server it cannot reach as an error after retrying", async () => {
    const closed = await startFakeAnthropicServer([]);
    await closed.close(); // its port is now free: nothing listens there
    const provider = createAnthropicProvider({
      apiKey: "sk-ant-test-key",
      baseURL: closed.url,
      retry: { ...FAST_RETRY, maxRetries: 1 },
    });
    const model = provider.models[0]!;
    const { result } = await drain(provider.stream(model, hello));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(
      /^gave up after 1 retry: Could not reach the Anthropic API: Connection error\./,
    );
    expect(result.errorMessage).toContain("ECONNREFUSED");
  });

  it("ends with an error naming the hook when onPayload throws, without sending", async () => {
    setup = await setupWire([okStream()]);
    const { result } = await drain(
      setup.provider.stream(setup.model, hello, {
        onPayload: () => {
          throw new Error("payload rejected by policy");
        },
      }),
    );
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe("The onPayload hook failed: payload rejected by policy");
    expect(setup.server.requests).toHaveLength(0);
  });
});
