import type { AssistantStreamWriter } from "@arbor/ai-providers";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { WireFailure } from "../failure.js";
import { type ChatUsage, chatUsage } from "./chat-usage.js";
import { REASONING_FIELDS, type ReasoningField } from "./convert-messages.js";
import { ToolCallSequencer } from "./tool-call-sequencer.js";

type OpenKind = "text" | "thinking" | "tool" | undefined;

/** Delta fields read as content (see {@link ChatStreamReader}). */
const READ_FIELDS: ReadonlySet<string> = new Set(["content", "refusal", "tool_calls", ...REASONING_FIELDS]);

/**
 * Delta fields knowingly not read: `role`; `index` (the choice's index, repeated inside the delta by
 * some servers); `annotations` (URL citations beside the text: metadata); `reasoning_details`
 * (OpenRouter's structured copy of `reasoning`, which is read; its encrypted parts are not kept).
 */
const SKIPPED_FIELDS: ReadonlySet<string> = new Set(["role", "index", "annotations", "reasoning_details"]);

/**
 * Content part types knowingly not read: `reference` (Mistral's citation ids beside the text: metadata).
 */
const SKIPPED_PARTS: ReadonlySet<string> = new Set(["reference"]);

/** True when a value holds something: a non-empty string, a non-empty list, an object holding something. */
function carriesContent(value: unknown): boolean {
  if (typeof value === "string") return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object" && value !== null) return Object.values(value).some(carriesContent);
  return false;
}

function partType(part: unknown): string {
  const type = (part as { type?: unknown } | null)?.type;
  return typeof type === "string" ? type : typeof part;
}

/**
 * Feeds Chat Completions chunks into an {@link AssistantStreamWriter}.
 *
 * Read: `reasoning_content` / `reasoning` / `reasoning_text` deltas become thinking (the field's name
 * kept as the signature, so the reasoning goes back to the same model in the same field); `content`
 * becomes text, as a string or as a list of parts (Mistral): `text` parts are text, `thinking` parts
 * thinking (their inner `text` parts joined); `refusal` becomes text; `tool_calls` go through a
 * {@link ToolCallSequencer}; `usage` (also Groq's `x_groq.usage`) is mapped by {@link chatUsage}.
 * Only the first choice is read, only from `delta` (a `message` beside it, as some servers send, is a
 * copy). Chunks without choices (Azure's `prompt_filter_results`, the usage chunk) carry no content.
 *
 * Knowingly not read (metadata beside the answer): the delta fields `role`, `index`, `annotations`,
 * `reasoning_details`; `reference` content parts; top-level `citations` / `search_results`
 * (Perplexity) and filter results (Azure).
 *
 * Anything else that carries content — another delta field (e.g. `audio`, the legacy `function_call`),
 * another content or thinking part type — is reported with `writer.unreadable()`: a notice beside the
 * answer, or an error naming it when there is no answer.
 *
 * {@link end} maps `finish_reason` once the stream is over (usage arrives after it): `stop` → stop,
 * `length` → length, `tool_calls` → toolUse, `content_filter` → an error.
 */
export class ChatStreamReader {
  private readonly tools: ToolCallSequencer;
  private open: OpenKind;
  private finishReason: string | undefined;

  constructor(
    private readonly writer: AssistantStreamWriter,
    private readonly label: string,
  ) {
    let counter = 0;
    const stamp = Date.now().toString(36);
    this.tools = new ToolCallSequencer(writer, (index) => `call_${stamp}_${index}_${counter++}`);
  }

  /** Handles one chunk. */
  push(chunk: ChatCompletionChunk): void {
    const writer = this.writer;
    if (writer.message.responseId === undefined && chunk.id) writer.responseId(chunk.id);
    const usage = (chunk.usage ?? (chunk as { x_groq?: { usage?: ChatUsage } }).x_groq?.usage) as
      | ChatUsage
      | null
      | undefined;
    if (usage) writer.usage(chatUsage(usage));
    const choice = chunk.choices?.[0];
    if (choice === undefined) return;
    const delta = (choice.delta ?? {}) as Record<string, unknown>;

    for (const field of REASONING_FIELDS) {
      const text = delta[field];
      if (typeof text !== "string" || text.length === 0) continue;
      this.thinking(text, field);
      break; // servers that send two fields send the same text twice
    }
    this.content(delta.content);
    if (typeof delta.refusal === "string") this.text(delta.refusal);
    if (Array.isArray(delta.tool_calls)) this.toolCalls(delta.tool_calls);
    for (const field in delta) {
      if (READ_FIELDS.has(field) || SKIPPED_FIELDS.has(field)) continue;
      if (carriesContent(delta[field])) writer.unreadable(`delta field "${field}"`);
    }

    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  /**
   * Ends the message after the last chunk.
   *
   * @throws {WireFailure} when the stream ended without a `finish_reason` (the connection was cut) or
   *   the content filter stopped the response; partial content stays in the writer.
   */
  end(): void {
    this.closeTools();
    const reason = this.finishReason;
    if (reason === undefined) {
      throw new WireFailure(
        `${this.label} stream ended before the response was complete (no finish_reason).`,
      );
    }
    if (reason === "content_filter") {
      throw new WireFailure(
        `${this.label} stopped the response: its content filter flagged it (finish_reason "content_filter").`,
        { code: "content_filter" },
      );
    }
    const hasToolCall = this.writer.message.content.some((block) => block.type === "toolCall");
    if (reason === "length") this.writer.done("length");
    else this.writer.done(hasToolCall ? "toolUse" : "stop");
  }

  /** `content`: a string, or a list of parts (Mistral). */
  private content(content: unknown): void {
    if (typeof content === "string") {
      this.text(content);
    } else if (Array.isArray(content)) {
      for (const part of content) this.contentPart(part);
    } else if (carriesContent(content)) {
      this.writer.unreadable(`"content" of type ${partType(content)}`);
    }
  }

  private contentPart(part: unknown): void {
    const type = partType(part);
    const fields = (part ?? {}) as { text?: unknown; thinking?: unknown };
    if (type === "text" && typeof fields.text === "string") {
      this.text(fields.text);
    } else if (type === "thinking") {
      const inner = fields.thinking;
      if (typeof inner === "string") this.thinking(inner, undefined);
      else if (Array.isArray(inner)) {
        for (const piece of inner) {
          const text = (piece as { text?: unknown } | null)?.text;
          if (partType(piece) === "text" && typeof text === "string") this.thinking(text, undefined);
          else if (carriesContent(piece)) this.writer.unreadable(`thinking part "${partType(piece)}"`);
        }
      }
    } else if (!SKIPPED_PARTS.has(type) && carriesContent(part)) {
      this.writer.unreadable(`content part "${type}"`);
    }
  }

  private text(text: string): void {
    if (text.length === 0) return;
    if (this.open !== "text") {
      this.closeTools();
      this.writer.startText();
      this.open = "text";
    }
    this.writer.text(text);
  }

  /** Thinking, in a block whose signature is the field it came in (none for thinking parts). */
  private thinking(text: string, field: ReasoningField | undefined): void {
    if (text.length === 0) return;
    if (this.open !== "thinking") {
      this.closeTools();
      this.writer.startThinking(field === undefined ? {} : { signature: field });
      this.open = "thinking";
    }
    this.writer.thinking(text);
  }

  private toolCalls(calls: unknown[]): void {
    for (const [position, call] of calls.entries()) {
      const entry = call as {
        index?: number;
        id?: string | null;
        function?: { name?: string | null; arguments?: string | null };
      };
      this.open = "tool";
      this.tools.push({
        index: typeof entry.index === "number" ? entry.index : position,
        id: entry.id,
        name: entry.function?.name,
        arguments: entry.function?.arguments,
      });
    }
  }

  private closeTools(): void {
    if (this.tools.busy) this.tools.finish();
  }
}
