/**
 * One session entry as something to show: a kind, a title, a few facts, and content parts (text, thinking,
 * tool calls, tool output, images, summaries, raw data). `arbor sessions show`, the Markdown export and the
 * HTML export render the same view, so they agree on what an entry says. Entries come from files that may
 * be damaged or written by other programs, so every field is checked before it is used: a view never
 * throws.
 */

import type { SessionEntry } from "@arbor/session-store";
import { diffCounts } from "./diff-rows.js";
import { clipText, countOf, formatCount, singleLine } from "./format.js";
import { describePermissionRecord, permissionRecordOf } from "./permission-record.js";
import { summaryDisplayText } from "./summary-text.js";
import { safeJson, toolCallLine } from "./tool-call-line.js";
import { isFileChangeTool, type ToolDiff, type ToolDiffCall, toolDiff } from "./tool-diff.js";

/** A piece of an entry's content. */
export type EntryPart =
  | { kind: "text"; text: string }
  | { kind: "thinking"; text: string; redacted: boolean }
  | { kind: "toolCall"; name: string; callId: string; arguments: unknown }
  | { kind: "image"; mimeType: string; data: string }
  | { kind: "output"; text: string; isError: boolean }
  | { kind: "summary"; text: string }
  | { kind: "diff"; diff: ToolDiff }
  | { kind: "data"; value: unknown };

/** Options of {@link viewEntry}. */
export interface EntryViewOptions {
  /**
   * The call a tool result answers, by its id (for a file change whose result recorded no diff: the diff is
   * built from the call's arguments).
   *
   * Contract: called at most once per view, only for a file-changing tool's result; must not throw.
   */
  toolCall?: (toolCallId: string) => ToolDiffCall | undefined;
}

/** What kind of entry a view shows (for styling and one-line labels). */
export type EntryKind =
  | "user"
  | "assistant"
  | "toolResult"
  | "custom"
  | "bash"
  | "compaction"
  | "branchSummary"
  | "prune"
  | "setting"
  | "label"
  | "leaf"
  | "info"
  | "other"
  | "unreadable";

/** An entry ready to render. */
export interface EntryView {
  readonly id: string;
  readonly parentId: string | null;
  /** The entry's `type`. */
  readonly type: string;
  /** The entry's ISO timestamp, when it has one. */
  readonly timestamp: string | undefined;
  readonly kind: EntryKind;
  /** A short label: `user`, `assistant`, `tool read`, `compaction`, `model`, … */
  readonly label: string;
  /** Small facts: the model, the stop reason, token counts, a target id, … */
  readonly meta: string[];
  readonly parts: EntryPart[];
}

/** The tree fields of an entry, known even when its body cannot be read. */
export interface EntryFields {
  readonly id: string;
  readonly type: string;
  readonly parentId: string | null;
}

type Record_ = Record<string, unknown>;

function isRecord(value: unknown): value is Record_ {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Content that may be a string or an array of text / image blocks. */
function contentParts(content: unknown, asOutput?: { isError: boolean }): EntryPart[] {
  const parts: EntryPart[] = [];
  const pushText = (value: string) => {
    parts.push(
      asOutput === undefined ? { kind: "text", text: value } : { kind: "output", text: value, ...asOutput },
    );
  };
  if (typeof content === "string") {
    pushText(content);
    return parts;
  }
  if (!Array.isArray(content)) return content === undefined ? parts : [{ kind: "data", value: content }];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string") pushText(block.text);
    else if (block.type === "image") {
      parts.push({ kind: "image", mimeType: text(block.mimeType) ?? "image", data: text(block.data) ?? "" });
    } else parts.push({ kind: "data", value: block });
  }
  return parts;
}

function assistantView(message: Record_, meta: string[]): { parts: EntryPart[]; meta: string[] } {
  const parts: EntryPart[] = [];
  const content = Array.isArray(message.content) ? message.content : [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string")
      parts.push({ kind: "text", text: block.text });
    else if (block.type === "thinking") {
      parts.push({ kind: "thinking", text: text(block.thinking) ?? "", redacted: block.redacted === true });
    } else if (block.type === "toolCall") {
      parts.push({
        kind: "toolCall",
        name: text(block.name) ?? "(unnamed)",
        callId: text(block.id) ?? "",
        arguments: block.arguments,
      });
    } else parts.push({ kind: "data", value: block });
  }
  const provider = text(message.provider);
  const model = text(message.model);
  if (model !== undefined) meta.push(provider === undefined ? model : `${provider}/${model}`);
  const stopReason = text(message.stopReason);
  if (stopReason !== undefined && stopReason !== "stop") meta.push(stopReason);
  const usage = isRecord(message.usage) ? message.usage : undefined;
  if (usage !== undefined && typeof usage.totalTokens === "number" && usage.totalTokens > 0) {
    meta.push(`${formatCount(usage.totalTokens)} tokens`);
  }
  if (Array.isArray(message.notices)) {
    for (const notice of message.notices) {
      const line = text(notice);
      if (line !== undefined) parts.push({ kind: "output", text: line, isError: false });
    }
  }
  const errorMessage = text(message.errorMessage);
  if (errorMessage !== undefined) parts.push({ kind: "output", text: errorMessage, isError: true });
  return { parts, meta };
}

function messageView(
  fields: EntryFields,
  timestamp: string | undefined,
  message: unknown,
  options: EntryViewOptions,
): EntryView {
  const base = { id: fields.id, parentId: fields.parentId, type: fields.type, timestamp };
  if (!isRecord(message)) {
    return { ...base, kind: "unreadable", label: "message", meta: ["no message"], parts: [] };
  }
  const role = text(message.role) ?? "(no role)";
  switch (role) {
    case "user":
      return { ...base, kind: "user", label: "user", meta: [], parts: contentParts(message.content) };
    case "assistant": {
      const { parts, meta } = assistantView(message, []);
      return { ...base, kind: "assistant", label: "assistant", meta, parts };
    }
    case "toolResult": {
      const isError = message.isError === true;
      const name = text(message.toolName) ?? "tool";
      const parts = contentParts(message.content, { isError });
      const diff = resultDiff(name, message, options);
      if (diff !== undefined) parts.push({ kind: "diff", diff });
      return {
        ...base,
        kind: "toolResult",
        label: `tool ${name}`,
        meta: isError ? ["error"] : [],
        parts,
      };
    }
    case "custom":
    case "hookMessage":
      return {
        ...base,
        kind: "custom",
        label: `custom ${text(message.customType) ?? ""}`.trim(),
        meta: message.display === false ? ["hidden"] : [],
        parts: contentParts(message.content),
      };
    case "bashExecution": {
      const meta: string[] = [];
      if (message.cancelled === true) meta.push("cancelled");
      else if (typeof message.exitCode === "number" && message.exitCode !== 0) {
        meta.push(`exit code ${message.exitCode}`);
      }
      if (message.excludeFromContext === true) meta.push("not sent to the model");
      const output = text(message.output) ?? "";
      return {
        ...base,
        kind: "bash",
        label: "shell",
        meta,
        parts: [
          { kind: "text", text: `$ ${text(message.command) ?? ""}` },
          { kind: "output", text: output, isError: meta.length > 0 && message.cancelled !== true },
        ],
      };
    }
    default:
      return { ...base, kind: "other", label: role, meta: [], parts: [{ kind: "data", value: message }] };
  }
}

/** The diff of a tool result: from its details, or from its call's arguments (found through `options`). */
function resultDiff(name: string, message: Record_, options: EntryViewOptions): ToolDiff | undefined {
  if (message.isError === true) return undefined;
  const recorded = toolDiff({ name }, { details: message.details });
  if (recorded !== undefined || !isFileChangeTool(name) || options.toolCall === undefined) return recorded;
  const callId = text(message.toolCallId);
  if (callId === undefined) return undefined;
  let call: ToolDiffCall | undefined;
  try {
    call = options.toolCall(callId);
  } catch {
    return undefined;
  }
  return call === undefined ? undefined : toolDiff({ name, args: call.args }, { details: message.details });
}

/**
 * The view of an entry. `entry` undefined means its body could not be read; `fields` (the tree fields)
 * are used then. A file change's result gets a `diff` part (see {@link EntryViewOptions}).
 *
 * Contract: pure; never throws, whatever the entry holds.
 */
export function viewEntry(
  entry: SessionEntry | undefined,
  fields: EntryFields,
  options: EntryViewOptions = {},
): EntryView {
  const record = entry as unknown as Record_ | undefined;
  const timestamp = text(record?.timestamp);
  const base = { id: fields.id, parentId: fields.parentId, type: fields.type, timestamp };
  if (record === undefined) {
    return { ...base, kind: "unreadable", label: fields.type, meta: ["unreadable"], parts: [] };
  }
  switch (fields.type) {
    case "message":
      return messageView(fields, timestamp, record.message, options);
    case "compaction": {
      const meta: string[] = [];
      if (typeof record.tokensBefore === "number")
        meta.push(`${formatCount(record.tokensBefore)} tokens before`);
      const kept = text(record.firstKeptEntryId);
      if (kept !== undefined) meta.push(kept === fields.id ? "kept nothing" : `kept from ${kept}`);
      const summary = text(record.summary) ?? "";
      return {
        ...base,
        kind: "compaction",
        label: "compaction",
        meta,
        parts: [{ kind: "summary", text: summaryDisplayText(summary) }],
      };
    }
    case "branch_summary": {
      const from = text(record.fromId);
      const summary = text(record.summary) ?? "";
      return {
        ...base,
        kind: "branchSummary",
        label: "branch summary",
        meta: from === undefined ? [] : [`from ${from}`],
        parts: [{ kind: "summary", text: summaryDisplayText(summary) }],
      };
    }
    case "prune": {
      // One line: `pruned 3 tool results (~12,000 tokens)`; the stubs themselves show in the context.
      const count = Array.isArray(record.entryIds) ? record.entryIds.length : 0;
      const before = record.tokensBefore;
      const after = record.tokensAfter;
      const freed =
        typeof before === "number" && typeof after === "number" && Number.isFinite(before - after)
          ? Math.max(0, before - after)
          : undefined;
      return {
        ...base,
        kind: "prune",
        label: `pruned ${countOf(count, "tool result")}`,
        meta: freed === undefined ? [] : [`~${formatCount(freed)} tokens`],
        parts: [],
      };
    }
    case "leaf": {
      const target = record.targetId;
      return {
        ...base,
        kind: "leaf",
        label: "leaf",
        meta: [`moved to ${typeof target === "string" ? target : "the start"}`],
        parts: [],
      };
    }
    case "thinking_level_change":
      return {
        ...base,
        kind: "setting",
        label: "thinking",
        meta: [text(record.thinkingLevel) ?? "?"],
        parts: [],
      };
    case "model_change":
      return {
        ...base,
        kind: "setting",
        label: "model",
        meta: [`${text(record.provider) ?? "?"}/${text(record.modelId) ?? "?"}`],
        parts: [],
      };
    case "active_tools_change": {
      const names = Array.isArray(record.activeToolNames)
        ? record.activeToolNames.filter((name) => typeof name === "string")
        : [];
      return {
        ...base,
        kind: "setting",
        label: "tools",
        meta: [names.length === 0 ? "(none)" : names.join(", ")],
        parts: [],
      };
    }
    case "custom": {
      const output = toolOutputSummary(record.customType, record.data);
      if (output !== undefined) return { ...base, kind: "info", label: output, meta: [], parts: [] };
      const permission = permissionRecordOf(record.customType, record.data);
      if (permission !== undefined) {
        return { ...base, kind: "custom", label: describePermissionRecord(permission), meta: [], parts: [] };
      }
      return {
        ...base,
        kind: "info",
        label: `custom ${text(record.customType) ?? ""}`.trim(),
        meta: [],
        parts: record.data === undefined ? [] : [{ kind: "data", value: record.data }],
      };
    }
    case "custom_message":
      return {
        ...base,
        kind: "custom",
        label: `custom ${text(record.customType) ?? ""}`.trim(),
        meta: record.display === false ? ["hidden"] : [],
        parts: contentParts(record.content),
      };
    case "label": {
      const target = text(record.targetId) ?? "?";
      const label = text(record.label);
      return {
        ...base,
        kind: "label",
        label: "label",
        meta: [label === undefined || label === "" ? `cleared on ${target}` : `"${label}" on ${target}`],
        parts: [],
      };
    }
    case "session_info": {
      const name = text(record.name);
      return {
        ...base,
        kind: "info",
        label: "name",
        meta: [name === undefined || name === "" ? "(cleared)" : `"${name}"`],
        parts: [],
      };
    }
    default:
      return {
        ...base,
        kind: "other",
        label: fields.type,
        meta: [],
        parts: [{ kind: "data", value: entry }],
      };
  }
}

/** A part on one line. */
function partLine(part: EntryPart): string {
  switch (part.kind) {
    case "text":
    case "output":
    case "summary":
      return part.text;
    case "thinking":
      return part.redacted ? "(thinking, redacted)" : `(thinking) ${part.text}`;
    case "toolCall":
      return `→ ${toolCallPreview(part.name, part.arguments)}`;
    case "diff":
      return `${part.diff.path} ${diffCounts(part.diff)}`;
    case "image":
      return `[${part.mimeType}]`;
    case "data":
      return safeJson(part.value);
  }
}

/** A call on one line: an edit as `edit math.js +3 −1`, a write as `write notes.md`, others as JSON. */
function toolCallPreview(name: string, args: unknown): string {
  if (isFileChangeTool(name)) {
    const diff = name.toLowerCase() === "write" ? undefined : toolDiff({ name, args });
    const path = toolCallLine(name, args, { style: "main" });
    if (diff !== undefined && diff.path !== "") return `${name} ${diff.path} ${diffCounts(diff)}`;
    if (path !== name) return path;
  }
  return toolCallLine(name, args, { style: "json" });
}

/**
 * A one-line preview of a view, at most `max` characters: `user: Hello…`, `assistant: → write({…})`,
 * `tool read: alpha line one…`, `compaction (6,791 tokens before): ## Goal…`, `model: anthropic/x`.
 *
 * Contract: pure; reads only the view; the result has no newline.
 */
export function previewView(view: EntryView, max = 80): string {
  const meta = view.kind === "assistant" || view.kind === "user" ? [] : view.meta;
  const head = meta.length === 0 ? view.label : `${view.label} (${meta.join(", ")})`;
  let body = "";
  const diff = view.parts.find((part) => part.kind === "diff");
  for (const part of diff === undefined ? view.parts : [diff]) {
    if (body.length > max) break;
    const line = singleLine(clipText(partLine(part), max + 40));
    if (line !== "") body = body === "" ? line : `${body} ${line}`;
  }
  return clipText(singleLine(body === "" ? head : `${head}: ${body}`), max);
}

/**
 * One line for the harness's `arbor.tool_output` entry (the whole output of a tool call whose result reached
 * the model cut): what it keeps, not the megabytes themselves (`recall` with the call's id reads them).
 */
function toolOutputSummary(customType: unknown, data: unknown): string | undefined {
  if (customType !== "arbor.tool_output" || typeof data !== "object" || data === null) return undefined;
  const { toolName, toolCallId, totalChars } = data as Record<string, unknown>;
  if (typeof totalChars !== "number") return undefined;
  const tool = typeof toolName === "string" ? toolName : "a tool";
  const call = typeof toolCallId === "string" ? ` (call ${toolCallId})` : "";
  return `whole output of ${tool}${call}: ${totalChars.toLocaleString("en-US")} characters, kept for recall`;
}
