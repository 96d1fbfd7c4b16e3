import type { AssistantStreamWriter, UsageUpdate } from "@arbor/ai-providers";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { WireFailure } from "../failure.js";
import { REASONING_FIELDS } from "./convert-messages.js";
import { ToolCallSequencer } from "./tool-call-sequencer.js";

/** Usage counters as Chat Completions servers report them (OpenAI, DeepSeek, Groq, vLLM, …). */
interface ChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null;
  /** DeepSeek's name for cached prompt tokens. */
  prompt_cache_hit_tokens?: number | null;
}

/**
 * Maps Chat Completions usage without double counting: `prompt_tokens` includes the cached tokens (and
 * cache writes), so `input` is what is left after taking them out; `completion_tokens` already includes
 * reasoning tokens and is `output` as is.
 */
export function chatUsage(usage: ChatUsage): UsageUpdate {
  const prompt = usage.prompt_tokens ?? 0;
  const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0;
  const cacheWrite = usage.prompt_tokens_details?.cache_write_tokens ?? 0;
  const input = Math.max(0, prompt - cacheRead - cacheWrite);
  const output = usage.completion_tokens ?? 0;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite };
}

type OpenKind = "text" | "thinking" | "tool" | undefined;

/**
 * Feeds Chat Completions chunks into an {@link AssistantStreamWriter}: `reasoning_content` /
 * `reasoning` / `reasoning_text` deltas become thinking (the field's name kept as the signature, so the
 * reasoning goes back to the same model in the same field), `content` and `refusal` become text,
 * `tool_calls` go through a {@link ToolCallSequencer}, `usage` (also Groq's `x_groq.usage`) is mapped
 * by {@link chatUsage}. {@link end} maps `finish_reason` once the stream is over (usage arrives after
 * it): `stop` → stop, `length` → length, `tool_calls` → toolUse, `content_filter` → an error.
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
      if (this.open !== "thinking") {
        this.closeTools();
        writer.startThinking({ signature: field });
        this.open = "thinking";
      }
      writer.thinking(text);
      break; // servers that send two fields send the same text twice
    }

    for (const key of ["content", "refusal"] as const) {
      const text = delta[key];
      if (typeof text !== "string" || text.length === 0) continue;
      if (this.open !== "text") {
        this.closeTools();
        writer.startText();
        this.open = "text";
      }
      writer.text(text);
    }

    const toolCalls = delta.tool_calls;
    if (Array.isArray(toolCalls)) {
      for (const [position, call] of toolCalls.entries()) {
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

  private closeTools(): void {
    if (this.tools.busy) this.tools.finish();
  }
}
