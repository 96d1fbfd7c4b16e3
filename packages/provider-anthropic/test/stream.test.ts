import { type AssistantEvent, type Context, type ToolCall, Type } from "@arbor/ai-providers";
import {
  anthropicFixture,
  anthropicSse,
  checkStreamProtocol,
  completeAnthropicStream,
  readSseFixture,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { drain, setupWire, type WireSetup } from "./support/harness.js";

const weather = {
  name: "get_weather",
  description: "Get the weather for a city.",
  parameters: Type.Object({ city: Type.String(), unit: Type.Optional(Type.String()) }),
};

const hello: Context = {
  systemPrompt: "You are helpful.",
  messages: [{ role: "user", content: "Say hello.", timestamp: 1 }],
};

let setup: WireSetup | undefined;
afterEach(async () => {
  await setup?.server.close();
  setup = undefined;
});

describe("anthropic provider: streaming on the wire", () => {
  it("streams text from a recorded-shape stream, with usage, cost and the response id", async () => {
    setup = await setupWire([{ kind: "stream", events: readSseFixture(anthropicFixture("text.sse")) }]);
    const { events, result } = await drain(setup.provider.stream(setup.model, hello));
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(events.filter((event) => event.type === "text_delta").map((event) => event.delta)).toEqual([
      "Hello",
      "! How can",
      " I help you today?",
    ]);
    expect(result.content).toEqual([{ type: "text", text: "Hello! How can I help you today?" }]);
    expect(result.stopReason).toBe("stop");
    expect(result.responseId).toBe("msg_01XFDUDYJgAACzvnptvVoYEL");
    expect(result).toMatchObject({
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-5-5",
    });
    expect(result.usage).toMatchObject({
      input: 25,
      output: 15,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 40,
    });
    expect(result.usage.cost.total).toBeCloseTo((25 * 2 + 15 * 10) / 1e6, 12);
    const request = setup.server.requests[0]!;
    expect(request.path).toBe("/v1/messages");
    expect(request.headers.authorization).toBe("Bearer sk-ant-test-key");
    expect(request.body).toMatchObject({ model: "claude-sonnet-5-5", stream: true, max_tokens: 128_000 });
  });

  it("streams parallel tool calls whose arguments arrive in pieces", async () => {
    setup = await setupWire([
      { kind: "stream", events: readSseFixture(anthropicFixture("tool-use-parallel.sse")) },
    ]);
    const context: Context = { ...hello, tools: [weather] };
    const stream = setup.provider.stream(setup.model, context);
    const events: AssistantEvent[] = [];
    const partials: string[] = []; // the partial object after each argument piece, as it was then
    for await (const event of stream) {
      events.push(event);
      if (event.type === "toolcall_delta" && event.contentIndex === 1) {
        partials.push(JSON.stringify((event.partial.content[1] as ToolCall).arguments));
      }
    }
    const result = await stream.result();
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(result.stopReason).toBe("toolUse");
    expect(result.content).toEqual([
      { type: "text", text: "Let me check both cities." },
      {
        type: "toolCall",
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        name: "get_weather",
        arguments: { city: "Paris", unit: "celsius" },
      },
      {
        type: "toolCall",
        id: "toolu_01BhWQ3oS4YfLzB2pJbZaX9c",
        name: "get_weather",
        arguments: { city: "Tokyo" },
      },
    ]);
    expect(partials).toEqual(['{"city":"Pa"}', '{"city":"Paris"}', '{"city":"Paris","unit":"celsius"}']);
    expect(setup.server.requests[0]!.body.tools).toEqual([
      {
        name: "get_weather",
        description: "Get the weather for a city.",
        input_schema: JSON.parse(JSON.stringify(weather.parameters)),
      },
    ]);
  });

  it("parses tool arguments split into one-character pieces (escapes and astral characters included)", async () => {
    const args = { path: "src/a.ts", content: 'const s = "quote \\" tab\t é 😀";\n'.repeat(20) };
    const json = JSON.stringify(args);
    setup = await setupWire([
      {
        kind: "stream",
        events: completeAnthropicStream(
          [anthropicSse.toolUseBlock(0, { id: "toolu_write", name: "write", json, chunkSize: 1 })],
          {
            stopReason: "tool_use",
          },
        ),
      },
    ]);
    const { events, result } = await drain(setup.provider.stream(setup.model, hello));
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(events.filter((event) => event.type === "toolcall_delta")).toHaveLength(json.length);
    expect(result.content[0]).toEqual({
      type: "toolCall",
      id: "toolu_write",
      name: "write",
      arguments: args,
    });
  });

  it("keeps thinking with its signature", async () => {
    setup = await setupWire([{ kind: "stream", events: readSseFixture(anthropicFixture("thinking.sse")) }]);
    const { events, result } = await drain(
      setup.provider.stream(setup.model, hello, { reasoning: "medium" }),
    );
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(result.content[0]).toEqual({
      type: "thinking",
      thinking: "17 * 23 = 17 * 20 + 17 * 3 = 340 + 51 = 391.",
      thinkingSignature:
        "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+Obb4xQ1F8fYqYbkPp7wM3PdVnyW3vDBQjxKGtv1T1WeoudsbDIJcXVPq6ttcJAkz2dFtiD3dRRj/MbLnY=",
    });
    expect(result.content[1]).toEqual({ type: "text", text: "17 × 23 = **391**" });
    expect(events.map((event) => event.type).slice(0, 4)).toEqual([
      "start",
      "thinking_start",
      "thinking_delta",
      "thinking_delta",
    ]);
  });

  it("keeps redacted thinking as an opaque, redacted block", async () => {
    setup = await setupWire([
      { kind: "stream", events: readSseFixture(anthropicFixture("redacted-thinking.sse")) },
    ]);
    const { events, result } = await drain(setup.provider.stream(setup.model, hello, { reasoning: "high" }));
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(result.content[0]).toEqual({
      type: "thinking",
      thinking: "",
      redacted: true,
      thinkingSignature:
        "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pLmN5kGt0aP9Wg5Z3dY",
    });
    expect(result.content[1]).toMatchObject({ type: "thinking", thinkingSignature: "EqQBCgIYAhIMsig2" });
    expect(result.content[2]).toEqual({ type: "text", text: "Done." });
  });

  it("maps cache reads and writes, pricing 1-hour writes at twice the input price", async () => {
    setup = await setupWire([
      { kind: "stream", events: readSseFixture(anthropicFixture("cache-usage.sse")) },
    ]);
    const { result } = await drain(setup.provider.stream(setup.model, hello, { cacheRetention: "long" }));
    expect(result.usage).toMatchObject({
      input: 12,
      output: 100,
      cacheRead: 20_000,
      cacheWrite: 3000,
      totalTokens: 23_112,
    });
    // Sonnet 5.5: input $2, output $10, cache read $0.10, 5-minute write $2.50, 1-hour write $4 per MTok.
    const cost = result.usage.cost;
    expect(cost.input).toBeCloseTo((12 * 2) / 1e6, 12);
    expect(cost.output).toBeCloseTo((100 * 10) / 1e6, 12);
    expect(cost.cacheRead).toBeCloseTo((20_000 * 0.1) / 1e6, 12);
    expect(cost.cacheWrite).toBeCloseTo((1000 * 2.5 + 2000 * 4) / 1e6, 12);
    expect(cost.total).toBeCloseTo(cost.input + cost.output + cost.cacheRead + cost.cacheWrite, 12);
  });

  it.each([
    ["max_tokens", "length"],
    ["model_context_window_exceeded", "length"],
    ["stop_sequence", "stop"],
    ["pause_turn", "stop"],
  ] as const)("maps stop_reason %s to %s", async (wire, expected) => {
    setup = await setupWire([
      {
        kind: "stream",
        events: completeAnthropicStream([anthropicSse.textBlock(0, "Partial answer")], { stopReason: wire }),
      },
    ]);
    const { events, result } = await drain(setup.provider.stream(setup.model, hello));
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(result.stopReason).toBe(expected);
  });

  it("ends a refusal as an error that says why, keeping the partial text", async () => {
    const events = [
      anthropicSse.messageStart(),
      ...anthropicSse.textBlock(0, "I can't help"),
      anthropicSse.messageDelta(
        "refusal",
        { output_tokens: 4 },
        { type: "refusal", category: "cyber", explanation: "This request could enable malware development." },
      ),
      anthropicSse.messageStop(),
    ];
    setup = await setupWire([{ kind: "stream", events }]);
    const { events: received, result } = await drain(setup.provider.stream(setup.model, hello));
    expect(checkStreamProtocol(received, result)).toEqual([]);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe(
      'The model refused to answer (stop_reason "refusal", category "cyber"): This request could enable malware development.',
    );
    expect(result.content).toEqual([{ type: "text", text: "I can't help" }]);
  });

  it("skips server-tool blocks it does not model and keeps the rest", async () => {
    const events = completeAnthropicStream([
      anthropicSse.textBlock(0, "Searching."),
      [
        {
          event: "content_block_start",
          data: {
            type: "content_block_start",
            index: 1,
            content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
          },
        },
        {
          event: "content_block_delta",
          data: {
            type: "content_block_delta",
            index: 1,
            delta: { type: "input_json_delta", partial_json: '{"query":"x"}' },
          },
        },
        { event: "content_block_stop", data: { type: "content_block_stop", index: 1 } },
      ],
      anthropicSse.textBlock(2, "Found it."),
    ]);
    setup = await setupWire([{ kind: "stream", events }]);
    const { events: received, result } = await drain(setup.provider.stream(setup.model, hello));
    expect(checkStreamProtocol(received, result)).toEqual([]);
    expect(result.content).toEqual([
      { type: "text", text: "Searching." },
      { type: "text", text: "Found it." },
    ]);
  });
});
