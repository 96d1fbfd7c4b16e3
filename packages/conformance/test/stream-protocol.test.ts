import { type AssistantEvent, AssistantStreamWriter, type Model } from "@arbor/ai-providers";
import { describe, expect, it } from "vitest";
import { checkStreamProtocol } from "../src/index.js";

const model: Model = {
  id: "m",
  name: "m",
  provider: "p",
  api: "scripted",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 100,
  maxTokens: 10,
};

async function record(build: (writer: AssistantStreamWriter) => void) {
  const writer = new AssistantStreamWriter(model);
  build(writer);
  const events: AssistantEvent[] = [];
  for await (const event of writer.stream) events.push(event);
  return { events, result: await writer.stream.result() };
}

describe("checkStreamProtocol", () => {
  it("accepts a correct stream", async () => {
    const { events, result } = await record((w) => {
      w.text("hi");
      w.startToolCall("c1", "t");
      w.toolCallDelta('{"a":1}');
      w.done();
    });
    expect(checkStreamProtocol(events, result)).toEqual([]);
  });

  it("catches a missing start, a missing end, a second terminal event and wrong indexes", async () => {
    const { events, result } = await record((w) => {
      w.text("hi");
      w.done();
    });
    expect(checkStreamProtocol(events.slice(1), result)).toContain(
      'the first event is "text_start", not "start"',
    );
    const withoutEnd = events.filter((event) => event.type !== "text_end");
    expect(checkStreamProtocol(withoutEnd, result).join("\n")).toMatch(/text block 0 was never ended/);
    const doubled = [...events, events[events.length - 1]!];
    expect(checkStreamProtocol(doubled, result).join("\n")).toMatch(/exactly one terminal event, got 2/);
    const shifted = events.map((event) => ("contentIndex" in event ? { ...event, contentIndex: 3 } : event));
    expect(checkStreamProtocol(shifted as AssistantEvent[], result).join("\n")).toMatch(
      /contentIndex 3, expected 0/,
    );
  });

  it("catches deltas that do not add up to the content", async () => {
    const { events, result } = await record((w) => {
      w.text("hello");
      w.startToolCall("c1", "t");
      w.toolCallDelta('{"a":1}');
      w.done();
    });
    const tampered = events.map((event) =>
      event.type === "text_delta"
        ? { ...event, delta: "HELLO" }
        : event.type === "toolcall_delta"
          ? { ...event, delta: '{"a":2}' }
          : event,
    );
    const problems = checkStreamProtocol(tampered as AssistantEvent[], result).join("\n");
    expect(problems).toMatch(/text_end 0: deltas join to "HELLO"/);
    expect(problems).toMatch(/tool call 1: deltas parse to/);
  });

  it("catches a wrong result, a failure without a message and negative usage", async () => {
    const { events, result } = await record((w) => {
      w.text("x");
      w.fail("error", "boom");
    });
    const other = { ...result, errorMessage: undefined, usage: { ...result.usage, input: -1 } };
    const problems = checkStreamProtocol(events, other).join("\n");
    expect(problems).toMatch(/result\(\) is not the error event's message/);
    expect(problems).toMatch(/a failed message has no errorMessage/);
    expect(problems).toMatch(/usage.input is -1/);
  });
});
