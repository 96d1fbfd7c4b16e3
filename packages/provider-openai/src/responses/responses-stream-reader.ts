import type { AssistantStreamWriter, StopReason, UsageUpdate } from "@arbor/ai-providers";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { WireFailure } from "../failure.js";
import { encodeTextSignature, joinToolCallId } from "./convert-input.js";

/** Usage as the Responses API reports it. */
interface ResponsesUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null;
}

/**
 * Maps Responses usage without double counting: `input_tokens` includes cached tokens (and cache
 * writes), so `input = input_tokens - cached - written`, `cacheRead = cached`; `output_tokens` already
 * includes the reasoning tokens.
 */
export function responsesUsage(usage: ResponsesUsage): UsageUpdate {
  const cacheRead = usage.input_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage.input_tokens_details?.cache_write_tokens ?? 0;
  const input = Math.max(0, (usage.input_tokens ?? 0) - cacheRead - cacheWrite);
  const output = usage.output_tokens ?? 0;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite };
}

/** The output item whose block is open. */
type OpenItem =
  | { kind: "reasoning"; id: string; parts: number; streamed: boolean }
  | { kind: "message"; id: string; streamed: boolean }
  | { kind: "function_call"; id: string; streamed: boolean }
  | { kind: "other"; id: string };

interface Item {
  id?: string;
  type?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  phase?: string | null;
  summary?: { text?: string }[];
  content?: { type?: string; text?: string; refusal?: string }[];
}

/**
 * Feeds Responses API events into an {@link AssistantStreamWriter}. Output items stream one after
 * another, each as one block: `reasoning` → thinking (summary parts joined by a blank line, the item
 * kept as the signature), `message` → text (its id kept as the text signature), `function_call` → a
 * tool call with id `<call_id>|<item id>`. `response.completed` ends with `stop` / `toolUse`,
 * `response.incomplete` with `length` (`max_output_tokens`), `response.failed` and `error` events fail.
 */
export class ResponsesStreamReader {
  private open: OpenItem | undefined;
  private finished: Extract<StopReason, "stop" | "length" | "toolUse"> | undefined;

  constructor(
    private readonly writer: AssistantStreamWriter,
    private readonly label: string,
  ) {}

  /** Handles one event. @throws {WireFailure} for `error` and `response.failed` events. */
  push(event: ResponseStreamEvent): void {
    const writer = this.writer;
    switch (event.type) {
      case "response.created":
      case "response.in_progress":
        if (event.response?.id && writer.message.responseId === undefined)
          writer.responseId(event.response.id);
        return;
      case "response.output_item.added":
        this.startItem(event.item as Item);
        return;
      case "response.reasoning_summary_part.added": {
        const open = this.ensureReasoning(event.item_id);
        if (open.parts > 0) writer.thinking("\n\n");
        open.parts++;
        return;
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const open = this.ensureReasoning(event.item_id);
        if (open.parts === 0) open.parts = 1;
        open.streamed = true;
        writer.thinking(event.delta);
        return;
      }
      case "response.output_text.delta":
      case "response.refusal.delta": {
        const open = this.ensureMessage(event.item_id);
        open.streamed = true;
        writer.text(event.delta);
        return;
      }
      case "response.function_call_arguments.delta": {
        const open = this.ensureFunctionCall(event.item_id);
        open.streamed = true;
        writer.toolCallDelta(event.delta);
        return;
      }
      case "response.function_call_arguments.done": {
        const open = this.ensureFunctionCall(event.item_id);
        if (!open.streamed) writer.toolCallDelta(event.arguments);
        open.streamed = true;
        return;
      }
      case "response.output_item.done":
        this.endItem(event.item as Item);
        return;
      case "response.completed":
        this.usage(event.response?.usage);
        this.finished = "stop";
        return;
      case "response.incomplete": {
        this.usage(event.response?.usage);
        const reason = event.response?.incomplete_details?.reason;
        if (reason === "content_filter") {
          throw new WireFailure(
            `${this.label} stopped the response: its content filter flagged it (incomplete: content_filter).`,
            { code: "content_filter" },
          );
        }
        this.finished = "length";
        return;
      }
      case "response.failed": {
        this.usage(event.response?.usage);
        const error = event.response?.error;
        const code = error?.code ?? undefined;
        throw new WireFailure(
          `${this.label} response failed${code ? ` (${code})` : ""}: ${error?.message ?? "no reason given"}`,
          { code },
        );
      }
      case "error": {
        const code = event.code ?? undefined;
        throw new WireFailure(`${this.label} stream error${code ? ` (${code})` : ""}: ${event.message}`, {
          code,
        });
      }
      default:
        return;
    }
  }

  /**
   * Ends the message after the last event.
   *
   * @throws {WireFailure} when the stream ended before `response.completed` (the connection was cut).
   */
  end(): void {
    this.closeOpen();
    if (this.finished === undefined) {
      throw new WireFailure(
        `${this.label} stream ended before the response was complete (no response.completed).`,
      );
    }
    const hasToolCall = this.writer.message.content.some((block) => block.type === "toolCall");
    this.writer.done(this.finished === "length" ? "length" : hasToolCall ? "toolUse" : "stop");
  }

  private usage(usage: ResponsesUsage | null | undefined): void {
    if (usage) this.writer.usage(responsesUsage(usage));
  }

  private startItem(item: Item): void {
    this.closeOpen();
    const id = item.id ?? "";
    switch (item.type) {
      case "reasoning":
        this.writer.startThinking();
        this.open = { kind: "reasoning", id, parts: 0, streamed: false };
        return;
      case "message":
        this.writer.startText();
        this.open = { kind: "message", id, streamed: false };
        return;
      case "function_call": {
        this.writer.startToolCall(joinToolCallId(item.call_id ?? id, item.id), item.name ?? "");
        const open: OpenItem = { kind: "function_call", id, streamed: false };
        this.open = open;
        if (item.arguments) {
          this.writer.toolCallDelta(item.arguments);
          open.streamed = true;
        }
        return;
      }
      default:
        this.open = { kind: "other", id };
    }
  }

  private endItem(item: Item): void {
    const open = this.open;
    if (open === undefined || open.id !== (item.id ?? "")) {
      // An item that streamed nothing we know (or arrived whole): add it as one block.
      if (item.type === "reasoning" || item.type === "message" || item.type === "function_call") {
        this.startItem(item);
        this.endItem(item);
      }
      return;
    }
    const writer = this.writer;
    if (open.kind === "reasoning") {
      if (!open.streamed) {
        const summary = (item.summary ?? []).map((part) => part.text ?? "").filter((text) => text.length > 0);
        if (summary.length > 0) writer.thinking(summary.join("\n\n"));
      }
      writer.thinkingSignature(JSON.stringify(item));
    } else if (open.kind === "message") {
      if (!open.streamed) {
        const text = (item.content ?? []).map((part) => part.text ?? part.refusal ?? "").join("");
        if (text.length > 0) writer.text(text);
      }
      const block = writer.message.content[writer.message.content.length - 1];
      if (block?.type === "text" && item.id) block.textSignature = encodeTextSignature(item.id, item.phase);
    } else if (open.kind === "function_call") {
      if (!open.streamed && item.arguments) writer.toolCallDelta(item.arguments);
      if (writer.openToolCall?.name === "" && item.name) writer.updateToolCall({ name: item.name });
    }
    this.closeOpen();
  }

  private closeOpen(): void {
    const open = this.open;
    this.open = undefined;
    if (open !== undefined && open.kind !== "other") this.writer.endBlock();
  }

  private ensureReasoning(itemId: string): Extract<OpenItem, { kind: "reasoning" }> {
    if (this.open?.kind === "reasoning" && this.open.id === itemId) return this.open;
    this.startItem({ id: itemId, type: "reasoning" });
    return this.open as unknown as Extract<OpenItem, { kind: "reasoning" }>;
  }

  private ensureMessage(itemId: string): Extract<OpenItem, { kind: "message" }> {
    if (this.open?.kind === "message" && this.open.id === itemId) return this.open;
    this.startItem({ id: itemId, type: "message" });
    return this.open as unknown as Extract<OpenItem, { kind: "message" }>;
  }

  private ensureFunctionCall(itemId: string): Extract<OpenItem, { kind: "function_call" }> {
    if (this.open?.kind === "function_call" && this.open.id === itemId) return this.open;
    this.startItem({ id: itemId, type: "function_call", call_id: itemId });
    return this.open as unknown as Extract<OpenItem, { kind: "function_call" }>;
  }
}
