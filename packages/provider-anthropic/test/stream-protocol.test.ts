/**
 * What the provider does with parts of a stream it does not know, and with streams that break the
 * Messages API's event protocol.
 */
import type { Context } from "@arbor/ai-providers";
import {
  anthropicSse,
  checkStreamProtocol,
  completeAnthropicStream,
  type SseEvent,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { drain, setupWire, type WireSetup } from "./support/harness.js";

const ask: Context = { messages: [{ role: "user", content: "Go on.", timestamp: 1 }] };

let setup: WireSetup | undefined;
afterEach(async () => {
  await setup?.server.close();
  setup = undefined;
});

const raw = (data: Record<string, unknown>): SseEvent => ({ event: String(data.type), data });
const blockStart = (index: number, block: Record<string, unknown>) =>
  raw({ type: "content_block_start", index, content_block: block });
const blockDelta = (index: number, delta: Record<string, unknown>) =>
  raw({ type: "content_block_delta", index, delta });
const blockStop = (index: number) => raw({ type: "content_block_stop", index });

async function streamOf(events: SseEvent[]) {
  setup = await setupWire([{ kind: "stream", events }]);
  const { events: received, result } = await drain(setup.provider.stream(setup.model, ask));
  expect(checkStreamProtocol(received, result)).toEqual([]);
  return result;
}

describe("anthropic provider: parts it does not read", () => {
  it("keeps the answer and names an unknown content block in a notice", async () => {
    const result = await streamOf(
      completeAnthropicStream([
        anthropicSse.textBlock(0, "Here it is."),
        [blockStart(1, { type: "hologram", frames: 3 }), blockStop(1)],
      ]),
    );
    expect(result.stopReason).toBe("stop");
    expect(result.content).toEqual([{ type: "text", text: "Here it is." }]);
    expect(result.notices).toEqual(['Arbor could not read part of this response: content block "hologram".']);
  });

  it("ends in an error naming the unknown block when nothing else answers", async () => {
    const result = await streamOf(
      completeAnthropicStream([[blockStart(0, { type: "hologram" }), blockStop(0)]]),
    );
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain('content block "hologram"');
  });

  it("names an unknown delta inside a text block, and knowingly skips citations", async () => {
    const result = await streamOf(
      completeAnthropicStream([
        [
          blockStart(0, { type: "text", text: "" }),
          blockDelta(0, { type: "text_delta", text: "Paris is the capital." }),
          blockDelta(0, { type: "citations_delta", citation: { type: "web_search_result_location" } }),
          blockDelta(0, { type: "emphasis_delta", level: 2 }),
          blockStop(0),
        ],
      ]),
    );
    expect(result.content).toEqual([{ type: "text", text: "Paris is the capital." }]);
    expect(result.notices).toEqual([
      'Arbor could not read part of this response: delta "emphasis_delta" in a text block.',
    ]);
  });

  it("names an unknown top-level event", async () => {
    const [start, ...rest] = completeAnthropicStream([anthropicSse.textBlock(0, "Hi.")]);
    const result = await streamOf([start!, raw({ type: "message_annotation", note: "x" }), ...rest]);
    expect(result.content).toEqual([{ type: "text", text: "Hi." }]);
    expect(result.notices).toEqual([
      'Arbor could not read part of this response: stream event "message_annotation".',
    ]);
  });

  it("reads text, thinking, redacted thinking and a tool call with its input from message_start", async () => {
    const start = anthropicSse.messageStart({ id: "msg_whole" });
    const message = (start.data as { message: Record<string, unknown> }).message;
    message.content = [
      { type: "thinking", thinking: "Weather first.", signature: "sig-1" },
      { type: "redacted_thinking", data: "opaque" },
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
    ];
    message.stop_reason = "tool_use";
    message.usage = { input_tokens: 40, output_tokens: 30, cache_read_input_tokens: 5 };
    const result = await streamOf([start, anthropicSse.messageStop()]);
    expect(result.content).toEqual([
      { type: "thinking", thinking: "Weather first.", thinkingSignature: "sig-1" },
      { type: "thinking", thinking: "", redacted: true, thinkingSignature: "opaque" },
      { type: "text", text: "Checking." },
      { type: "toolCall", id: "toolu_1", name: "get_weather", arguments: { city: "Paris" } },
    ]);
    expect(result.stopReason).toBe("toolUse");
    expect(result.usage).toMatchObject({ input: 40, output: 30, cacheRead: 5, cacheWrite: 0 });
  });
});

describe("anthropic provider: streams that break the protocol end in an error", () => {
  const cut = (json: string) => [
    blockStart(0, { type: "tool_use", id: "toolu_cut", name: "write", input: {} }),
    blockDelta(0, { type: "input_json_delta", partial_json: json }),
  ];

  it.each([
    [
      "a second message_start with another id, before anything was read",
      [anthropicSse.messageStart({ id: "msg_a" }), anthropicSse.messageStart({ id: "msg_b" })],
      "a second message_start (msg_b) came after msg_a had begun",
    ],
    [
      "the same message_start again after content",
      [
        anthropicSse.messageStart({ id: "msg_a" }),
        ...anthropicSse.textBlock(0, "Hi."),
        anthropicSse.messageStart({ id: "msg_a" }),
      ],
      "a second message_start (msg_a) came after msg_a had begun",
    ],
    [
      "a message_start after message_stop",
      [
        ...completeAnthropicStream([anthropicSse.textBlock(0, "One.")]),
        anthropicSse.messageStart({ id: "msg_b" }),
      ],
      "a message_start event came after message_stop",
    ],
    [
      "message_stop inside a tool call",
      [anthropicSse.messageStart(), ...cut('{"path":"a.ts","content":"par'), anthropicSse.messageStop()],
      "message_stop came while content block 0 was open",
    ],
    [
      "a delta for a block that was never started",
      [anthropicSse.messageStart(), blockDelta(3, { type: "text_delta", text: "lost" })],
      "a text_delta came for content block 3, which is not open",
    ],
    [
      "a block started inside another",
      [anthropicSse.messageStart(), ...cut('{"pa'), blockStart(1, { type: "text", text: "" })],
      "content block 1 started while block 0 was open",
    ],
    [
      "a text delta inside a tool call",
      [
        anthropicSse.messageStart(),
        ...cut('{"path":'),
        blockDelta(0, { type: "text_delta", text: '"b.ts"}' }),
      ],
      "a text_delta came in content block 0, a tool_use block",
    ],
  ] as const)("%s", async (_name, events, detail) => {
    const tail = [anthropicSse.messageDelta("tool_use"), anthropicSse.messageStop()];
    const result = await streamOf([...events, ...tail]);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe(
      `The Anthropic API stream broke its protocol (${detail}), so the response is incomplete and ends as an error.`,
    );
    expect(setup!.server.requests).toHaveLength(1);
  });
});
