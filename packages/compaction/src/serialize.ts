import type { ImageContent, TextContent } from "@arbor/ai-providers";
import type { SessionMessage } from "@arbor/session-store";

/**
 * The conversation as the summarizer reads it: plain, labelled text (`[User]: …`, `[Assistant]: …`,
 * `[Tool result read]: …`) rather than chat messages, so that the model summarizes it instead of
 * continuing it. Bulky parts — tool results, tool-call arguments, thinking, command output — are cut to a
 * limit, keeping their beginning and end.
 */

/** Options of {@link serializeMessage}. */
export interface SerializeOptions {
  /** Longest tool result, tool-call argument list, thinking block or command output, in characters. */
  toolResultMaxChars: number;
}

/**
 * Fits a marker that says how many characters were left out into `maxChars`: returns the number of
 * characters of the text that can be kept and the marker, or undefined when not even the marker fits.
 */
function fitMarker(
  length: number,
  maxChars: number,
  marker: (omitted: number) => string,
): { keep: number; marker: string } | undefined {
  let text = marker(length - maxChars);
  for (let attempt = 0; attempt < 3; attempt++) {
    const keep = maxChars - text.length;
    if (keep < 0) return undefined;
    const next = marker(length - keep);
    if (next.length === text.length) return { keep, marker: next };
    text = next;
  }
  return undefined;
}

/**
 * Cuts a text to at most `maxChars` characters, keeping two thirds of what fits from its beginning and one
 * third from its end, around a marker saying how much was left out. Texts that fit are returned unchanged.
 */
export function truncateMiddle(text: string, maxChars: number): string {
  const max = Math.max(0, Math.floor(maxChars));
  if (text.length <= max) return text;
  const fit = fitMarker(text.length, max, (omitted) => `\n[… ${omitted} characters omitted …]\n`);
  if (fit === undefined) return text.slice(0, max);
  const head = Math.ceil((fit.keep * 2) / 3);
  const tail = fit.keep - head;
  return `${text.slice(0, head)}${fit.marker}${tail > 0 ? text.slice(text.length - tail) : ""}`;
}

/** Cuts a text to at most `maxChars` characters from its beginning, ending with a marker when cut. */
export function truncateEnd(text: string, maxChars: number): string {
  const max = Math.max(0, Math.floor(maxChars));
  if (text.length <= max) return text;
  const fit = fitMarker(text.length, max, (omitted) => ` [… ${omitted} characters omitted]`);
  if (fit === undefined) return text.slice(0, max);
  return `${text.slice(0, fit.keep)}${fit.marker}`;
}

/** The text of user-like content; images become `[image]`. */
export function contentText(content: string | readonly (TextContent | ImageContent)[]): string {
  if (typeof content === "string") return content;
  const parts: string[] = [];
  for (const block of content) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "image") parts.push("[image]");
  }
  return parts.join("\n");
}

/** `name(key=value, …)` with JSON values. */
function describeToolCall(name: string, args: unknown): string {
  if (typeof args !== "object" || args === null) return `${name}()`;
  const parts: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    let json: string;
    try {
      json = JSON.stringify(value) ?? "undefined";
    } catch {
      json = String(value);
    }
    parts.push(`${key}=${json}`);
  }
  return `${name}(${parts.join(", ")})`;
}

/**
 * One message as summarizer input, or undefined for a message the model never sees (an application's own
 * role, a `bashExecution` excluded from the context) or one with nothing to say.
 *
 * Contract: pure; never throws for messages of known roles.
 */
export function serializeMessage(message: SessionMessage, options: SerializeOptions): string | undefined {
  const limit = options.toolResultMaxChars;
  switch (message.role) {
    case "user": {
      const text = contentText(message.content);
      return text === "" ? undefined : `[User]: ${text}`;
    }
    case "assistant": {
      const lines: string[] = [];
      for (const block of message.content) {
        if (block.type === "thinking") {
          if (block.thinking !== "")
            lines.push(`[Assistant thinking]: ${truncateMiddle(block.thinking, limit)}`);
        } else if (block.type === "text") {
          if (block.text !== "") lines.push(`[Assistant]: ${block.text}`);
        } else if (block.type === "toolCall") {
          lines.push(
            `[Assistant tool call]: ${truncateMiddle(describeToolCall(block.name, block.arguments), limit)}`,
          );
        }
      }
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        lines.push(`[Assistant ${message.stopReason}]: ${message.errorMessage ?? "the response failed"}`);
      }
      return lines.length === 0 ? undefined : lines.join("\n");
    }
    case "toolResult": {
      const label = `[Tool result ${message.toolName}${message.isError ? " (error)" : ""}]`;
      return `${label}: ${truncateMiddle(contentText(message.content), limit)}`;
    }
    case "custom": {
      const text = contentText(message.content);
      return text === "" ? undefined : `[Message ${message.customType}]: ${text}`;
    }
    case "bashExecution": {
      if (message.excludeFromContext === true) return undefined;
      const status = message.cancelled
        ? " (cancelled)"
        : message.exitCode !== undefined && message.exitCode !== 0
          ? ` (exit code ${message.exitCode})`
          : "";
      return `[User ran]: ${message.command}${status}\n${truncateMiddle(message.output, limit)}`;
    }
    case "compactionSummary":
      return `[Summary of earlier conversation]: ${message.summary}`;
    case "branchSummary":
      return `[Summary of an abandoned branch]: ${message.summary}`;
    default:
      return undefined;
  }
}
