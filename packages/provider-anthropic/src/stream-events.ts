import { APIError } from "@anthropic-ai/sdk";
import type {
  RawMessageStreamEvent,
  RefusalStopDetails,
  Message as WireMessage,
  StopReason as WireStopReason,
} from "@anthropic-ai/sdk/resources/messages";
import type { ErrorType } from "@anthropic-ai/sdk/resources/shared";
import type { AssistantStreamWriter, Model } from "@arbor/ai-providers";
import { BrokenStreamProtocolError, IncompleteStreamError } from "./errors.js";
import { SERVER_TOOL_BLOCKS, SKIPPED_DELTAS } from "./skipped-parts.js";
import { UsageTracker } from "./usage.js";

/** A content block as the wire sends it (`content_block_start`, or inside `message_start`). */
type WireBlock = Extract<RawMessageStreamEvent, { type: "content_block_start" }>["content_block"];
/** A content block delta as the wire sends it. */
type WireDelta = Extract<RawMessageStreamEvent, { type: "content_block_delta" }>["delta"];

/** An open block: what it becomes (`skipped`: nothing) and its wire type, for messages. */
interface OpenBlock {
  kind: "text" | "thinking" | "toolCall" | "skipped";
  type: string;
}

/** The delta types each kind of read block accepts. */
const DELTAS_OF: Record<Exclude<OpenBlock["kind"], "skipped">, readonly string[]> = {
  text: ["text_delta", "citations_delta"],
  thinking: ["thinking_delta", "signature_delta"],
  toolCall: ["input_json_delta"],
};
const KNOWN_DELTAS = new Set(Object.values(DELTAS_OF).flat());

/**
 * Where the stream is: before `message_start`; after it with nothing read since (a repeat is tolerated);
 * reading the message; after `message_stop`.
 */
type Phase = "before" | "started" | "reading" | "stopped";

/** A `fallback` block: the requested model could not serve the request and another one did. */
interface FallbackBlock {
  type: "fallback";
  from?: { model?: unknown };
  to?: { model?: unknown };
}

/**
 * Turns the raw Messages API stream (`message_start`, `content_block_start` / `_delta` / `_stop`,
 * `message_delta`, `message_stop`) into writer calls.
 *
 * Read: text; thinking (with its `signature_delta`); redacted thinking (its `data` kept as the block's
 * signature, `redacted: true`); tool calls whose `input_json_delta` pieces go to the writer's incremental
 * parser — O(L) in the size of the arguments — or whose whole `input` comes in the start block; the stop
 * reason, its refusal details and usage from `message_delta`. A `message_start` whose message already
 * holds content, a stop reason and usage (a response delivered whole, as programmatic tool calls are) is
 * read as if those had streamed. A `fallback` block (the requested model could not serve the request and
 * another did) sets the message's `model` to the model that served it, and usage is priced with that
 * model's prices when `resolveModel` knows it (else with the requested model's).
 *
 * Knowingly not read: the blocks of tools Anthropic runs itself ({@link SERVER_TOOL_BLOCKS}: their effect
 * reaches the model server-side and its text says what came of them) and `citations_delta`
 * ({@link SKIPPED_DELTAS}: citations beside a text). Anything else the provider does not know — a content
 * block type (`content block "compaction"`), a delta type inside a block it reads (`delta
 * "x_delta" in a text block`), a top-level event type (`stream event "x"`) — goes to
 * `writer.unreadable()`: with no answer besides it the response ends in an error naming it, else it
 * becomes one of the message's `notices`. `ping` is ignored.
 *
 * The protocol is checked, and a break ends the stream at once with a {@link BrokenStreamProtocolError}
 * (an `error` message, partial content kept, never retried; an errored message runs no tool call, so a
 * tool call cut short never runs). A break is:
 * - a second `message_start`, unless it repeats the first one's id while nothing of that message was
 *   read yet (no content block, no `message_delta`, no content or stop reason inside the first
 *   `message_start`): such a repeat is ignored. Any other — a new id, or the same id after content, or
 *   one arriving inside an open block (a new message spliced into a cut one) — is a break;
 * - any event but `ping` after `message_stop`, or `message_stop` while a block is open;
 * - a `content_block_start` while another block is open, a delta or stop for a block that is not open,
 *   or a delta of a known type that does not belong to its block (a `text_delta` in a `tool_use` block).
 *
 * Stop reasons: `end_turn` and `stop_sequence` → `stop`; `tool_use` → `toolUse`; `max_tokens` and
 * `model_context_window_exceeded` → `length`; `pause_turn` → `stop` (the server paused a long turn;
 * sending the conversation again with this message last lets the model continue); `refusal` → an `error`
 * message saying the model refused (category and explanation included), partial content kept.
 */
export class AnthropicStreamState {
  /** The open blocks, by the API's content index (at most one at a time). */
  private readonly open = new Map<number, OpenBlock>();
  private phase: Phase = "before";
  private messageId: string | undefined;
  private stopReason: WireStopReason | null = null;
  private stopDetails: RefusalStopDetails | null = null;
  private readonly usage: UsageTracker;

  /**
   * @param resolveModel looks up a model by id (the provider's catalog and settings), for the prices of a
   *   fallback model.
   */
  constructor(
    private readonly writer: AssistantStreamWriter,
    private readonly model: Model,
    longCacheRetention: boolean,
    private readonly resolveModel: (modelId: string) => Model | undefined = () => undefined,
  ) {
    this.usage = new UsageTracker(writer, model, longCacheRetention);
  }

  /** True once a content block reached the caller: from then on a failure cannot be retried. */
  get streamedContent(): boolean {
    return this.writer.message.content.length > 0;
  }

  /**
   * Applies one stream event.
   *
   * @throws {BrokenStreamProtocolError} when the event breaks the protocol (see the class).
   * @throws {APIError} for an `error` event (the SDK normally throws it before it reaches here).
   */
  handle(event: RawMessageStreamEvent): void {
    const type: string = event.type;
    if (type === "ping") return;
    if (type === "error") {
      const body = event as unknown as { error?: { type?: ErrorType } };
      throw new APIError(undefined, body, undefined, undefined, body.error?.type);
    }
    if (this.phase === "stopped")
      throw new BrokenStreamProtocolError(`a ${type} event came after message_stop`);
    switch (event.type) {
      case "message_start":
        this.messageStart(event.message);
        return;
      case "content_block_start":
        this.phase = "reading";
        this.startBlock(event.index, event.content_block);
        return;
      case "content_block_delta":
        this.phase = "reading";
        this.delta(event.index, event.delta);
        return;
      case "content_block_stop":
        this.phase = "reading";
        this.stopBlock(event.index);
        return;
      case "message_delta":
        this.phase = "reading";
        if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
        if (event.delta.stop_details) this.stopDetails = event.delta.stop_details;
        this.usage.update(event.usage);
        return;
      case "message_stop": {
        const open = this.openIndex();
        if (open !== undefined) {
          throw new BrokenStreamProtocolError(`message_stop came while content block ${open} was open`);
        }
        this.phase = "stopped";
        return;
      }
      default:
        this.writer.unreadable(`stream event "${type}"`);
    }
  }

  private messageStart(message: WireMessage): void {
    if (this.phase !== "before") {
      if (this.phase === "started" && message.id === this.messageId) return; // the same start again
      const open = this.openIndex();
      throw new BrokenStreamProtocolError(
        open !== undefined
          ? `a new message_start (${message.id}) came while content block ${open} of ${this.messageId} was open`
          : this.messageId === undefined
            ? `a message_start (${message.id}) came after content had begun`
            : `a second message_start (${message.id}) came after ${this.messageId} had begun`,
      );
    }
    this.phase = "started";
    this.messageId = message.id;
    this.writer.message.model = this.model.id; // until a fallback block names another (a retried attempt)
    this.writer.start();
    if (message.id) this.writer.responseId(message.id);
    this.usage.update(message.usage);
    const content = Array.isArray(message.content) ? message.content : [];
    for (const [index, block] of content.entries()) {
      this.startBlock(index, block);
      this.stopBlock(index);
    }
    if (message.stop_reason) this.stopReason = message.stop_reason;
    if (message.stop_details) this.stopDetails = message.stop_details;
    if (content.length > 0 || message.stop_reason) this.phase = "reading";
  }

  private startBlock(index: number, block: WireBlock): void {
    const open = this.openIndex();
    if (open !== undefined) {
      throw new BrokenStreamProtocolError(`content block ${index} started while block ${open} was open`);
    }
    const type: string = block.type;
    switch (block.type) {
      case "text":
        this.open.set(index, { kind: "text", type });
        this.writer.startText();
        if (block.text) this.writer.text(block.text);
        return;
      case "thinking":
        this.open.set(index, { kind: "thinking", type });
        this.writer.startThinking(block.signature ? { signature: block.signature } : {});
        if (block.thinking) this.writer.thinking(block.thinking);
        return;
      case "redacted_thinking":
        this.open.set(index, { kind: "thinking", type });
        this.writer.startThinking({ redacted: true, signature: block.data });
        return;
      case "tool_use": {
        this.open.set(index, { kind: "toolCall", type });
        this.writer.startToolCall(block.id, block.name);
        const input = block.input;
        if (typeof input === "object" && input !== null && Object.keys(input).length > 0) {
          this.writer.toolCallDelta(JSON.stringify(input));
        }
        return;
      }
    }
    this.open.set(index, { kind: "skipped", type });
    if (type === "fallback") this.fallback(block as unknown as FallbackBlock);
    else if (!SERVER_TOOL_BLOCKS.has(type)) this.writer.unreadable(`content block "${type}"`);
  }

  private fallback(block: FallbackBlock): void {
    const served = block.to?.model;
    if (typeof served !== "string" || served === "") {
      this.writer.unreadable('content block "fallback" (no model named)');
      return;
    }
    this.writer.message.model = served;
    const known = this.resolveModel(served);
    if (known !== undefined) this.usage.priceAs(known.cost);
  }

  private delta(index: number, delta: WireDelta): void {
    const block = this.open.get(index);
    if (block === undefined) {
      throw new BrokenStreamProtocolError(
        `a ${delta.type} came for content block ${index}, which is not open`,
      );
    }
    if (block.kind === "skipped") return;
    const type: string = delta.type;
    if (!KNOWN_DELTAS.has(type)) {
      this.writer.unreadable(`delta "${type}" in a ${block.type} block`);
      return;
    }
    if (!DELTAS_OF[block.kind].includes(type)) {
      throw new BrokenStreamProtocolError(`a ${type} came in content block ${index}, a ${block.type} block`);
    }
    if (SKIPPED_DELTAS.has(type)) return;
    switch (delta.type) {
      case "text_delta":
        this.writer.text(delta.text);
        return;
      case "input_json_delta":
        this.writer.toolCallDelta(delta.partial_json);
        return;
      case "thinking_delta":
        this.writer.thinking(delta.thinking);
        return;
      case "signature_delta":
        this.writer.thinkingSignature(delta.signature, true);
        return;
    }
  }

  private stopBlock(index: number): void {
    const block = this.open.get(index);
    if (block === undefined) {
      throw new BrokenStreamProtocolError(
        `content_block_stop came for content block ${index}, which is not open`,
      );
    }
    this.open.delete(index);
    if (block.kind !== "skipped") this.writer.endBlock();
  }

  /** The index of the open block, if any. */
  private openIndex(): number | undefined {
    for (const index of this.open.keys()) return index;
    return undefined;
  }

  /**
   * Ends the stream after the last event: `done` with the mapped stop reason, or `error` for a refusal.
   *
   * @throws {IncompleteStreamError} when `message_stop` never came (the connection closed early).
   */
  finish(): void {
    if (this.phase !== "stopped") throw new IncompleteStreamError();
    switch (this.stopReason) {
      case "refusal": {
        const category = this.stopDetails?.category;
        const explanation = this.stopDetails?.explanation;
        this.writer.fail(
          "error",
          `The model refused to answer (stop_reason "refusal"${category ? `, category "${category}"` : ""})` +
            (explanation ? `: ${explanation}` : "."),
        );
        return;
      }
      case "tool_use":
        this.writer.done("toolUse");
        return;
      case "max_tokens":
      case "model_context_window_exceeded":
        this.writer.done("length");
        return;
      default: {
        const hasToolCall = this.writer.message.content.some((block) => block.type === "toolCall");
        this.writer.done(hasToolCall ? "toolUse" : "stop");
      }
    }
  }
}
