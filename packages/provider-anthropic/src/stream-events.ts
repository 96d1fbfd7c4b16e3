import type {
  RawMessageStreamEvent,
  RefusalStopDetails,
  StopReason as WireStopReason,
} from "@anthropic-ai/sdk/resources/messages";
import type { AssistantStreamWriter, Model } from "@arbor/ai-providers";
import { IncompleteStreamError } from "./errors.js";
import { UsageTracker } from "./usage.js";

type OpenKind = "text" | "thinking" | "toolCall" | "ignored";

/**
 * Turns the raw Messages API stream (`message_start`, `content_block_start` / `_delta` / `_stop`,
 * `message_delta`, `message_stop`) into writer calls: text, thinking (with its `signature_delta`),
 * redacted thinking (its `data` kept as the block's signature, `redacted: true`) and tool calls whose
 * `input_json_delta` pieces go to the writer's incremental parser — O(L) in the size of the arguments.
 * Blocks of server tools (web search results, ...) are skipped.
 *
 * Stop reasons: `end_turn` and `stop_sequence` → `stop`; `tool_use` → `toolUse`; `max_tokens` and
 * `model_context_window_exceeded` → `length`; `pause_turn` → `stop` (the server paused a long turn;
 * sending the conversation again with this message last lets the model continue); `refusal` → an `error`
 * message saying the model refused (category and explanation included), partial content kept.
 */
export class AnthropicStreamState {
  /** Kind of the open block, by the API's content index. */
  private readonly open = new Map<number, OpenKind>();
  private stopReason: WireStopReason | null = null;
  private stopDetails: RefusalStopDetails | null = null;
  private completed = false;
  private readonly usage: UsageTracker;

  constructor(
    private readonly writer: AssistantStreamWriter,
    model: Model,
    longCacheRetention: boolean,
  ) {
    this.usage = new UsageTracker(writer, model, longCacheRetention);
  }

  /** True once a content block reached the caller: from then on a failure cannot be retried. */
  get streamedContent(): boolean {
    return this.writer.message.content.length > 0;
  }

  /** Applies one stream event. */
  handle(event: RawMessageStreamEvent): void {
    switch (event.type) {
      case "message_start":
        this.writer.start();
        if (event.message.id) this.writer.responseId(event.message.id);
        this.usage.update(event.message.usage);
        break;
      case "content_block_start":
        this.startBlock(event.index, event.content_block);
        break;
      case "content_block_delta":
        this.delta(event.index, event.delta);
        break;
      case "content_block_stop":
        if (this.open.get(event.index) !== "ignored" && this.open.has(event.index)) this.writer.endBlock();
        this.open.delete(event.index);
        break;
      case "message_delta":
        if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
        if (event.delta.stop_details) this.stopDetails = event.delta.stop_details;
        this.usage.update(event.usage);
        break;
      case "message_stop":
        this.completed = true;
        break;
    }
  }

  private startBlock(
    index: number,
    block: Extract<RawMessageStreamEvent, { type: "content_block_start" }>["content_block"],
  ): void {
    switch (block.type) {
      case "text":
        this.open.set(index, "text");
        this.writer.startText();
        if (block.text) this.writer.text(block.text);
        break;
      case "thinking":
        this.open.set(index, "thinking");
        this.writer.startThinking(block.signature ? { signature: block.signature } : {});
        if (block.thinking) this.writer.thinking(block.thinking);
        break;
      case "redacted_thinking":
        this.open.set(index, "thinking");
        this.writer.startThinking({ redacted: true, signature: block.data });
        break;
      case "tool_use": {
        this.open.set(index, "toolCall");
        this.writer.startToolCall(block.id, block.name);
        const input = block.input;
        if (typeof input === "object" && input !== null && Object.keys(input).length > 0) {
          this.writer.toolCallDelta(JSON.stringify(input));
        }
        break;
      }
      default:
        this.open.set(index, "ignored");
    }
  }

  private delta(
    index: number,
    delta: Extract<RawMessageStreamEvent, { type: "content_block_delta" }>["delta"],
  ): void {
    const kind = this.open.get(index);
    if (kind === undefined || kind === "ignored") return;
    switch (delta.type) {
      case "text_delta":
        if (kind === "text") this.writer.text(delta.text);
        break;
      case "input_json_delta":
        if (kind === "toolCall") this.writer.toolCallDelta(delta.partial_json);
        break;
      case "thinking_delta":
        if (kind === "thinking") this.writer.thinking(delta.thinking);
        break;
      case "signature_delta":
        if (kind === "thinking") this.writer.thinkingSignature(delta.signature, true);
        break;
    }
  }

  /**
   * Ends the stream after the last event: `done` with the mapped stop reason, or `error` for a refusal.
   *
   * @throws {IncompleteStreamError} when `message_stop` never came (the connection closed early).
   */
  finish(): void {
    if (!this.completed) throw new IncompleteStreamError();
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
