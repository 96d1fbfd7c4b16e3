import {
  type AssistantStream,
  type AssistantStreamController,
  createAssistantStream,
} from "./assistant-stream.js";
import { calculateCost } from "./cost.js";
import { emptyAssistantMessage } from "./empty-assistant.js";
import { StreamProtocolError } from "./errors.js";
import { StreamingJsonParser } from "./partial-json.js";
import type { StreamOptions } from "./provider.js";
import type { AssistantMessage, Model, StopReason, TextContent, ThinkingContent, ToolCall } from "./types.js";

/** Token counts a provider reports; missing counters stay as they were. */
export interface UsageUpdate {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  totalTokens?: number;
}

type OpenBlock =
  | { kind: "text"; index: number; block: TextContent }
  | { kind: "thinking"; index: number; block: ThinkingContent }
  | { kind: "toolCall"; index: number; block: ToolCall; parser: StreamingJsonParser };

/**
 * Builds an assistant message and emits a protocol-correct {@link AssistantEvent} sequence for it:
 * `start` first, blocks opened and closed in order (starting a block closes the open one), deltas
 * appended in place, tool arguments parsed incrementally (amortized O(L)), one terminal event.
 * Every provider uses this instead of pushing events by hand.
 */
export class AssistantStreamWriter {
  /** The stream the events go to. */
  readonly stream: AssistantStreamController;
  /** The message being built (the `partial` of every event). */
  readonly message: AssistantMessage;
  private readonly model: Model;
  private started = false;
  private open: OpenBlock | undefined;
  /** What the provider could not read, in the order seen, each once. */
  private readonly unread: string[] = [];

  constructor(model: Model, stream: AssistantStreamController = createAssistantStream()) {
    this.model = model;
    this.stream = stream;
    this.message = emptyAssistantMessage(model);
  }

  /** True once the terminal event was emitted. */
  get ended(): boolean {
    return this.stream.ended;
  }

  /** Emits `start` (once). Called implicitly by every other method. */
  start(): void {
    if (this.started) return;
    this.assertOpen("start");
    this.started = true;
    this.stream.push({ type: "start", partial: this.message });
  }

  /** Appends text, opening a text block when the open block is not text. */
  text(delta: string): void {
    const open = this.open?.kind === "text" ? this.open : this.openText();
    if (delta.length === 0) return;
    open.block.text += delta;
    this.stream.push({ type: "text_delta", contentIndex: open.index, delta, partial: this.message });
  }

  /** Appends thinking, opening a thinking block when the open block is not thinking. */
  thinking(delta: string): void {
    const open = this.open?.kind === "thinking" ? this.open : this.openThinking();
    if (delta.length === 0) return;
    open.block.thinking += delta;
    this.stream.push({ type: "thinking_delta", contentIndex: open.index, delta, partial: this.message });
  }

  /** Opens a new thinking block even when one is open (e.g. a redacted block follows a normal one). */
  startThinking(options: { redacted?: boolean; signature?: string } = {}): void {
    const open = this.openThinking();
    if (options.redacted) open.block.redacted = true;
    if (options.signature !== undefined) open.block.thinkingSignature = options.signature;
  }

  /** Sets or extends the open thinking block's signature. */
  thinkingSignature(signature: string, append = false): void {
    const open = this.open;
    if (open?.kind !== "thinking")
      throw new StreamProtocolError("thinkingSignature() needs an open thinking block.");
    open.block.thinkingSignature = append ? (open.block.thinkingSignature ?? "") + signature : signature;
  }

  /** Opens a new text block even when one is open. */
  startText(): void {
    this.openText();
  }

  /** Opens a tool call. Its arguments then arrive as raw JSON through {@link toolCallDelta}. */
  startToolCall(id: string, name: string, extra: Partial<Pick<ToolCall, "thoughtSignature">> = {}): void {
    this.start();
    this.closeOpen();
    const block: ToolCall = { type: "toolCall", id, name, arguments: {}, ...extra };
    const index = this.message.content.push(block) - 1;
    this.open = { kind: "toolCall", index, block, parser: new StreamingJsonParser() };
    this.stream.push({ type: "toolcall_start", contentIndex: index, partial: this.message });
  }

  /** Appends raw JSON to the open tool call's arguments; `arguments` shows the partial object. */
  toolCallDelta(json: string): void {
    const open = this.open;
    if (open?.kind !== "toolCall") throw new StreamProtocolError("toolCallDelta() needs an open tool call.");
    if (json.length === 0) return;
    open.parser.push(json);
    const value = open.parser.value;
    if (isPlainObject(value)) open.block.arguments = value;
    this.stream.push({
      type: "toolcall_delta",
      contentIndex: open.index,
      delta: json,
      partial: this.message,
    });
  }

  /** Updates the open tool call's id or name (some APIs send them late). */
  updateToolCall(fields: Partial<Pick<ToolCall, "id" | "name" | "thoughtSignature">>): void {
    const open = this.open;
    if (open?.kind !== "toolCall") throw new StreamProtocolError("updateToolCall() needs an open tool call.");
    Object.assign(open.block, fields);
  }

  /** The open tool call, if any. */
  get openToolCall(): ToolCall | undefined {
    return this.open?.kind === "toolCall" ? this.open.block : undefined;
  }

  /** Closes the open block, emitting its `*_end` event. */
  endBlock(): void {
    this.closeOpen();
  }

  /** Records token usage (counters given replace the old ones) and recomputes cost. */
  usage(update: UsageUpdate): void {
    const usage = this.message.usage;
    if (update.input !== undefined) usage.input = update.input;
    if (update.output !== undefined) usage.output = update.output;
    if (update.cacheRead !== undefined) usage.cacheRead = update.cacheRead;
    if (update.cacheWrite !== undefined) usage.cacheWrite = update.cacheWrite;
    usage.totalTokens = update.totalTokens ?? usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
    calculateCost(this.model, usage);
  }

  /**
   * Records a part of the response the provider received and cannot read, named for a user (e.g.
   * `content block "citations_delta"`). Nothing is dropped silently: when the stream ends with no
   * answer (no text, no tool call), {@link done} turns into an `error` naming these parts; otherwise they
   * are kept as the message's `notices`.
   *
   * Contract: records each description once; has no effect after the stream ended.
   */
  unreadable(description: string): void {
    if (this.ended || this.unread.includes(description)) return;
    this.unread.push(description);
  }

  /** Sets the provider's response id. */
  responseId(id: string): void {
    this.message.responseId = id;
  }

  /**
   * Ends the stream successfully. Without a reason: `toolUse` when the message holds a tool call,
   * otherwise `stop`.
   */
  done(reason?: Extract<StopReason, "stop" | "length" | "toolUse">): AssistantMessage {
    this.start();
    this.closeOpen();
    if (this.unread.length > 0 && !hasAnswer(this.message)) {
      // The parts go into the error itself, not into notices as well.
      const parts = this.unread.splice(0).join(", ");
      return this.fail(
        "error",
        `The response held no answer Arbor could read: it carried ${parts}, which this provider does not ` +
          "understand. See docs/compatibility.md for what each provider reads.",
      );
    }
    this.keepNotices();
    const final =
      reason ?? (this.message.content.some((block) => block.type === "toolCall") ? "toolUse" : "stop");
    this.message.stopReason = final;
    this.stream.push({ type: "done", reason: final, message: this.message, partial: this.message });
    return this.message;
  }

  /**
   * Ends the stream with a failure. Open blocks are closed first (their `*_end` is emitted), so the
   * partial content is kept and the event sequence stays balanced.
   */
  fail(reason: Extract<StopReason, "error" | "aborted">, errorMessage: string): AssistantMessage {
    if (this.ended) return this.message;
    this.start();
    this.closeOpen();
    this.keepNotices();
    this.message.stopReason = reason;
    this.message.errorMessage = errorMessage;
    this.stream.push({ type: "error", reason, error: this.message, partial: this.message });
    return this.message;
  }

  private keepNotices(): void {
    if (this.unread.length === 0) return;
    this.message.notices = this.unread.map((part) => `Arbor could not read part of this response: ${part}.`);
  }

  private openText(): Extract<OpenBlock, { kind: "text" }> {
    this.start();
    this.closeOpen();
    const block: TextContent = { type: "text", text: "" };
    const index = this.message.content.push(block) - 1;
    const open = { kind: "text" as const, index, block };
    this.open = open;
    this.stream.push({ type: "text_start", contentIndex: index, partial: this.message });
    return open;
  }

  private openThinking(): Extract<OpenBlock, { kind: "thinking" }> {
    this.start();
    this.closeOpen();
    const block: ThinkingContent = { type: "thinking", thinking: "" };
    const index = this.message.content.push(block) - 1;
    const open = { kind: "thinking" as const, index, block };
    this.open = open;
    this.stream.push({ type: "thinking_start", contentIndex: index, partial: this.message });
    return open;
  }

  private closeOpen(): void {
    const open = this.open;
    if (open === undefined) return;
    this.open = undefined;
    const { index } = open;
    if (open.kind === "text") {
      this.stream.push({
        type: "text_end",
        contentIndex: index,
        content: open.block.text,
        partial: this.message,
      });
    } else if (open.kind === "thinking") {
      this.stream.push({
        type: "thinking_end",
        contentIndex: index,
        content: open.block.thinking,
        partial: this.message,
      });
    } else {
      const parsed = open.parser.finish();
      open.block.arguments = isPlainObject(parsed.value) ? parsed.value : {};
      this.stream.push({
        type: "toolcall_end",
        contentIndex: index,
        toolCall: open.block,
        partial: this.message,
      });
    }
  }

  private assertOpen(what: string): void {
    if (this.ended) throw new StreamProtocolError(`${what}() called after the stream ended.`);
  }
}

/** True when a message holds an answer: non-empty text or a tool call (thinking alone is not one). */
function hasAnswer(message: AssistantMessage): boolean {
  return message.content.some(
    (block) => block.type === "toolCall" || (block.type === "text" && block.text.length > 0),
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What a provider's producer function receives. */
export interface ProducerInput {
  writer: AssistantStreamWriter;
  signal: AbortSignal | undefined;
}

/**
 * Runs a provider's producer and returns its stream at once. Whatever the producer does, the stream
 * ends with exactly one terminal event: when it returns without ending the stream, `done()` is
 * called; when it throws, the stream ends with `error` (or `aborted` when the signal fired), partial
 * content kept. This is how a provider keeps the "never throws" contract.
 */
export function createProviderStream(
  model: Model,
  options: StreamOptions | undefined,
  producer: (context: ProducerInput) => Promise<void> | void,
): AssistantStream {
  const writer = new AssistantStreamWriter(model);
  const signal = options?.signal;
  const run = async () => {
    try {
      if (signal?.aborted) {
        writer.fail("aborted", abortMessage(signal));
        return;
      }
      await producer({ writer, signal });
      if (!writer.ended) {
        if (signal?.aborted) writer.fail("aborted", abortMessage(signal));
        else writer.done();
      }
    } catch (error) {
      if (writer.ended) return;
      if (signal?.aborted) writer.fail("aborted", abortMessage(signal));
      else writer.fail("error", describeError(error));
    }
  };
  void run();
  return writer.stream;
}

/** The message of an aborted request. */
export function abortMessage(signal: AbortSignal | undefined): string {
  const reason = signal?.reason;
  if (reason instanceof Error && reason.name !== "AbortError" && reason.message) {
    return `Request aborted: ${reason.message}`;
  }
  if (typeof reason === "string" && reason) return `Request aborted: ${reason}`;
  return "Request aborted";
}

/** A one-line description of anything thrown. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
