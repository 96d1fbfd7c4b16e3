/**
 * A message's content as plain text, the one rule every view uses: a string is itself; an array of blocks
 * gives its text blocks, one per line, and its images as `[image <type>]` (or nothing). Other blocks
 * (thinking, tool calls) and malformed values are left out, so content from a damaged file never throws.
 */

/** Options of {@link contentText}. */
export interface ContentTextOptions {
  /** How images show: `mark` (`[image image/png]`, the default) or `omit`. */
  images?: "mark" | "omit";
}

/**
 * The text of a message's content (a string, or text and image blocks).
 *
 * Contract: pure; never throws, whatever `content` holds; O(content).
 */
export function contentText(content: unknown, options: ContentTextOptions = {}): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const images = options.images ?? "mark";
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block !== "object" || block === null) continue;
    const typed = block as { type?: unknown; text?: unknown; mimeType?: unknown };
    if (typed.type === "text" && typeof typed.text === "string") parts.push(typed.text);
    else if (typed.type === "image" && images === "mark") {
      parts.push(`[image ${String(typed.mimeType ?? "")}]`.replace(" ]", "]"));
    }
  }
  return parts.join("\n");
}

/**
 * The text of a message (its `content`, see {@link contentText}); empty for values without content.
 *
 * Contract: pure; never throws.
 */
export function messageText(message: unknown, options: ContentTextOptions = {}): string {
  if (typeof message !== "object" || message === null) return "";
  return contentText((message as { content?: unknown }).content, options);
}
