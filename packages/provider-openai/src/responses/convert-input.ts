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
  FunctionTool,
  ResponseFunctionCallOutputItem,
  ResponseInputContent,
  ResponseInputItem,
  ResponseReasoningItem,
} from "openai/resources/responses/responses";
import { imageUrl, systemRole } from "../chat/convert-messages.js";
import type { OpenAICompat } from "../compat.js";

/**
 * Round-trip tokens of the Responses API, kept in Arbor's content blocks:
 *
 * - a thinking block's `thinkingSignature` is the whole reasoning item as JSON (`id`, `summary`,
 *   `encrypted_content`), sent back unchanged to the same model;
 * - a text block's `textSignature` is the output message's id (or `{"id","phase"}` as JSON when the
 *   model labelled the message's phase);
 * - a tool call's id is `<call_id>|<item id>`: `call_id` pairs the call with its result, the item id
 *   lets the same model see its own function-call item again.
 */

/** Joins a function call's `call_id` and item id into one tool-call id. */
export function joinToolCallId(callId: string, itemId: string | undefined): string {
  return itemId ? `${callId}|${itemId}` : callId;
}

/** Splits a tool-call id made by {@link joinToolCallId}. */
export function splitToolCallId(id: string): { callId: string; itemId: string | undefined } {
  const bar = id.indexOf("|");
  if (bar === -1) return { callId: id, itemId: undefined };
  return { callId: id.slice(0, bar), itemId: id.slice(bar + 1) || undefined };
}

/** Encodes an output message's id and phase as a text signature. */
export function encodeTextSignature(id: string, phase: string | null | undefined): string {
  return phase ? JSON.stringify({ id, phase }) : id;
}

function decodeTextSignature(signature: string): { id: string; phase?: "commentary" | "final_answer" } {
  if (!signature.startsWith("{")) return { id: signature };
  try {
    const parsed = JSON.parse(signature) as { id?: unknown; phase?: unknown };
    if (typeof parsed.id !== "string") return { id: signature };
    const phase = parsed.phase === "commentary" || parsed.phase === "final_answer" ? parsed.phase : undefined;
    return phase ? { id: parsed.id, phase } : { id: parsed.id };
  } catch {
    return { id: signature };
  }
}

/** The reasoning item in a thinking signature, when it is one that can be sent back. */
function reasoningItem(
  signature: string | undefined,
  compat: OpenAICompat,
): ResponseReasoningItem | undefined {
  if (!signature?.startsWith("{") || !compat.supportsEncryptedReasoning) return undefined;
  try {
    const item = JSON.parse(signature) as ResponseReasoningItem;
    if (item.type !== "reasoning" || typeof item.id !== "string" || !item.encrypted_content) return undefined;
    return {
      type: "reasoning",
      id: item.id,
      summary: item.summary ?? [],
      encrypted_content: item.encrypted_content,
    };
  } catch {
    return undefined;
  }
}

function inputContent(content: (TextContent | ImageContent)[]): ResponseInputContent[] {
  return content.map(
    (block): ResponseInputContent =>
      block.type === "text"
        ? { type: "input_text", text: block.text }
        : { type: "input_image", image_url: imageUrl(block), detail: "auto" },
  );
}

function isFromModel(message: AssistantMessage, model: Model): boolean {
  return message.provider === model.provider && message.api === model.api && message.model === model.id;
}

/**
 * An assistant message as input items. Item ids are sent only when every reasoning item of the
 * message goes back too: the API rejects a function call or message whose reasoning item is missing.
 */
function assistantItems(message: AssistantMessage, model: Model, compat: OpenAICompat): ResponseInputItem[] {
  const sameModel = isFromModel(message, model);
  const thinking = message.content.filter((block) => block.type === "thinking");
  const reasoning = sameModel ? thinking.map((block) => reasoningItem(block.thinkingSignature, compat)) : [];
  const keepIds = sameModel && reasoning.every((item) => item !== undefined);
  const items: ResponseInputItem[] = [];
  let thinkingIndex = 0;
  for (const block of message.content) {
    if (block.type === "thinking") {
      const item = reasoning[thinkingIndex++];
      if (item !== undefined && keepIds) items.push(item);
    } else if (block.type === "text") {
      if (block.text.length === 0) continue;
      if (keepIds && block.textSignature) {
        const { id, phase } = decodeTextSignature(block.textSignature);
        items.push({
          type: "message",
          role: "assistant",
          id,
          status: "completed",
          content: [{ type: "output_text", text: block.text, annotations: [] }],
          ...(phase ? { phase } : {}),
        });
      } else {
        items.push({ type: "message", role: "assistant", content: block.text });
      }
    } else if (block.type === "toolCall") {
      const { callId, itemId } = splitToolCallId(block.id);
      items.push({
        type: "function_call",
        call_id: callId,
        name: block.name,
        arguments: JSON.stringify(block.arguments),
        ...(keepIds && itemId ? { id: itemId } : {}),
      });
    }
  }
  return items;
}

/**
 * Converts a context to Responses API input items. History goes through `transformMessages()` first;
 * the system prompt is a `developer` message for reasoning models on servers that accept the role,
 * else `system`; images travel as `input_image` data URLs, in tool results too.
 */
export function convertResponsesInput(
  model: Model,
  context: Context,
  compat: OpenAICompat,
): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  if (context.systemPrompt) {
    items.push({ type: "message", role: systemRole(model, compat), content: context.systemPrompt });
  }
  for (const message of transformMessages(context.messages, model)) {
    if (message.role === "user") {
      items.push({
        type: "message",
        role: "user",
        content: typeof message.content === "string" ? message.content : inputContent(message.content),
      });
    } else if (message.role === "assistant") {
      items.push(...assistantItems(message, model, compat));
    } else {
      const onlyText = message.content.every((block) => block.type === "text");
      const output: string | ResponseFunctionCallOutputItem[] = onlyText
        ? message.content.map((block) => (block as TextContent).text).join("\n")
        : (inputContent(message.content) as ResponseFunctionCallOutputItem[]);
      items.push({
        type: "function_call_output",
        call_id: splitToolCallId(message.toolCallId).callId,
        output,
      });
    }
  }
  return items;
}

/** Tools in the Responses API shape (`strict: false`: Arbor validates arguments itself). */
export function convertResponsesTools(tools: readonly Tool[]): FunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters as unknown as Record<string, unknown>,
    strict: false,
  }));
}
