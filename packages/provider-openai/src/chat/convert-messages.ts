import {
  type AssistantMessage,
  type Context,
  type ImageContent,
  type Model,
  type TextContent,
  type Tool,
  transformMessages,
} from "@arbor/ai-providers";
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type { OpenAICompat } from "../compat.js";

/** Fields in which compatible servers stream reasoning, kept as the thinking block's signature. */
export const REASONING_FIELDS = ["reasoning_content", "reasoning", "reasoning_text"] as const;

/** One of {@link REASONING_FIELDS}. */
export type ReasoningField = (typeof REASONING_FIELDS)[number];

function isReasoningField(value: string | undefined): value is ReasoningField {
  return value !== undefined && (REASONING_FIELDS as readonly string[]).includes(value);
}

/** A data URL for an image block. */
export function imageUrl(image: ImageContent): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/** User content: a plain string when it is only text (accepted by every server), else parts. */
function userContent(content: string | (TextContent | ImageContent)[]): string | ChatCompletionContentPart[] {
  if (typeof content === "string") return content;
  if (content.every((block) => block.type === "text")) {
    return content.map((block) => (block as TextContent).text).join("\n");
  }
  return content.map(
    (block): ChatCompletionContentPart =>
      block.type === "text"
        ? { type: "text", text: block.text }
        : { type: "image_url", image_url: { url: imageUrl(block) } },
  );
}

/** True when the message came from the model the request goes to. */
function isFromModel(message: AssistantMessage, model: Model): boolean {
  return message.provider === model.provider && message.api === model.api && message.model === model.id;
}

function assistantMessage(message: AssistantMessage, model: Model): ChatCompletionMessageParam | undefined {
  let text = "";
  let reasoning = "";
  let reasoningField: ReasoningField | undefined;
  const toolCalls: NonNullable<ChatCompletionAssistantMessageParam["tool_calls"]> = [];
  const sameModel = isFromModel(message, model);
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "toolCall") {
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.arguments) },
      });
    } else if (sameModel && isReasoningField(block.thinkingSignature) && !block.redacted) {
      // The server sent this reasoning in a field of its own; send it back the same way.
      reasoningField = block.thinkingSignature;
      reasoning += block.thinking;
    }
  }
  if (text.length === 0 && toolCalls.length === 0) return undefined;
  const converted: ChatCompletionAssistantMessageParam = {
    role: "assistant",
    content: text.length > 0 ? text : null,
  };
  if (toolCalls.length > 0) converted.tool_calls = toolCalls;
  if (reasoningField !== undefined && reasoning.length > 0) {
    (converted as unknown as Record<string, unknown>)[reasoningField] = reasoning;
  }
  return converted;
}

/** The system prompt's role: `developer` for reasoning models on servers that accept it. */
export function systemRole(model: Model, compat: OpenAICompat): "developer" | "system" {
  return model.reasoning && compat.supportsDeveloperRole ? "developer" : "system";
}

/**
 * Converts a context to Chat Completions messages. History goes through `transformMessages()` first
 * (ids normalized, thinking of other models turned to text, unanswered calls answered, images dropped
 * for text-only models). Tool results cannot carry images in Chat Completions: their text goes in the
 * `tool` message and their images follow, after the turn's last tool message, in one `user` message
 * that names the call they came from.
 */
export function convertChatMessages(
  model: Model,
  context: Context,
  compat: OpenAICompat,
): ChatCompletionMessageParam[] {
  const output: ChatCompletionMessageParam[] = [];
  if (context.systemPrompt) {
    output.push({ role: systemRole(model, compat), content: context.systemPrompt });
  }
  let pendingImages: ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    output.push({ role: "user", content: pendingImages });
    pendingImages = [];
  };
  for (const message of transformMessages(context.messages, model)) {
    if (message.role === "toolResult") {
      const text = message.content
        .filter((block): block is TextContent => block.type === "text")
        .map((block) => block.text)
        .join("\n");
      const images = message.content.filter((block): block is ImageContent => block.type === "image");
      output.push({
        role: "tool",
        tool_call_id: message.toolCallId,
        content: text.length > 0 || images.length === 0 ? text : "(the result is the image that follows)",
      });
      if (images.length > 0) {
        pendingImages.push({ type: "text", text: `Image output of tool call ${message.toolCallId}:` });
        for (const image of images)
          pendingImages.push({ type: "image_url", image_url: { url: imageUrl(image) } });
      }
      continue;
    }
    flushImages();
    if (message.role === "user") {
      output.push({ role: "user", content: userContent(message.content) });
    } else {
      const converted = assistantMessage(message, model);
      if (converted !== undefined) output.push(converted);
    }
  }
  flushImages();
  return output;
}

/** Tools in the Chat Completions shape. */
export function convertChatTools(tools: readonly Tool[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters as unknown as Record<string, unknown>,
    },
  }));
}
