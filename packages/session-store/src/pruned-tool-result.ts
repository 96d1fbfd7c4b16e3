import type { ToolResultMessage } from "@arbor/ai-providers";

/**
 * The stub that stands in a built context for a tool result a `prune` entry names (docs/session-format.md,
 * "prune"): one line saying how large the output was, which entry holds it and how to `recall` it. One
 * builder, so that the context and compaction's planning (which estimates the stub's size) agree.
 */

/** The `details` of a stub (never sent to the model): what it replaces. */
export interface PrunedToolResultDetails {
  /** Marks a stub. */
  pruned: true;
  /** The `message` entry that holds the whole result. */
  entryId: string;
  /** Characters of the result's text blocks. */
  characters: number;
  /** Images of the result. */
  images: number;
}

/** What the original result held: characters of its text blocks and its images. */
function sizeOf(content: unknown): { characters: number; images: number } {
  if (typeof content === "string") return { characters: content.length, images: 0 };
  let characters = 0;
  let images = 0;
  if (Array.isArray(content)) {
    for (const block of content as { type?: unknown; text?: unknown }[]) {
      if (block?.type === "text" && typeof block.text === "string") characters += block.text.length;
      else if (block?.type === "image") images++;
    }
  }
  return { characters, images };
}

/**
 * The one line a stub shows, e.g. `[Output pruned to save context: 48,210 characters (entry 1a2b3c4d). Call
 * recall with {"toolCallId":"call_abc"} to see it again.]`; images are counted after the characters.
 *
 * Contract: pure; one line whatever the id holds (it is written as JSON).
 */
export function prunedToolResultText(
  toolCallId: string,
  entryId: string,
  size: { characters: number; images: number },
): string {
  const images = size.images === 0 ? "" : ` and ${size.images} image${size.images === 1 ? "" : "s"}`;
  const characters = `${size.characters.toLocaleString("en-US")} character${size.characters === 1 ? "" : "s"}`;
  return (
    `[Output pruned to save context: ${characters}${images} (entry ${JSON.stringify(entryId).slice(1, -1)}). ` +
    `Call recall with ${JSON.stringify({ toolCallId })} to see it again.]`
  );
}

/**
 * The stub of a pruned tool result: same `toolCallId`, `toolName`, `isError` and `timestamp`, one text block
 * ({@link prunedToolResultText}), and {@link PrunedToolResultDetails} as `details` (the original's details
 * are left out with its content).
 *
 * Contract: pure; never mutates `message`; returns a new object whose estimated size depends only on the
 * original's size, its `toolCallId` and `entryId`.
 */
export function prunedToolResult(message: ToolResultMessage, entryId: string): ToolResultMessage {
  const size = sizeOf(message.content);
  const details: PrunedToolResultDetails = { pruned: true, entryId, ...size };
  return {
    role: "toolResult",
    toolCallId: message.toolCallId,
    toolName: message.toolName,
    content: [{ type: "text", text: prunedToolResultText(message.toolCallId, entryId, size) }],
    details,
    isError: message.isError,
    timestamp: message.timestamp,
  };
}

/** True when a message is a stub {@link prunedToolResult} built. */
export function isPrunedToolResult(message: { role: string; details?: unknown }): boolean {
  const details = message.details as Partial<PrunedToolResultDetails> | null | undefined;
  return message.role === "toolResult" && details?.pruned === true && typeof details.entryId === "string";
}
