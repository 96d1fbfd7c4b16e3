import type {
  Base64ImageSource,
  CacheControlEphemeral,
  ContentBlockParam,
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import {
  type AssistantMessage,
  type ImageContent,
  type Message,
  type Model,
  type TextContent,
  type ToolResultMessage,
  transformMessages,
} from "@arbor/ai-providers";

/** A user or assistant turn as sent: content always as blocks, so a cache breakpoint can be set. */
type Turn = { role: "user" | "assistant"; content: ContentBlockParam[] };

/** True for text the API accepts in a text block (it rejects empty and whitespace-only text). */
function hasText(text: string): boolean {
  return text.trim().length > 0;
}

function imageBlock(image: ImageContent): ImageBlockParam {
  return {
    type: "image",
    source: {
      type: "base64",
      media_type: image.mimeType as Base64ImageSource["media_type"],
      data: image.data,
    },
  };
}

function userBlocks(content: string | (TextContent | ImageContent)[]): (TextBlockParam | ImageBlockParam)[] {
  if (typeof content === "string") return hasText(content) ? [{ type: "text", text: content }] : [];
  const blocks: (TextBlockParam | ImageBlockParam)[] = [];
  for (const block of content) {
    if (block.type === "image") blocks.push(imageBlock(block));
    else if (hasText(block.text)) blocks.push({ type: "text", text: block.text });
  }
  return blocks;
}

function assistantBlocks(message: AssistantMessage): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        if (hasText(block.text)) blocks.push({ type: "text", text: block.text });
        break;
      case "thinking":
        // transformMessages keeps thinking blocks only for the model that wrote them: they go back with
        // their signatures. A block without one (a stream cut before its signature) cannot be verified by
        // the API, so its text goes back as plain text.
        if (block.redacted) {
          if (block.thinkingSignature)
            blocks.push({ type: "redacted_thinking", data: block.thinkingSignature });
        } else if (block.thinkingSignature) {
          blocks.push({ type: "thinking", thinking: block.thinking, signature: block.thinkingSignature });
        } else if (hasText(block.thinking)) {
          blocks.push({ type: "text", text: block.thinking });
        }
        break;
      case "toolCall":
        blocks.push({ type: "tool_use", id: block.id, name: block.name, input: block.arguments });
        break;
    }
  }
  return blocks;
}

function toolResultBlock(message: ToolResultMessage): ToolResultBlockParam {
  const content = userBlocks(message.content);
  const block: ToolResultBlockParam = { type: "tool_result", tool_use_id: message.toolCallId };
  if (content.length > 0) block.content = content;
  if (message.isError) block.is_error = true;
  return block;
}

/**
 * Converts a conversation to Anthropic `messages`:
 *
 * - `transformMessages()` first prepares it for the target model (failed turns dropped, other models'
 *   thinking turned into text and their tool-call ids normalized, every tool call answered).
 * - User text and images become `text` and `image` (base64) blocks; empty text is left out.
 * - Assistant text, thinking (with its signature; redacted thinking as `redacted_thinking`) and tool calls
 *   (`tool_use`) keep their order.
 * - Consecutive tool results become one user turn of `tool_result` blocks (text and images inside,
 *   `is_error` when set).
 * - A message left without content is dropped.
 * - With a `cacheControl`, the last block of the last user turn carries it (the conversation so far
 *   becomes a cache prefix).
 *
 * Contract: pure; never mutates `messages`; linear in the size of the conversation.
 */
export function convertMessages(
  messages: readonly Message[],
  model: Model,
  cacheControl?: CacheControlEphemeral,
): MessageParam[] {
  const turns: Turn[] = [];
  let toolResults: Turn | undefined;
  for (const message of transformMessages(messages, model)) {
    if (message.role === "toolResult") {
      if (toolResults === undefined) {
        toolResults = { role: "user", content: [] };
        turns.push(toolResults);
      }
      toolResults.content.push(toolResultBlock(message));
      continue;
    }
    toolResults = undefined;
    const content = message.role === "user" ? userBlocks(message.content) : assistantBlocks(message);
    if (content.length > 0) turns.push({ role: message.role, content });
  }
  if (cacheControl !== undefined) {
    for (let index = turns.length - 1; index >= 0; index--) {
      const turn = turns[index]!;
      if (turn.role !== "user") continue;
      const last = turn.content[turn.content.length - 1];
      if (last !== undefined) turn.content[turn.content.length - 1] = withCacheControl(last, cacheControl);
      break;
    }
  }
  return turns;
}

function withCacheControl(block: ContentBlockParam, cacheControl: CacheControlEphemeral): ContentBlockParam {
  return { ...block, cache_control: cacheControl } as ContentBlockParam;
}
