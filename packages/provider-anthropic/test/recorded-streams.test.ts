/**
 * Responses recorded from Anthropic's API (`fixtures/streams/anthropic`, with provenance) that Arbor
 * once misread, replayed over the local wire server.
 */
import type { Context } from "@arbor/ai-providers";
import { checkStreamProtocol } from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { drain, setupWire, type WireSetup } from "./support/harness.js";
import { recordedResponse, recordedResponses } from "./support/recorded.js";

const ask: Context = { messages: [{ role: "user", content: "Go on.", timestamp: 1 }] };

let setup: WireSetup | undefined;
afterEach(async () => {
  await setup?.server.close();
  setup = undefined;
});

interface WireToolUse {
  type: string;
  id: string;
  name: string;
  input: Record<string, unknown>;
}

describe("anthropic provider: recorded streams", () => {
  it("reads a response delivered whole in message_start: its tool call, stop reason and usage", async () => {
    // Lines 168–193: thirteen responses, each a message_start holding a tool_use block, stop_reason
    // "tool_use" and usage, then message_stop — no content_block_* and no message_delta.
    const responses = recordedResponses("anthropic-programmatic-tool-calling.1.chunks.txt", [168, 193]);
    expect(responses).toHaveLength(13);
    setup = await setupWire(responses.map((events) => ({ kind: "stream", events })));
    for (const events of responses) {
      const message = (events[0]!.data as { message: { id: string; content: WireToolUse[] } }).message;
      const call = message.content[0]!;
      const { events: received, result } = await drain(setup.provider.stream(setup.model, ask));
      expect(checkStreamProtocol(received, result)).toEqual([]);
      expect(result.content).toEqual([
        { type: "toolCall", id: call.id, name: "rollDie", arguments: call.input },
      ]);
      expect(result.stopReason).toBe("toolUse");
      expect(result.responseId).toBe(message.id);
      expect(result.usage).toMatchObject({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    }
  });

  it("ends a message spliced into a cut tool call as an error, without retrying it", async () => {
    // A tool call's JSON is cut at `{"value":"Spark` and a new message_start follows.
    setup = await setupWire([
      { kind: "stream", events: recordedResponse("anthropic-spliced-message-start.chunks.txt") },
    ]);
    const { events, result } = await drain(setup.provider.stream(setup.model, ask));
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe(
      "The Anthropic API stream broke its protocol (a new message_start (msg_second) came while content " +
        "block 1 of msg_first was open), so the response is incomplete and ends as an error.",
    );
    // What came before the break is kept; the cut call is in an errored message, which no agent runs.
    expect(result.content[0]).toEqual({
      type: "thinking",
      thinking: "I will call the tool.",
      thinkingSignature: "sig-first",
    });
    expect(result.content.map((block) => block.type)).toEqual(["thinking", "toolCall"]);
    expect(JSON.stringify(result.content)).not.toContain("Sparkle Day");
    expect(setup.server.requests).toHaveLength(1);
  });

  it("reads a repeated identical message_start as one message", async () => {
    setup = await setupWire([
      { kind: "stream", events: recordedResponse("anthropic-duplicate-message-start.chunks.txt") },
    ]);
    const { events, result } = await drain(setup.provider.stream(setup.model, ask));
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(result.content).toEqual([{ type: "text", text: "Hello, World!" }]);
    expect(result.stopReason).toBe("stop");
    expect(result.responseId).toBe("msg_dup");
    expect(result.usage).toMatchObject({ input: 17, output: 227 });
    expect(events.filter((event) => event.type === "start")).toHaveLength(1);
  });

  it("names the model a fallback block says served the reply, and prices usage as that model", async () => {
    // Asked for claude-fable-5, served by claude-opus-4-8 (in the catalog: $5 input, $25 output per MTok).
    setup = await setupWire([{ kind: "stream", events: recordedResponse("anthropic-fallback.chunks.txt") }]);
    const { events, result } = await drain(setup.provider.stream(setup.model, ask));
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(result.model).toBe("claude-opus-4-8");
    expect(result.content).toEqual([
      { type: "text", text: "The printing press was invented by Johannes Gutenberg around 1440." },
    ]);
    expect(result.notices).toBeUndefined();
    expect(result.usage).toMatchObject({ input: 412, output: 264, cacheRead: 0, cacheWrite: 0 });
    expect(result.usage.cost.input).toBeCloseTo((412 * 5) / 1e6, 12);
    expect(result.usage.cost.output).toBeCloseTo((264 * 25) / 1e6, 12);
    expect(result.usage.cost.total).toBeCloseTo((412 * 5 + 264 * 25) / 1e6, 12);
  });

  it("keeps the requested model's prices when the fallback model is not in the catalog", async () => {
    const events = recordedResponse("anthropic-fallback.chunks.txt").map((event) => {
      const data = event.data as { type: string; content_block?: { type: string } };
      if (data.type !== "content_block_start" || data.content_block?.type !== "fallback") return event;
      const block = { ...data.content_block, to: { model: "claude-unreleased-9" } };
      return { ...event, data: { ...data, content_block: block } };
    });
    setup = await setupWire([{ kind: "stream", events }]);
    const { result } = await drain(setup.provider.stream(setup.model, ask));
    expect(result.model).toBe("claude-unreleased-9");
    // Claude Sonnet 5.5 (requested): $2 input, $10 output per MTok.
    expect(result.usage.cost.total).toBeCloseTo((412 * 2 + 264 * 10) / 1e6, 12);
  });

  it("reports a compaction block it cannot read as a notice beside the answer", async () => {
    setup = await setupWire([
      { kind: "stream", events: recordedResponse("anthropic-compaction.1.chunks.txt") },
    ]);
    const { events, result } = await drain(setup.provider.stream(setup.model, ask));
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(result.stopReason).toBe("stop");
    expect(result.content.map((block) => block.type)).toEqual(["text"]);
    expect(result.notices).toEqual([
      'Arbor could not read part of this response: content block "compaction".',
    ]);
  });

  it("skips server-tool blocks and citations knowingly: no notice, the model's text kept", async () => {
    setup = await setupWire([
      { kind: "stream", events: recordedResponse("anthropic-web-search-tool.1.chunks.txt") },
      { kind: "stream", events: recordedResponse("anthropic-mcp.1.chunks.txt") },
    ]);
    for (const skipped of [
      ["server_tool_use", "web_search_tool_result", "citations_delta"],
      ["mcp_tool_use", "mcp_tool_result"],
    ]) {
      const { events, result } = await drain(setup.provider.stream(setup.model, ask));
      expect(checkStreamProtocol(events, result)).toEqual([]);
      expect(result.stopReason, skipped.join()).toBe("stop");
      expect(result.notices, skipped.join()).toBeUndefined();
      expect(result.content.every((block) => block.type === "text")).toBe(true);
      expect(result.content.length).toBeGreaterThan(0);
    }
  });
});
