import type { AgentMessage } from "@arbor/agent-core";
import type { ImageContent, TextContent, ToolResultMessage } from "@arbor/ai-providers";
import {
  cutNote,
  limitToolOutput,
  TOOL_OUTPUT_HEAD_SHARE,
  type ToolOutputCut,
  toolOutputChars,
} from "./tool-output-budget.js";

/**
 * Tool results fitted again to a smaller window, for one request: a result is cut to the tool-output budget
 * of the window in effect when it ran, so when a server later states a smaller window (an overflow), the
 * results already in the context can be larger than the new budget allows. For the request only — the
 * session's entries stay as they are — each such result is cut again: a whole result as
 * `limitToolOutput` cuts it, a result that was cut already by keeping less of its head and tail (both are
 * exact slices of the whole output, so the note's `recall` offset stays right).
 */

/**
 * The messages with every tool result over `maxTokens` cut to it (see the module). Returns the same array
 * when none is over.
 *
 * Contract: pure; never throws; O(messages); never changes the input.
 */
export function refitToolResults(messages: AgentMessage[], maxTokens: number): AgentMessage[] {
  const maxChars = toolOutputChars(maxTokens);
  let out: AgentMessage[] | undefined;
  messages.forEach((message, index) => {
    if (message.role !== "toolResult") return;
    const refit = refitToolResult(message as ToolResultMessage, maxChars);
    if (refit === undefined) return;
    out ??= [...messages];
    out[index] = refit as AgentMessage;
  });
  return out ?? messages;
}

function refitToolResult(message: ToolResultMessage, maxChars: number): ToolResultMessage | undefined {
  const content = message.content as (TextContent | ImageContent)[];
  let chars = 0;
  for (const block of content) chars += block.type === "text" ? block.text.length : 0;
  if (chars <= maxChars) return undefined;
  const cut = outputCutOf(message.details);
  if (
    cut === undefined ||
    cut.nextOffset === undefined ||
    content.length !== 1 ||
    content[0]!.type !== "text"
  ) {
    const limited = limitToolOutput(content, { maxChars, toolCallId: message.toolCallId });
    return limited.cut === undefined ? undefined : { ...message, content: limited.content };
  }
  // Cut before: the head is the whole output's first `nextOffset` characters, the tail its last ones.
  const text = (content[0] as TextContent).text;
  const headChars = cut.nextOffset;
  const tailChars = Math.max(0, cut.shownChars - headChars);
  const head = text.slice(0, headChars);
  const tail = tailChars > 0 ? text.slice(text.length - tailChars) : "";
  const newHead = Math.min(head.length, Math.floor(maxChars * TOOL_OUTPUT_HEAD_SHARE));
  const newTail = Math.min(tail.length, maxChars - newHead);
  const note = `\n\n${cutNote(message.toolCallId, newHead, newTail, cut.totalChars)}\n\n`;
  const refit = `${head.slice(0, newHead)}${note}${newTail > 0 ? tail.slice(tail.length - newTail) : ""}`;
  return { ...message, content: [{ type: "text", text: refit }] };
}

function outputCutOf(details: unknown): ToolOutputCut | undefined {
  if (typeof details !== "object" || details === null) return undefined;
  const cut = (details as { outputCut?: unknown }).outputCut;
  if (typeof cut !== "object" || cut === null) return undefined;
  const { totalChars, shownChars, nextOffset } = cut as Partial<ToolOutputCut>;
  if (typeof totalChars !== "number" || typeof shownChars !== "number") return undefined;
  if (nextOffset !== undefined && typeof nextOffset !== "number") return undefined;
  return cut as ToolOutputCut;
}
