import { type AssistantEvent, AssistantStreamWriter, type Model } from "@arbor/ai-providers";
import { checkStreamProtocol } from "@internal/conformance";
import { describe, expect, it } from "vitest";
import { type ToolCallDeltaPart, ToolCallSequencer } from "../src/chat/tool-call-sequencer.js";
import { GENERIC_COMPAT } from "../src/compat.js";
import { reasoningEffort } from "../src/reasoning.js";
import { splitAfterEvents } from "../src/sse-chunks.js";

const model: Model = {
  id: "m",
  name: "m",
  provider: "p",
  api: "openai-completions",
  reasoning: true,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1000,
  maxTokens: 100,
};

/** Feeds parts through a sequencer and returns the finished message and the event trace. */
async function run(parts: ToolCallDeltaPart[]) {
  const writer = new AssistantStreamWriter(model);
  const trace: string[] = [];
  const sequencer = new ToolCallSequencer(writer, (index) => `generated_${index}`);
  const events: AssistantEvent[] = [];
  const reading = (async () => {
    for await (const event of writer.stream) events.push(event);
  })();
  for (const part of parts) {
    sequencer.push(part);
    trace.push(`${part.index}:${writer.openToolCall?.id ?? "-"}`);
  }
  sequencer.finish();
  const result = writer.done();
  await reading;
  expect(checkStreamProtocol(events, result)).toEqual([]);
  return { result, trace, events };
}

describe("ToolCallSequencer", () => {
  it("switches to the next call as soon as the open call's JSON is complete", async () => {
    const { result, trace } = await run([
      { index: 0, id: "a", name: "f", arguments: "" },
      { index: 0, arguments: '{"x":' },
      { index: 0, arguments: "1}" },
      { index: 1, id: "b", name: "g", arguments: '{"y"' },
      { index: 1, arguments: ":2}" },
    ]);
    expect(trace).toEqual(["0:a", "0:a", "0:a", "1:b", "1:b"]);
    expect(result.content).toEqual([
      { type: "toolCall", id: "a", name: "f", arguments: { x: 1 } },
      { type: "toolCall", id: "b", name: "g", arguments: { y: 2 } },
    ]);
  });

  it("buffers a call that starts while the open one is unfinished, and flushes it in order", async () => {
    const { result, trace } = await run([
      { index: 0, id: "a", name: "f" },
      { index: 1, id: "b", name: "g" },
      { index: 2, id: "c", name: "h" },
      { index: 1, arguments: '{"b":"}{"' },
      { index: 0, arguments: '{"a":[1,' },
      { index: 2, arguments: '{"c":true}' },
      { index: 0, arguments: "2]}" },
      { index: 1, arguments: "}" },
    ]);
    // Call 0 stays open until its JSON closes; then the complete calls 1 and 2 follow.
    expect(trace.slice(0, 6).every((step) => step.endsWith(":a"))).toBe(true);
    expect(result.content).toEqual([
      { type: "toolCall", id: "a", name: "f", arguments: { a: [1, 2] } },
      { type: "toolCall", id: "b", name: "g", arguments: { b: "}{" } },
      { type: "toolCall", id: "c", name: "h", arguments: { c: true } },
    ]);
  });

  it("generates ids for calls without one and takes a late id or name", async () => {
    const { result } = await run([
      { index: 0, arguments: '{"q":' },
      { index: 0, id: "late", name: "search", arguments: '"x"}' },
      { index: 1, name: "other", arguments: "{}" },
    ]);
    expect(result.content).toEqual([
      { type: "toolCall", id: "late", name: "search", arguments: { q: "x" } },
      { type: "toolCall", id: "generated_1", name: "other", arguments: {} },
    ]);
  });
});

describe("reasoningEffort", () => {
  const compat = { ...GENERIC_COMPAT, supportsReasoningEffort: true };
  it("clamps to the model's efforts and maps off to the least reasoning", () => {
    const efforts = { ...compat, reasoningEfforts: ["none", "low", "medium", "high", "xhigh"] };
    expect(reasoningEffort(model, efforts, "off")).toBe("none");
    expect(reasoningEffort(model, efforts, "minimal")).toBe("low");
    expect(reasoningEffort(model, efforts, "xhigh")).toBe("xhigh");
    expect(reasoningEffort(model, compat, "xhigh")).toBe("high");
    expect(reasoningEffort(model, compat, "off")).toBe("minimal");
    expect(reasoningEffort(model, { ...compat, reasoningEfforts: ["low", "high"] }, "off")).toBeUndefined();
    expect(reasoningEffort(model, compat, undefined)).toBeUndefined();
    expect(reasoningEffort({ ...model, reasoning: false }, compat, "high")).toBeUndefined();
    expect(reasoningEffort(model, GENERIC_COMPAT, "high")).toBeUndefined();
  });
});

describe("splitAfterEvents", () => {
  async function split(chunks: string[]): Promise<string[]> {
    const encoder = new TextEncoder();
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    const out: string[] = [];
    const decoder = new TextDecoder();
    for await (const piece of source.pipeThrough(
      splitAfterEvents(),
    ) as unknown as AsyncIterable<Uint8Array>) {
      out.push(decoder.decode(piece));
    }
    return out;
  }

  it("hands over one event per chunk, leaving partial events and CRLF streams whole", async () => {
    expect(await split(["data: 1\n\ndata: 2\n\ndata: 3", "\n\n"])).toEqual([
      "data: 1\n\n",
      "data: 2\n\n",
      "data: 3",
      "\n\n",
    ]);
    expect(await split(["event: a\ndata: {}\n\nevent: b\n", "data: {}\n\n"])).toEqual([
      "event: a\ndata: {}\n\n",
      "event: b\n",
      "data: {}\n\n",
    ]);
    expect(await split(["data: 1\r\n\r\ndata: 2\r\n\r\n"])).toEqual(["data: 1\r\n\r\ndata: 2\r\n\r\n"]);
  });
});
