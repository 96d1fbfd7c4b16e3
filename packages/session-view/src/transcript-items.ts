/**
 * What the transcript shows, as plain data: one item per user message, assistant reply, tool call with its
 * result, compaction, branch summary and notice. Items are built once, when their message is complete, and
 * never change, so a renderer can print each one once (ink's `<Static>`, an append-only list).
 */
import type { AssistantMessage, ToolResultMessage } from "@arbor/ai-providers";
import type { HarnessSessionState } from "@arbor/harness";
import type { SessionMessage } from "@arbor/session-store";
import { diffCounts, diffRows } from "./diff-rows.js";
import { type HeadLines, headLines, singleLine } from "./format.js";
import { contentText } from "./message-text.js";
import { summaryDisplayText } from "./summary-text.js";
import { toolArgumentsText } from "./tool-call-line.js";
import { type ToolDiff, toolDiff } from "./tool-diff.js";

/** A message of a harness session's transcript (what `session.state.messages` holds). */
export type ViewMessage = HarnessSessionState["messages"][number];

/**
 * A piece of a finished assistant reply: its Markdown source (the renderer parses it) or a thinking block.
 */
export type AssistantBlock =
  | { kind: "markdown"; text: string }
  | { kind: "thinking"; text: string; redacted: boolean };

/** How loud a notice is. */
export type NoticeLevel = "info" | "success" | "warning" | "error";

/** One printed piece of the transcript. `key` is unique within a run of the UI. */
export type TranscriptItem =
  | { kind: "banner"; key: string; title: string; lines: readonly string[] }
  | { kind: "user"; key: string; text: string; note: string | undefined }
  | { kind: "assistant"; key: string; blocks: readonly AssistantBlock[] }
  | {
      kind: "tool";
      key: string;
      name: string;
      argumentLine: string;
      output: HeadLines;
      isError: boolean;
      /** The file change of an `edit` or `write` (shown instead of the output). */
      diff?: ToolDiff;
      /** The result's content, kept (by reference) so the whole output can be shown on request. */
      content?: ToolResultMessage["content"];
      /** True for an item that shows everything (the expansion of a cut one). */
      expanded?: boolean;
    }
  | { kind: "notice"; key: string; level: NoticeLevel; text: string }
  | { kind: "compaction"; key: string; tokensBefore: number; tokensAfter: number | undefined; reason: string }
  | { kind: "branchSummary"; key: string; summary: HeadLines }
  | { kind: "custom"; key: string; label: string; text: HeadLines }
  | { kind: "separator"; key: string; text: string };

/** An item before the store gives it its key. */
export type TranscriptItemInput = TranscriptItem extends infer Item
  ? Item extends TranscriptItem
    ? Omit<Item, "key">
    : never
  : never;

/** Lines of a tool's output shown under its call. */
export const TOOL_OUTPUT_LINES = 6;
/** Rows of a diff shown under an `edit` or `write` before it is cut. */
export const TOOL_DIFF_ROWS = 16;
/** Lines of a tool's output shown when it is expanded. */
export const EXPANDED_OUTPUT_LINES = 2000;
/** Lines of a user message shown before it is cut. */
export const USER_MESSAGE_LINES = 12;
/** Lines of a summary shown. */
export const SUMMARY_LINES = 4;

const SKILL_BLOCK = /^<skill name="([^"]+)"[^>]*>[\s\S]*?<\/skill>(?:\n\n([\s\S]*))?$/;

/**
 * A user message as the user typed it: an expanded `/skill:name` block shows as `/skill:name request`;
 * long text is cut to {@link USER_MESSAGE_LINES} lines.
 *
 * Contract: pure.
 */
export function userDisplayText(text: string): string {
  const skill = SKILL_BLOCK.exec(text);
  const shown = skill === null ? text : `/skill:${skill[1]}${skill[2] ? ` ${skill[2]}` : ""}`;
  const head = headLines(shown, USER_MESSAGE_LINES, 400);
  return head.more > 0 ? `${head.lines.join("\n")}\n… ${head.more} more lines` : head.lines.join("\n");
}

/**
 * The blocks of a finished assistant reply: text (Markdown source), thinking kept (shown collapsed); tool
 * calls are left out (each shows with its result as a `tool` item).
 *
 * Contract: pure; never throws for well-formed messages.
 */
export function assistantBlocks(message: AssistantMessage): AssistantBlock[] {
  const blocks: AssistantBlock[] = [];
  for (const block of message.content) {
    if (block.type === "text" && block.text.trim() !== "") {
      blocks.push({ kind: "markdown", text: block.text });
    } else if (block.type === "thinking" && (block.thinking.trim() !== "" || block.redacted === true)) {
      blocks.push({ kind: "thinking", text: block.thinking, redacted: block.redacted === true });
    }
  }
  return blocks;
}

/** The notice of a reply that failed or was aborted, if it did. */
export function assistantEndNotice(message: AssistantMessage): TranscriptItemInput | undefined {
  if (message.stopReason === "aborted") {
    return { kind: "notice", level: "warning", text: `aborted${suffix(message.errorMessage)}` };
  }
  if (message.stopReason === "error") {
    return { kind: "notice", level: "error", text: `error: ${message.errorMessage ?? "the request failed"}` };
  }
  if (message.stopReason === "length") {
    return { kind: "notice", level: "warning", text: "the reply hit the model's output limit" };
  }
  return undefined;
}

/**
 * A warning notice for each part of a reply its provider could not read (the message's `notices`), so
 * nothing it received is dropped unseen.
 *
 * Contract: pure; ignores notices that are not strings.
 */
export function assistantNotices(message: AssistantMessage): TranscriptItemInput[] {
  const notices = Array.isArray(message.notices) ? message.notices : [];
  return notices
    .filter((notice): notice is string => typeof notice === "string" && notice !== "")
    .map((notice) => ({ kind: "notice", level: "warning", text: notice }));
}

function suffix(text: string | undefined): string {
  if (text === undefined || text === "" || /^(request )?aborted\.?$/i.test(text)) return "";
  // A provider's "Request aborted: <reason>": the reason says it (`aborted: interrupted (Ctrl-C)`).
  return `: ${text.replace(/^request aborted: /i, "")}`;
}

/** A tool call and its result as a transcript item (a file change shows as its diff). */
export function toolItem(
  name: string,
  args: unknown,
  content: ToolResultMessage["content"] | undefined,
  isError: boolean,
  details?: unknown,
): TranscriptItemInput {
  const diff = toolDiff({ name, args }, { details, isError });
  return {
    kind: "tool",
    name,
    argumentLine: diff === undefined ? (args === undefined ? "" : toolArgumentsText(args)) : diffLine(diff),
    output: headLines(contentText(content ?? []), TOOL_OUTPUT_LINES, 160),
    isError,
    ...(diff === undefined ? {} : { diff }),
    ...(content === undefined ? {} : { content }),
  };
}

/** `math.js (+3 −1)`, or `notes.md (new, +12)`: a file change on one line. */
export function diffLine(diff: ToolDiff): string {
  return diff.created ? `${diff.path} (new, +${diff.added})` : `${diff.path} (${diffCounts(diff)})`;
}

/**
 * Whether a tool item shows less than it holds: output lines or diff rows cut.
 *
 * Contract: pure.
 */
export function isCutToolItem(item: TranscriptItem | TranscriptItemInput): boolean {
  if (item.kind !== "tool" || item.expanded === true) return false;
  if (item.diff !== undefined) return diffRows(item.diff, TOOL_DIFF_ROWS).more > 0;
  return item.output.more > 0;
}

/**
 * A tool item with everything it holds: up to {@link EXPANDED_OUTPUT_LINES} lines of its output, every row
 * of its diff.
 *
 * Contract: pure; the result has `expanded: true`.
 */
export function expandedToolItem(item: Extract<TranscriptItem, { kind: "tool" }>): TranscriptItemInput {
  const { key: _key, ...rest } = item;
  const text = item.content === undefined ? item.output.lines.join("\n") : contentText(item.content);
  return { ...rest, output: headLines(text, EXPANDED_OUTPUT_LINES, 4000), expanded: true };
}

/** What a tool call asked for, remembered until its result arrives. */
export interface ToolCallInfo {
  name: string;
  args: unknown;
}

/** The tool calls of an assistant message, by id. */
export function toolCallsOf(message: AssistantMessage): Map<string, ToolCallInfo> {
  const calls = new Map<string, ToolCallInfo>();
  for (const block of message.content) {
    if (block.type === "toolCall") calls.set(block.id, { name: block.name, args: block.arguments });
  }
  return calls;
}

/**
 * The items of a message of a built context (for replaying a session's history): user messages, replies
 * (and their failure notices), tool results with their calls (looked up in `calls`, which the replies
 * fill), summaries and displayed custom messages.
 *
 * Contract: pure except that it adds the tool calls of replies to `calls`.
 */
export function itemsOfMessage(
  message: ViewMessage,
  calls: Map<string, ToolCallInfo>,
): TranscriptItemInput[] {
  const session = message as unknown as SessionMessage;
  switch (session.role) {
    case "user":
      return [{ kind: "user", text: userDisplayText(contentText(session.content)), note: undefined }];
    case "assistant": {
      for (const [id, call] of toolCallsOf(session)) calls.set(id, call);
      const items: TranscriptItemInput[] = [];
      const blocks = assistantBlocks(session);
      if (blocks.length > 0) items.push({ kind: "assistant", blocks });
      items.push(...assistantNotices(session));
      const notice = assistantEndNotice(session);
      if (notice !== undefined) items.push(notice);
      return items;
    }
    case "toolResult": {
      const call = calls.get(session.toolCallId);
      calls.delete(session.toolCallId);
      return [
        toolItem(
          call?.name ?? session.toolName,
          call?.args,
          session.content,
          session.isError,
          session.details,
        ),
      ];
    }
    case "compactionSummary":
      return [
        { kind: "compaction", tokensBefore: session.tokensBefore, tokensAfter: undefined, reason: "earlier" },
      ];
    case "branchSummary":
      return [
        {
          kind: "branchSummary",
          summary: headLines(summaryDisplayText(session.summary), SUMMARY_LINES, 200),
        },
      ];
    case "custom":
      if (!session.display) return [];
      return [
        { kind: "custom", label: session.customType, text: headLines(contentText(session.content), 6) },
      ];
    case "bashExecution":
      return [
        {
          kind: "tool",
          name: "!",
          argumentLine: singleLine(session.command),
          output: headLines(session.output, TOOL_OUTPUT_LINES, 160),
          isError: session.exitCode !== undefined && session.exitCode !== 0,
        },
      ];
    default:
      return [];
  }
}
