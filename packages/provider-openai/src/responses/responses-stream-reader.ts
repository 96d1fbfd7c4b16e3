import type {
  AssistantStreamWriter,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCall,
} from "@arbor/ai-providers";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { WireFailure } from "../failure.js";
import { encodeTextSignature, joinToolCallId } from "./convert-input.js";
import { isReadItemType, type OutputItem, type ReadItemType, unreadableItem } from "./output-items.js";
import { type ResponsesUsage, responsesUsage } from "./responses-usage.js";

/** One output item of the response, as the reader follows it. */
interface ItemState {
  /** The item's type (from `output_item.added`, or implied by the first event about it). */
  type: string;
  /** The item as last seen (`output_item.added`, then `output_item.done`). */
  item: OutputItem;
  /** The block this item writes to, once opened. */
  block: ThinkingContent | TextContent | ToolCall | undefined;
  /** Text received per part (`summary:<i>`, `content:<i>`, `arguments`), to complete it from `*.done`. */
  parts: Map<string, string>;
  /** The part written last into the open block: a new reasoning part starts after a blank line. */
  lastPart: string | undefined;
  done: boolean;
}

/** The key of one part of an item (a server that leaves the index out has one part). */
function partKey(kind: "summary" | "content", index: number | undefined): string {
  return `${kind}:${index ?? 0}`;
}

/** Where an event says it belongs. */
interface EventPlace {
  output_index?: number;
  item_id?: string;
}

/**
 * Feeds Responses API events into an {@link AssistantStreamWriter}.
 *
 * Events are matched to their output item by `output_index` (then `summary_index` / `content_index`
 * within it), not by `item_id`: some servers (GitHub Copilot) give every event of an item a new id.
 * Only a server that sends no `output_index` is matched by id. What is kept of an item's id (the text
 * signature, the tool-call id, the reasoning item sent back) comes from its `response.output_item.done`.
 *
 * Read, each item as one block: `reasoning` → thinking (summary parts — or LM Studio's `reasoning_text`
 * parts — joined by a blank line; the final item as JSON kept as the signature, with its
 * `encrypted_content` for the round trip), `message` → text (`output_text` and `refusal` parts; the id
 * and `phase` kept as the text signature), `function_call` → a tool call with id
 * `<call_id>|<item id>`. A part's `*.done` event (and the item's `output_item.done`) completes text the
 * deltas did not carry, never repeats it. Knowingly not read: annotations (citations beside the text)
 * and the hosted tools and bookkeeping items listed in `SKIPPED_OUTPUT_ITEMS`; every other output item,
 * and a message part of another type, is reported with `writer.unreadable()` (see `output-items.ts`).
 *
 * `response.completed` ends with `stop` / `toolUse`, `response.incomplete` with `length`
 * (`max_output_tokens`), `response.failed` and `error` events fail with the server's message. Events
 * after the end of the response (a second response in the same stream) are not read, and said so.
 */
export class ResponsesStreamReader {
  private readonly byIndex = new Map<number, ItemState>();
  private readonly byId = new Map<string, ItemState>();
  private readonly items: ItemState[] = [];
  /** The item whose block is open. */
  private open: ItemState | undefined;
  private finished: Extract<StopReason, "stop" | "length" | "toolUse"> | undefined;

  constructor(
    private readonly writer: AssistantStreamWriter,
    private readonly label: string,
  ) {}

  /** Handles one event. @throws {WireFailure} for `error` and `response.failed` events. */
  push(event: ResponseStreamEvent): void {
    const writer = this.writer;
    if (this.finished !== undefined) {
      writer.unreadable("events after the end of the response");
      return;
    }
    switch (event.type) {
      case "response.created":
      case "response.in_progress":
        if (event.response?.id && writer.message.responseId === undefined)
          writer.responseId(event.response.id);
        return;
      case "response.output_item.added": {
        const item = event.item as OutputItem;
        const state = this.itemAt(event, item.type ?? "", item);
        if (isReadItemType(state.type)) this.openBlock(state);
        if (state.type === "function_call" && item.arguments)
          this.complete(state, "arguments", item.arguments);
        return;
      }
      case "response.reasoning_summary_text.delta":
        this.write(
          this.itemAt(event, "reasoning"),
          "reasoning",
          partKey("summary", event.summary_index),
          event.delta,
        );
        return;
      case "response.reasoning_summary_text.done":
        this.complete(this.itemAt(event, "reasoning"), partKey("summary", event.summary_index), event.text);
        return;
      case "response.reasoning_text.delta":
        this.write(
          this.itemAt(event, "reasoning"),
          "reasoning",
          partKey("content", event.content_index),
          event.delta,
        );
        return;
      case "response.reasoning_text.done":
        this.complete(this.itemAt(event, "reasoning"), partKey("content", event.content_index), event.text);
        return;
      case "response.output_text.delta":
      case "response.refusal.delta":
        this.write(
          this.itemAt(event, "message"),
          "message",
          partKey("content", event.content_index),
          event.delta,
        );
        return;
      case "response.output_text.done":
        this.complete(this.itemAt(event, "message"), partKey("content", event.content_index), event.text);
        return;
      case "response.refusal.done":
        this.complete(this.itemAt(event, "message"), partKey("content", event.content_index), event.refusal);
        return;
      case "response.function_call_arguments.delta":
        this.write(this.itemAt(event, "function_call"), "function_call", "arguments", event.delta);
        return;
      case "response.function_call_arguments.done":
        this.complete(this.itemAt(event, "function_call"), "arguments", event.arguments);
        return;
      case "response.output_item.done": {
        const item = event.item as OutputItem;
        this.endItem(this.itemAt(event, item.type ?? "", item), item);
        return;
      }
      case "response.completed":
        this.usage(event.response?.usage);
        if (event.response?.id) writer.responseId(event.response.id);
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
        // Progress of hosted tools, content_part.added|done, annotations: the items say what matters.
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
    for (const state of this.items) {
      if (state.done || isReadItemType(state.type)) continue;
      const unreadable = unreadableItem({ ...state.item, type: state.type });
      if (unreadable !== undefined) this.writer.unreadable(unreadable);
    }
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

  /**
   * The item an event is about: by `output_index`; without one, by id; without either, the open item
   * when it has the type the event implies. An item not seen before is added.
   */
  private itemAt(place: EventPlace, type: string, item?: OutputItem): ItemState {
    const index = typeof place.output_index === "number" ? place.output_index : undefined;
    const id = item?.id ?? place.item_id;
    let state =
      index !== undefined
        ? this.byIndex.get(index)
        : id
          ? this.byId.get(id)
          : this.open?.type === type
            ? this.open
            : undefined;
    if (state === undefined) {
      state = {
        type,
        item: { id, type },
        block: undefined,
        parts: new Map(),
        lastPart: undefined,
        done: false,
      };
      this.items.push(state);
      if (index !== undefined) this.byIndex.set(index, state);
    }
    if (item !== undefined) {
      state.item = item;
      if (item.type) state.type = item.type;
    }
    if (id) this.byId.set(id, state);
    return state;
  }

  /** Writes a delta of one part of an item into its block. */
  private write(state: ItemState, kind: ReadItemType, part: string, delta: string): void {
    if (state.type !== kind) {
      this.writer.unreadable(`${kind} text inside output item "${state.type}"`);
      return;
    }
    if (delta.length === 0) return;
    state.parts.set(part, (state.parts.get(part) ?? "") + delta);
    this.openBlock(state);
    if (kind === "reasoning") {
      if (state.lastPart !== undefined && state.lastPart !== part) this.writer.thinking("\n\n");
      this.writer.thinking(delta);
    } else if (kind === "message") {
      this.writer.text(delta);
    } else {
      this.writer.toolCallDelta(delta);
    }
    state.lastPart = part;
  }

  /** Writes what a part's full text holds beyond what its deltas carried (nothing, normally). */
  private complete(state: ItemState, part: string, full: string | undefined): void {
    if (full === undefined || !isReadItemType(state.type)) return;
    const received = state.parts.get(part) ?? "";
    if (full.length > received.length && full.startsWith(received)) {
      this.write(state, state.type, part, full.slice(received.length));
    }
  }

  private endItem(state: ItemState, item: OutputItem): void {
    state.done = true;
    if (!isReadItemType(state.type)) {
      const unreadable = unreadableItem(item);
      if (unreadable !== undefined) this.writer.unreadable(unreadable);
      return;
    }
    if (state.type === "reasoning") {
      for (const [index, part] of (item.summary ?? []).entries())
        this.complete(state, partKey("summary", index), part.text);
      for (const [index, part] of (item.content ?? []).entries()) {
        if (part.type === "reasoning_text") this.complete(state, partKey("content", index), part.text);
      }
      const block = this.blockOf(state) as ThinkingContent;
      block.thinkingSignature = JSON.stringify(item);
    } else if (state.type === "message") {
      for (const [index, part] of (item.content ?? []).entries()) {
        if (part.type === "output_text") this.complete(state, partKey("content", index), part.text);
        else if (part.type === "refusal") this.complete(state, partKey("content", index), part.refusal);
        else this.writer.unreadable(`message part "${part.type ?? "(no type)"}"`);
      }
      const block = this.blockOf(state) as TextContent;
      if (item.id) block.textSignature = encodeTextSignature(item.id, item.phase);
    } else {
      this.complete(state, "arguments", item.arguments);
      const block = this.blockOf(state) as ToolCall;
      if (item.id) block.id = joinToolCallId(item.call_id ?? item.id, item.id);
      if (block.name === "" && item.name) block.name = item.name;
    }
    if (this.open === state) this.closeOpen();
  }

  /** The item's block, opened (empty) when nothing was written to it. */
  private blockOf(state: ItemState): ThinkingContent | TextContent | ToolCall {
    if (state.block === undefined) this.openBlock(state);
    return state.block as ThinkingContent | TextContent | ToolCall;
  }

  /** Makes the item's block the open one (a new block when another was opened since). */
  private openBlock(state: ItemState): void {
    if (this.open === state) return;
    this.closeOpen();
    const writer = this.writer;
    const item = state.item;
    if (state.type === "reasoning") writer.startThinking();
    else if (state.type === "message") writer.startText();
    else {
      const id = item.id ?? "";
      writer.startToolCall(joinToolCallId(item.call_id ?? id, item.id), item.name ?? "");
    }
    state.block = writer.message.content[writer.message.content.length - 1] as ItemState["block"];
    state.lastPart = undefined;
    this.open = state;
  }

  private closeOpen(): void {
    if (this.open === undefined) return;
    this.open = undefined;
    this.writer.endBlock();
  }
}
