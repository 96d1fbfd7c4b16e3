/**
 * The diff of a file-changing tool call (`edit`, or `write` over a file), as data every front end renders
 * the same way: the terminal in red and green, the HTML export, the demo page. Built from what the tool
 * recorded — the unified diff in its result's `details.diff` (Arbor's `edit` and `write`), or pi's numbered
 * diff format (`+12 text`, `-12 text`, ` 12 text`, `...`) — and, when a result has no details (an imported
 * session), from the call's arguments: an edit's `oldText` / `newText`, a new file's content.
 *
 * Browser-safe and bounded: at most {@link MAX_DIFF_LINES} lines are kept (`truncated` says when more
 * existed); the counts stay exact when the tool recorded them.
 */

/** What a line of a diff does. */
export type ToolDiffLineKind = "add" | "remove" | "context";

/** One line of a diff. */
export interface ToolDiffLine {
  readonly kind: ToolDiffLineKind;
  /** The line's text, without its `+`/`-`/space marker. */
  readonly text: string;
  /** Its number in the old file (removed and context lines, when known). */
  readonly oldLine?: number;
  /** Its number in the new file (added and context lines, when known). */
  readonly newLine?: number;
}

/** A run of changed lines with their context. */
export interface ToolDiffHunk {
  /** `@@ -3,4 +3,5 @@` for a unified diff; empty when the source had none. */
  readonly header: string;
  readonly lines: readonly ToolDiffLine[];
}

/** The diff of one tool call. */
export interface ToolDiff {
  /** The tool's name (`edit`, `write`). */
  readonly tool: string;
  /** The file, as the tool showed it (relative to the working directory when inside it). */
  readonly path: string;
  readonly hunks: readonly ToolDiffHunk[];
  /** Lines added and removed in the whole change (exact when the tool recorded them). */
  readonly added: number;
  readonly removed: number;
  /** True when lines of the change are not in `hunks` (cut at {@link MAX_DIFF_LINES}, or too large to diff). */
  readonly truncated: boolean;
  /** True for a file the call created (every line added). */
  readonly created: boolean;
}

/** A tool call, as {@link toolDiff} reads it. */
export interface ToolDiffCall {
  readonly name: string;
  /** The call's arguments (unknown: they come from a session file). */
  readonly args?: unknown;
}

/** A tool result, as {@link toolDiff} reads it. */
export interface ToolDiffResult {
  /** The result's `details` (unknown: they come from a session file or another program). */
  readonly details?: unknown;
  readonly isError?: boolean;
}

/** Most lines a {@link ToolDiff} keeps. */
export const MAX_DIFF_LINES = 400;

/** Lines of context kept around a change built from an edit's arguments. */
const ARGUMENT_CONTEXT = 3;

type Record_ = Record<string, unknown>;

function isRecord(value: unknown): value is Record_ {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** Whether a tool is one whose calls change a file (by its name, any case). */
export function isFileChangeTool(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === "edit" || lower === "write" || lower === "multiedit";
}

function pathOf(args: unknown, details: unknown): string {
  const fromDetails = isRecord(details) ? text(details.path) : undefined;
  if (fromDetails !== undefined) return fromDetails;
  if (!isRecord(args)) return "";
  return text(args.path) ?? text(args.file_path) ?? text(args.filePath) ?? "";
}

/**
 * The diff of a tool call and its result, or undefined when it has none to show: a failed call, a tool that
 * changes no file, a `write` over a file whose earlier content is unknown.
 *
 * Contract: pure; never throws, whatever `args` and `details` hold; at most `maxLines` (default
 * {@link MAX_DIFF_LINES}) lines kept.
 */
export function toolDiff(
  call: ToolDiffCall,
  result: ToolDiffResult = {},
  maxLines = MAX_DIFF_LINES,
): ToolDiff | undefined {
  if (result.isError === true) return undefined;
  const { details } = result;
  const path = pathOf(call.args, details);
  const recorded = isRecord(details) ? text(details.diff) : undefined;
  const isFileTool = isFileChangeTool(call.name);
  if (recorded !== undefined && isRecord(details)) {
    const parsed = parseDiffText(recorded, maxLines);
    const added = count(details.linesAdded);
    const removed = count(details.linesRemoved);
    // An empty diff without counts (too large to compute) falls back to the arguments below.
    if (parsed.hunks.length > 0 || added !== undefined) {
      return {
        tool: call.name,
        path,
        hunks: parsed.hunks,
        added: added ?? parsed.added,
        removed: removed ?? parsed.removed,
        truncated: parsed.truncated || (parsed.hunks.length === 0 && (added ?? 0) + (removed ?? 0) > 0),
        created: details.created === true,
      };
    }
  }
  if (!isFileTool) return undefined;
  return argumentsDiff(call.name, path, call.args, details, maxLines);
}

/** The diff an edit's or a new file's arguments describe (no details recorded). */
function argumentsDiff(
  tool: string,
  path: string,
  args: unknown,
  details: unknown,
  maxLines: number,
): ToolDiff | undefined {
  if (!isRecord(args)) return undefined;
  const content = text(args.content);
  if (content !== undefined) {
    // A write: a new file is all added lines; over an existing file the old content is unknown (no diff).
    if (isRecord(details) && details.created === false) return undefined;
    const lines = splitLines(content);
    const kept = lines.slice(0, maxLines).map((line, index) => ({
      kind: "add" as const,
      text: line,
      newLine: index + 1,
    }));
    return {
      tool,
      path,
      hunks: kept.length === 0 ? [] : [{ header: `@@ -0,0 +1,${lines.length} @@`, lines: kept }],
      added: lines.length,
      removed: 0,
      truncated: lines.length > kept.length,
      // Without details (an imported session) the content shows as added lines, but is not said to be new.
      created: isRecord(details) && details.created === true,
    };
  }
  const edits = editsOf(args);
  if (edits.length === 0) return undefined;
  const hunks: ToolDiffHunk[] = [];
  let added = 0;
  let removed = 0;
  let kept = 0;
  let truncated = false;
  for (const edit of edits) {
    const hunk = replacementHunk(edit.oldText, edit.newText);
    added += hunk.added;
    removed += hunk.removed;
    const room = maxLines - kept;
    if (room <= 0) {
      truncated = true;
      continue;
    }
    const lines = hunk.lines.slice(0, room);
    if (lines.length < hunk.lines.length) truncated = true;
    kept += lines.length;
    hunks.push({ header: "", lines });
  }
  return { tool, path, hunks, added, removed, truncated, created: false };
}

function editsOf(args: Record_): { oldText: string; newText: string }[] {
  const list = Array.isArray(args.edits) ? args.edits : [args];
  const edits: { oldText: string; newText: string }[] = [];
  for (const entry of list) {
    if (!isRecord(entry)) continue;
    const oldText = text(entry.oldText) ?? text(entry.old_string);
    const newText = text(entry.newText) ?? text(entry.new_string);
    if (oldText !== undefined && newText !== undefined) edits.push({ oldText, newText });
  }
  return edits;
}

function splitLines(value: string): string[] {
  if (value === "") return [];
  const lines = value.replaceAll("\r\n", "\n").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * One replacement as a hunk: the lines both texts start and end with are context (at most three on each
 * side), the rest of the old text removed and of the new text added. Line numbers are unknown (the
 * arguments do not say where in the file the text was).
 */
function replacementHunk(
  oldText: string,
  newText: string,
): { lines: ToolDiffLine[]; added: number; removed: number } {
  const before = splitLines(oldText);
  const after = splitLines(newText);
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  ) {
    tail++;
  }
  const lines: ToolDiffLine[] = [];
  for (const line of before.slice(Math.max(0, head - ARGUMENT_CONTEXT), head)) {
    lines.push({ kind: "context", text: line });
  }
  const removedLines = before.slice(head, before.length - tail);
  const addedLines = after.slice(head, after.length - tail);
  for (const line of removedLines) lines.push({ kind: "remove", text: line });
  for (const line of addedLines) lines.push({ kind: "add", text: line });
  for (const line of before.slice(before.length - tail, before.length - tail + ARGUMENT_CONTEXT)) {
    lines.push({ kind: "context", text: line });
  }
  return { lines, added: addedLines.length, removed: removedLines.length };
}

/** What {@link parseDiffText} found. */
export interface ParsedDiff {
  hunks: ToolDiffHunk[];
  /** Added and removed lines seen (all of them, kept or not). */
  added: number;
  removed: number;
  /** True when lines were left out (more than `maxLines`). */
  truncated: boolean;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;
const NUMBERED_LINE = /^([+\- ])\s*(\d+) (.*)$/;
const NUMBERED_GAP = /^ \s*\.\.\.\s*$/;

/**
 * The hunks of a diff's text: a unified diff (`---`/`+++` headers, `@@ -a,b +c,d @@` hunks, `\ No newline`
 * notes skipped) or pi's numbered format (`+12 text`, `-12 text`, ` 12 text`, a `...` line between hunks).
 *
 * Contract: pure; never throws; O(text); keeps at most `maxLines` lines but counts every added and removed one.
 */
export function parseDiffText(diff: string, maxLines = MAX_DIFF_LINES): ParsedDiff {
  const lines = diff.replaceAll("\r\n", "\n").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const unified = lines.some((line) => HUNK_HEADER.test(line));
  const hunks: { header: string; lines: ToolDiffLine[] }[] = [];
  const result: ParsedDiff = { hunks, added: 0, removed: 0, truncated: false };
  let kept = 0;
  let oldLine = 0;
  let newLine = 0;
  let current: { header: string; lines: ToolDiffLine[] } | undefined;
  let inHunk = false;
  const push = (line: ToolDiffLine) => {
    if (line.kind === "add") result.added++;
    if (line.kind === "remove") result.removed++;
    if (kept >= maxLines) {
      result.truncated = true;
      return;
    }
    if (current === undefined) {
      current = { header: "", lines: [] };
      hunks.push(current);
    }
    current.lines.push(line);
    kept++;
  };
  for (const line of lines) {
    if (unified) {
      const header = HUNK_HEADER.exec(line);
      if (header !== null) {
        oldLine = Number(header[1]);
        newLine = Number(header[2]);
        inHunk = true;
        current = undefined;
        if (kept < maxLines) {
          current = { header: line, lines: [] };
          hunks.push(current);
        }
        continue;
      }
      if (!inHunk) continue; // the `---` / `+++` file headers
      const marker = line[0];
      const body = line.slice(1);
      if (marker === "+") push({ kind: "add", text: body, newLine: newLine++ });
      else if (marker === "-") push({ kind: "remove", text: body, oldLine: oldLine++ });
      else if (marker === " " || line === "")
        push({ kind: "context", text: body, oldLine: oldLine++, newLine: newLine++ });
      continue;
    }
    if (NUMBERED_GAP.test(line)) {
      current = undefined;
      continue;
    }
    const numbered = NUMBERED_LINE.exec(line);
    if (numbered === null) continue;
    const number = Number(numbered[2]);
    const body = numbered[3] ?? "";
    if (numbered[1] === "+") push({ kind: "add", text: body, newLine: number });
    else if (numbered[1] === "-") push({ kind: "remove", text: body, oldLine: number });
    else push({ kind: "context", text: body, oldLine: number });
  }
  result.hunks = hunks.filter((hunk) => hunk.lines.length > 0);
  return result;
}
