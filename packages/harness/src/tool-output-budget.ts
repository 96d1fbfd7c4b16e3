import type { AfterToolCallContext, AfterToolCallResult } from "@arbor/agent-core";
import type { ImageContent, TextContent } from "@arbor/ai-providers";
import { CHARS_PER_TOKEN, IMAGE_CHARS } from "@arbor/compaction";

/**
 * The tool-output budget (docs/context-budget.md, "Tool output budget"): the result of every tool call — built-in,
 * MCP, extension; `recall` excepted — reaches the model within a budget of characters. A longer result is cut to
 * its head (80%) and tail (20%), at line ends where possible, with a note in plain words saying how much is
 * shown and which `recall` call reads on; images that do not fit are left out with a note. The whole output is
 * kept in the session as a `custom` entry {@link TOOL_OUTPUT_ENTRY}, which the model never sees.
 */

/** The `customType` of the entry that keeps the whole output of a tool call whose result was cut. */
export const TOOL_OUTPUT_ENTRY = "arbor.tool_output";

/** The share of the shown characters taken from the head of a cut output (the rest is its tail). */
export const TOOL_OUTPUT_HEAD_SHARE = 0.8;

/** The `data` of a {@link TOOL_OUTPUT_ENTRY} entry: the whole output of one tool call. */
export interface ToolOutputRecord {
  /** The tool call the output answers. */
  toolCallId: string;
  /** The tool's name. */
  toolName: string;
  /** The whole text of the result: its text blocks joined by a line break (offsets count in it). */
  text: string;
  /** `text.length`. */
  totalChars: number;
  /** The images left out of the result the model saw (absent: none). */
  images?: ImageContent[];
}

/** What a cut result's `details.outputCut` says (small: the whole output is in the session entry). */
export interface ToolOutputCut {
  /** Characters of the whole text. */
  totalChars: number;
  /** Characters of it the model sees (head + tail, without the note). */
  shownChars: number;
  /** Where `recall` with the call's `toolCallId` reads on: the end of the head (set when the text was cut). */
  nextOffset?: number;
  /** Images left out (set when some were). */
  imagesLeftOut?: number;
}

/** What {@link limitToolOutput} needs. */
export interface ToolOutputLimit {
  /** Most characters the model may see of the result; images count {@link IMAGE_CHARS} each. */
  maxChars: number;
  /** The call's id, for the note's `recall` call. */
  toolCallId: string;
}

/** The outcome of {@link limitToolOutput}. */
export interface LimitedToolOutput {
  /** What the model sees: the input itself when it fits. */
  content: (TextContent | ImageContent)[];
  /** Set when something was cut or left out. */
  cut?: ToolOutputCut;
  /** Set with `cut`: the whole text ({@link ToolOutputRecord.text}). */
  text?: string;
  /** Set with `cut`: the images left out. */
  leftOut?: ImageContent[];
  /** Set when the text was cut: the note the model sees between head and tail (with its blank lines). */
  note?: string;
}

/** The characters of a budget of `tokens` (the estimator's `CHARS_PER_TOKEN` per token). */
export function toolOutputChars(tokens: number): number {
  return Math.max(0, Math.floor(tokens)) * CHARS_PER_TOKEN;
}

/**
 * Fits a tool result's content to `maxChars`: the text blocks (joined by a line break) and the images, each
 * counting {@link IMAGE_CHARS}. Content that fits is returned as it is. Otherwise images are kept, in order,
 * while they fit in what the text leaves (the text keeps up to half of the budget), and the text is cut to
 * its first 80% and last 20% of the room left, at line ends when one lies in the outer half of either part,
 * never inside a surrogate pair. The cut text becomes one block — head, the note, tail — followed by the kept
 * images, then a note naming the images left out.
 *
 * Contract: pure; never throws. The model sees at most `maxChars` characters of the original (head + tail +
 * the kept images' count) plus the notes; head and tail are exact slices of the whole text, and the note's
 * numbers are theirs.
 */
export function limitToolOutput(
  content: readonly (TextContent | ImageContent)[],
  limit: ToolOutputLimit,
): LimitedToolOutput {
  const maxChars = Math.max(0, Math.floor(limit.maxChars));
  const texts: string[] = [];
  const images: ImageContent[] = [];
  for (const block of content) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "image") images.push(block);
  }
  const text = texts.length === 1 ? texts[0]! : texts.join("\n");
  const totalChars = text.length;
  if (totalChars + images.length * IMAGE_CHARS <= maxChars)
    return { content: content as LimitedToolOutput["content"] };

  const imageRoom = maxChars - Math.min(totalChars, Math.ceil(maxChars / 2));
  const kept: ImageContent[] = [];
  const leftOut: ImageContent[] = [];
  for (const image of images) {
    if ((kept.length + 1) * IMAGE_CHARS <= imageRoom && leftOut.length === 0) kept.push(image);
    else leftOut.push(image);
  }
  const textRoom = maxChars - kept.length * IMAGE_CHARS;
  const cut: ToolOutputCut = { totalChars, shownChars: totalChars };
  const result: LimitedToolOutput = { content: [], cut, text, leftOut };

  if (totalChars > textRoom) {
    const { headEnd, tailStart } = cutPoints(text, textRoom);
    const tailChars = totalChars - tailStart;
    cut.shownChars = headEnd + tailChars;
    cut.nextOffset = headEnd;
    const note = `\n\n${cutNote(limit.toolCallId, headEnd, tailChars, totalChars)}\n\n`;
    result.note = note;
    result.content.push({ type: "text", text: `${text.slice(0, headEnd)}${note}${text.slice(tailStart)}` });
    result.content.push(...kept);
  } else {
    // The text fits: only images are left out; the other blocks keep their order.
    result.content.push(...content.filter((block) => block.type !== "image" || kept.includes(block)));
  }
  if (leftOut.length > 0) {
    cut.imagesLeftOut = leftOut.length;
    result.content.push({ type: "text", text: imagesNote(leftOut) });
  }
  return result;
}

/** Where the head ends and the tail starts when `room` characters of `text` can be shown. */
function cutPoints(text: string, room: number): { headEnd: number; tailStart: number } {
  const total = text.length;
  const headRoom = Math.floor(room * TOOL_OUTPUT_HEAD_SHARE);
  const tailRoom = room - headRoom;
  let headEnd = headRoom;
  const newline = headRoom > 0 ? text.lastIndexOf("\n", headRoom - 1) : -1;
  if (newline >= 0 && newline + 1 >= headRoom / 2) headEnd = newline + 1;
  if (headEnd > 0 && isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd--;
  let tailStart = total - tailRoom;
  if (tailRoom > 0) {
    const next = text.indexOf("\n", tailStart);
    if (next >= 0 && next + 1 < total && next + 1 <= tailStart + tailRoom / 2) tailStart = next + 1;
  }
  if (tailStart < total && isLowSurrogate(text.charCodeAt(tailStart))) tailStart++;
  return { headEnd, tailStart: Math.max(tailStart, headEnd) };
}

/** The note between head and tail: how much is shown, and the `recall` call that reads on. */
export function cutNote(
  toolCallId: string,
  headChars: number,
  tailChars: number,
  totalChars: number,
): string {
  const shown =
    tailChars > 0
      ? `the first ${count(headChars)} and last ${count(tailChars)}`
      : `the first ${count(headChars)}`;
  const call = JSON.stringify({ toolCallId, offset: headChars });
  return (
    `[Output cut to fit the context: showing ${shown} of ${count(totalChars)} characters. ` +
    `The whole output is kept in the session: call recall with ${call} to read on.]`
  );
}

function imagesNote(images: readonly ImageContent[]): string {
  const described = images
    .map((image) => `${image.mimeType}, ${count(Math.floor((image.data.length * 3) / 4))} bytes`)
    .join("; ");
  const what = images.length === 1 ? "1 image" : `${images.length} images`;
  return `[Left out to fit the context: ${what} (${described}). Kept in the session; recall returns text only.]`;
}

/**
 * Applies the budget to an executed call's result as the `tool_result` hooks left it (`patch` over
 * `call.result`): the patch to return from `afterToolCall`, and the record to keep when something was cut.
 * `details.outputCut` ({@link ToolOutputCut}) is added when the details are an object or absent; other
 * details stay as they are.
 *
 * Contract: pure; never throws.
 */
export function budgetToolResult(
  call: AfterToolCallContext,
  patch: AfterToolCallResult | undefined,
  maxTokens: number,
): { patch: AfterToolCallResult | undefined; record?: ToolOutputRecord } {
  const content = patch?.content ?? call.result.content;
  if (!Array.isArray(content)) return { patch };
  const limited = limitToolOutput(content, {
    maxChars: toolOutputChars(maxTokens),
    toolCallId: call.toolCall.id,
  });
  if (limited.cut === undefined) return { patch };
  const details = patch?.details !== undefined ? patch.details : call.result.details;
  const next: AfterToolCallResult = { ...patch, content: limited.content };
  if (details === undefined) next.details = { outputCut: limited.cut };
  else if (typeof details === "object" && details !== null && !Array.isArray(details)) {
    next.details = {
      ...withoutLargeStructuredContent(details, toolOutputChars(maxTokens)),
      outputCut: limited.cut,
    };
  }
  const record: ToolOutputRecord = {
    toolCallId: call.toolCall.id,
    toolName: call.toolCall.name,
    text: limited.text ?? "",
    totalChars: limited.cut.totalChars,
  };
  if (limited.leftOut !== undefined && limited.leftOut.length > 0) record.images = limited.leftOut;
  return { patch: next, record };
}

/**
 * Details without an MCP result's `structuredContent` when its JSON is longer than the budget: it repeats
 * the output (kept whole in the {@link TOOL_OUTPUT_ENTRY} entry), and the result message is read whenever
 * the context is built. `structuredContentLeftOut` gives its size.
 */
function withoutLargeStructuredContent(details: object, maxChars: number): object {
  if (!("structuredContent" in details)) return details;
  const { structuredContent, ...rest } = details as { structuredContent: unknown };
  const chars = JSON.stringify(structuredContent ?? null)?.length ?? 0;
  return chars <= maxChars ? details : { ...rest, structuredContentLeftOut: chars };
}

/** Reads a {@link ToolOutputRecord} from a custom entry's data; undefined when it is not one. */
export function readToolOutputRecord(data: unknown): ToolOutputRecord | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const record = data as Partial<ToolOutputRecord>;
  if (typeof record.toolCallId !== "string" || typeof record.text !== "string") return undefined;
  return {
    toolCallId: record.toolCallId,
    toolName: typeof record.toolName === "string" ? record.toolName : "",
    text: record.text,
    totalChars: record.text.length,
    ...(Array.isArray(record.images) ? { images: record.images } : {}),
  };
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
