import { readFileSync } from "node:fs";

/**
 * Builders for the Anthropic Messages API stream as it goes over the wire: named SSE events whose JSON
 * carries the same `type` (message_start, content_block_start / _delta / _stop, message_delta,
 * message_stop, ping, error), in the shapes of the API reference.
 */

/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: unknown;
}

/** Usage counters as `message_start` / `message_delta` send them. */
export interface AnthropicWireUsage {
  input_tokens?: number | null;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number } | null;
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let index = 0; index < text.length; index += size) out.push(text.slice(index, index + size));
  return out;
}

const event = (name: string, data: Record<string, unknown>): SseEvent => ({
  event: name,
  data: { type: name, ...data },
});

/** Event builders. */
export const anthropicSse = {
  messageStart(options: { id?: string; model?: string; usage?: AnthropicWireUsage } = {}): SseEvent {
    return event("message_start", {
      message: {
        id: options.id ?? "msg_01TestStream",
        type: "message",
        role: "assistant",
        content: [],
        model: options.model ?? "claude-sonnet-5-5",
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 25,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          ...options.usage,
        },
      },
    });
  },
  ping(): SseEvent {
    return event("ping", {});
  },
  textBlock(index: number, text: string, chunkSize = 8): SseEvent[] {
    return [
      event("content_block_start", { index, content_block: { type: "text", text: "" } }),
      ...pieces(text, chunkSize).map((piece) =>
        event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }),
      ),
      event("content_block_stop", { index }),
    ];
  },
  toolUseBlock(
    index: number,
    call: { id: string; name: string; json: string; chunkSize?: number },
  ): SseEvent[] {
    return [
      event("content_block_start", {
        index,
        content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
      }),
      ...pieces(call.json, call.chunkSize ?? 8).map((piece) =>
        event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }),
      ),
      event("content_block_stop", { index }),
    ];
  },
  thinkingBlock(index: number, thinking: string, signature: string, chunkSize = 8): SseEvent[] {
    return [
      event("content_block_start", {
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      }),
      ...pieces(thinking, chunkSize).map((piece) =>
        event("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }),
      ),
      event("content_block_delta", { index, delta: { type: "signature_delta", signature } }),
      event("content_block_stop", { index }),
    ];
  },
  redactedThinkingBlock(index: number, data: string): SseEvent[] {
    return [
      event("content_block_start", { index, content_block: { type: "redacted_thinking", data } }),
      event("content_block_stop", { index }),
    ];
  },
  messageDelta(
    stopReason: string,
    usage: AnthropicWireUsage = { output_tokens: 12 },
    stopDetails: Record<string, unknown> | null = null,
  ): SseEvent {
    return event("message_delta", {
      delta: { stop_reason: stopReason, stop_sequence: null, stop_details: stopDetails, container: null },
      usage,
    });
  },
  messageStop(): SseEvent {
    return event("message_stop", {});
  },
  error(type: string, message: string): SseEvent {
    return { event: "error", data: { type: "error", error: { type, message } } };
  },
};

/** A whole successful stream: start, the blocks, the stop reason, stop. */
export function completeAnthropicStream(
  blocks: SseEvent[][],
  options: {
    stopReason?: string;
    usage?: AnthropicWireUsage;
    finalUsage?: AnthropicWireUsage;
    model?: string;
  } = {},
): SseEvent[] {
  return [
    anthropicSse.messageStart({ usage: options.usage, model: options.model }),
    anthropicSse.ping(),
    ...blocks.flat(),
    anthropicSse.messageDelta(options.stopReason ?? "end_turn", options.finalUsage ?? { output_tokens: 12 }),
    anthropicSse.messageStop(),
  ];
}

/** Encodes events as the SSE wire text. */
export function encodeSseEvent(item: SseEvent): string {
  return `event: ${item.event}\ndata: ${JSON.stringify(item.data)}\n\n`;
}

/** Reads a `.sse` fixture (events separated by blank lines, each `event:` + `data:`). */
export function readSseFixture(path: string | URL): SseEvent[] {
  const text = readFileSync(path, "utf8").replace(/\r\n/g, "\n");
  const events: SseEvent[] = [];
  for (const chunk of text.split(/\n\n+/)) {
    const lines = chunk.split("\n").filter((line) => line.length > 0 && !line.startsWith(":"));
    if (lines.length === 0) continue;
    const name = lines
      .find((line) => line.startsWith("event:"))
      ?.slice(6)
      .trim();
    const data = lines
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    if (name === undefined) throw new Error(`SSE fixture ${String(path)}: an event without a name: ${chunk}`);
    events.push({ event: name, data: JSON.parse(data) as unknown });
  }
  return events;
}

/** The URL of a recorded Anthropic stream in `src/wire/fixtures/anthropic` (`text.sse`, `thinking.sse`, …). */
export function anthropicFixture(name: string): URL {
  return new URL(`./fixtures/anthropic/${name}`, import.meta.url);
}
