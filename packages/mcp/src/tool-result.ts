/**
 * An MCP `tools/call` result as an AgentTool result: text stays text, images stay images, resource links and
 * embedded resources become text the model can read (an embedded image resource stays an image), audio
 * becomes a note, and `structuredContent` without content becomes its JSON.
 */
import type { AgentToolResult } from "@arbor/agent-core";
import type { ImageContent, TextContent } from "@arbor/ai-providers";

/** The details of an MCP tool result: which server and tool answered, and its structured content. */
export interface McpToolResultDetails {
  server: string;
  tool: string;
  structuredContent?: unknown;
}

type Block = Record<string, unknown>;

function describeResource(resource: Block): string {
  const parts = [String(resource.uri ?? "")];
  if (typeof resource.mimeType === "string") parts.push(`(${resource.mimeType})`);
  return parts.join(" ");
}

function mapBlock(block: Block): TextContent | ImageContent {
  switch (block.type) {
    case "text":
      return { type: "text", text: String(block.text ?? "") };
    case "image":
      return {
        type: "image",
        data: String(block.data ?? ""),
        mimeType: String(block.mimeType ?? "image/png"),
      };
    case "resource_link": {
      const title = typeof block.name === "string" ? `${block.name}: ` : "";
      const description = typeof block.description === "string" ? ` — ${block.description}` : "";
      return { type: "text", text: `[resource link] ${title}${describeResource(block)}${description}` };
    }
    case "resource": {
      const resource = (block.resource ?? {}) as Block;
      if (typeof resource.text === "string") {
        return { type: "text", text: `[resource ${describeResource(resource)}]\n${resource.text}` };
      }
      const mimeType = typeof resource.mimeType === "string" ? resource.mimeType : "";
      if (typeof resource.blob === "string" && mimeType.startsWith("image/")) {
        return { type: "image", data: resource.blob, mimeType };
      }
      return { type: "text", text: `[resource ${describeResource(resource)}: binary content not shown]` };
    }
    case "audio":
      return { type: "text", text: `[audio ${String(block.mimeType ?? "")}: not shown]` };
    default:
      return { type: "text", text: `[${String(block.type)} content not shown]` };
  }
}

/**
 * Maps a `tools/call` result.
 *
 * Contract: pure; never throws on an unexpected shape (unknown blocks, and entries that are not blocks, become
 * a note); `isError` is kept when it is `true`.
 */
export function mcpResultToToolResult(
  result: { content?: unknown; structuredContent?: unknown; isError?: unknown; toolResult?: unknown },
  server: string,
  tool: string,
): AgentToolResult<McpToolResultDetails> {
  const blocks: unknown[] = Array.isArray(result.content) ? result.content : [];
  const content = blocks.map((block) =>
    typeof block === "object" && block !== null
      ? mapBlock(block as Block)
      : { type: "text" as const, text: "[unreadable content block]" },
  );
  if (content.length === 0 && result.structuredContent !== undefined) {
    content.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  }
  if (content.length === 0 && result.toolResult !== undefined) {
    content.push({ type: "text", text: JSON.stringify(result.toolResult) });
  }
  if (content.length === 0) content.push({ type: "text", text: "(no output)" });
  const details: McpToolResultDetails = { server, tool };
  if (result.structuredContent !== undefined) details.structuredContent = result.structuredContent;
  return { content, details, ...(result.isError === true ? { isError: true } : {}) };
}
