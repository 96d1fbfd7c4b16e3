import { describe, expect, it } from "vitest";
import { createAssistantStream } from "../src/assistant-stream.js";
import { ArborError, StreamAlreadyIteratedError, StreamProtocolError } from "../src/errors.js";
import { AssistantStreamWriter, createProviderStream } from "../src/stream-writer.js";
import { collect, testModel } from "./helpers.js";

describe("AssistantStreamWriter", () => {
  it("emits a balanced event sequence with content indexes and in-place partials", async () => {
    const writer = new AssistantStreamWriter(testModel());
    writer.thinking("Let me ");
    writer.thinking("think.");
    writer.thinkingSignature("sig-1");
    writer.text("Hello");
    writer.text(" world");
    writer.startToolCall("call_1", "read");
    writer.toolCallDelta('{"pa');
    expect(writer.message.content[2]).toMatchObject({ arguments: {} });
    writer.toolCallDelta('th": "a.t');
    expect(writer.message.content[2]).toMatchObject({ arguments: { path: "a.t" } });
    writer.toolCallDelta('s"}');
    writer.usage({ input: 100, output: 20, cacheRead: 50 });
    const final = writer.done();

    const events = await collect(writer.stream);
    expect(events.map((event) => event.type)).toEqual([
      "start",
      "thinking_start",
      "thinking_delta",
      "thinking_delta",
      "thinking_end",
      "text_start",
      "text_delta",
      "text_delta",
      "text_end",
      "toolcall_start",
      "toolcall_delta",
      "toolcall_delta",
      "toolcall_delta",
      "toolcall_end",
      "done",
    ]);
    for (const event of events) expect(event.partial).toBe(final);
    expect(
      events.filter((e) => "contentIndex" in e).map((e) => (e as { contentIndex: number }).contentIndex),
    ).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
    expect(final.stopReason).toBe("toolUse");
    expect(final.content).toEqual([
      { type: "thinking", thinking: "Let me think.", thinkingSignature: "sig-1" },
      { type: "text", text: "Hello world" },
      { type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.ts" } },
    ]);
    expect(final.usage).toMatchObject({
      input: 100,
      output: 20,
      cacheRead: 50,
      cacheWrite: 0,
      totalTokens: 170,
    });
    expect(final.usage.cost.total).toBeCloseTo((100 * 2 + 20 * 10 + 50 * 0.5) / 1e6, 12);
    expect(await writer.stream.result()).toBe(final);
  });

  it("closes open blocks on failure, keeping partial content", async () => {
    const writer = new AssistantStreamWriter(testModel());
    writer.text("partial ans");
    writer.fail("aborted", "Request aborted");
    const events = await collect(writer.stream);
    expect(events.map((e) => e.type)).toEqual(["start", "text_start", "text_delta", "text_end", "error"]);
    const result = await writer.stream.result();
    expect(result).toMatchObject({ stopReason: "aborted", errorMessage: "Request aborted" });
    expect(result.content).toEqual([{ type: "text", text: "partial ans" }]);
  });

  it("keeps a malformed tool call with empty arguments instead of failing", async () => {
    const writer = new AssistantStreamWriter(testModel());
    writer.startToolCall("c", "bash");
    writer.toolCallDelta('{"command": "ls');
    const message = writer.done();
    expect(message.content[0]).toMatchObject({ arguments: { command: "ls" } });
    const writer2 = new AssistantStreamWriter(testModel());
    writer2.startToolCall("c", "bash");
    writer2.toolCallDelta("[1, 2]");
    expect(writer2.done().content[0]).toMatchObject({ arguments: {} });
  });

  it("throws typed protocol errors on misuse", () => {
    const writer = new AssistantStreamWriter(testModel());
    expect(() => writer.toolCallDelta("{}")).toThrow(StreamProtocolError);
    writer.done();
    try {
      writer.text("late");
      expect.unreachable();
    } catch (error) {
      expect(ArborError.isInstance(error)).toBe(true);
      expect((error as ArborError).code).toBe("stream_protocol");
    }
    // fail() after the end is a no-op: a provider's late error cannot break the protocol.
    expect(writer.fail("error", "late").stopReason).toBe("stop");
  });
});

describe("createAssistantStream", () => {
  it("buffers events pushed before iteration and delivers them once", async () => {
    const stream = createAssistantStream();
    const writer = new AssistantStreamWriter(testModel(), stream);
    writer.text("hi");
    writer.done();
    expect(stream.ended).toBe(true);
    const events = await collect(stream);
    expect(events).toHaveLength(5);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(StreamAlreadyIteratedError);
    expect(() => stream.push({ type: "start", partial: writer.message })).toThrow(StreamProtocolError);
  });

  it("wakes a waiting consumer as events arrive", async () => {
    const writer = new AssistantStreamWriter(testModel());
    const seen: string[] = [];
    const consumer = (async () => {
      for await (const event of writer.stream) seen.push(event.type);
    })();
    await new Promise((resolve) => setTimeout(resolve, 1));
    writer.text("a");
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(seen).toEqual(["start", "text_start", "text_delta"]);
    writer.done();
    await consumer;
    expect(seen.at(-1)).toBe("done");
  });
});

describe("createProviderStream", () => {
  it("turns a throwing producer into an error message, never a throw", async () => {
    const stream = createProviderStream(testModel(), undefined, async ({ writer }) => {
      writer.text("so far");
      throw new Error("socket hang up");
    });
    const events = await collect(stream);
    expect(events.at(-1)?.type).toBe("error");
    const result = await stream.result();
    expect(result).toMatchObject({ stopReason: "error", errorMessage: "socket hang up" });
    expect(result.content).toEqual([{ type: "text", text: "so far" }]);
  });

  it("reports aborted when the signal fired, and ends a producer that forgot to", async () => {
    const controller = new AbortController();
    const stream = createProviderStream(testModel(), { signal: controller.signal }, async ({ writer }) => {
      writer.text("x");
      controller.abort();
      throw new DOMException("This operation was aborted", "AbortError");
    });
    expect(await stream.result()).toMatchObject({ stopReason: "aborted", errorMessage: "Request aborted" });

    const quiet = createProviderStream(testModel(), undefined, ({ writer }) => writer.text("done"));
    expect(await quiet.result()).toMatchObject({
      stopReason: "stop",
      content: [{ type: "text", text: "done" }],
    });

    const preAborted = AbortSignal.abort("user pressed Esc");
    const never = createProviderStream(testModel(), { signal: preAborted }, () => {
      throw new Error("must not run");
    });
    expect(await never.result()).toMatchObject({
      stopReason: "aborted",
      errorMessage: "Request aborted: user pressed Esc",
    });
  });

  describe("parts the provider cannot read", () => {
    it("turns a stream with no answer but unread parts into an error naming them, never a silent stop", async () => {
      const writer = new AssistantStreamWriter(testModel());
      writer.thinking("Let me think.");
      writer.unreadable('content part "audio"');
      writer.unreadable('content part "audio"');
      const final = writer.done("stop");
      expect(final.stopReason).toBe("error");
      expect(final.errorMessage).toMatch(
        /no answer Arbor could read: it carried content part "audio", which/,
      );
      expect(final.notices).toBeUndefined();
      expect(final.content).toEqual([{ type: "thinking", thinking: "Let me think." }]);
      const events = await collect(writer.stream);
      expect(events.at(-1)?.type).toBe("error");
    });

    it("keeps an answer and lists what was not read as notices", () => {
      const writer = new AssistantStreamWriter(testModel());
      writer.text("4");
      writer.unreadable('content block "citations"');
      writer.unreadable('content block "fallback"');
      const final = writer.done();
      expect(final.stopReason).toBe("stop");
      expect(final.notices).toEqual([
        'Arbor could not read part of this response: content block "citations".',
        'Arbor could not read part of this response: content block "fallback".',
      ]);
    });

    it("keeps notices on a failure too, and a clean stream has none", () => {
      const failing = new AssistantStreamWriter(testModel());
      failing.text("partial");
      failing.unreadable('event "x"');
      expect(failing.fail("error", "socket hang up").notices).toHaveLength(1);
      const clean = new AssistantStreamWriter(testModel());
      clean.text("hi");
      expect("notices" in clean.done()).toBe(false);
    });
  });
});
