/**
 * A session's branch as Markdown (`arbor sessions export --format md`): a title and a table of facts, then
 * every entry of the branch from the root to the leaf — messages as sections, tool calls and tool output
 * in fenced blocks, thinking, compaction and branch summaries as quotes, settings and labels as one-line
 * notes. Message text is copied as written (it is usually Markdown already).
 */
import type { Session } from "@arbor/session-store";
import { diffCounts, diffTextLines } from "./diff-rows.js";
import { type EntryPart, type EntryView, viewEntry } from "./entry-view.js";
import { countOf, fieldText, formatCount } from "./format.js";
import { toolCallFinder } from "./tool-call-finder.js";
import { safeJson } from "./tool-call-line.js";

/** Options of {@link exportMarkdown}. */
export interface MarkdownExportOptions {
  /** The last entry of the branch (default: the session's current leaf). */
  leafId?: string | null;
}

/** A fenced block whose fence is longer than any run of backticks inside (CommonMark's rule). */
export function fenced(text: string, language = ""): string {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Inline code that survives backticks inside. */
export function inlineCode(text: string): string {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  const ticks = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/** Tool output without its trailing newlines; `(no output)` when empty. */
function outputText(text: string): string {
  const trimmed = text.replace(/\n+$/, "");
  return trimmed === "" ? "(no output)" : trimmed;
}

/** Every line prefixed with `> ` (a quote block). */
function quoted(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? ">" : `> ${line}`))
    .join("\n");
}

/** A table cell: pipes escaped and newlines folded. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

function partMarkdown(part: EntryPart): string {
  switch (part.kind) {
    case "text":
      return part.text;
    case "thinking":
      return part.redacted ? "*Thinking (redacted)*" : `*Thinking*\n\n${quoted(part.text)}`;
    case "toolCall":
      return `**Tool call** ${inlineCode(part.name)}\n\n${fenced(safeJson(part.arguments, 2), "json")}`;
    case "image":
      return `*[image: ${part.mimeType}, ${formatCount(Math.floor((part.data.length * 3) / 4 / 1024))} KiB]*`;
    case "output":
      return `${part.isError ? "**Error**\n\n" : ""}${fenced(outputText(part.text), "text")}`;
    case "summary":
      return quoted(part.text);
    case "diff":
      return `**Diff** ${inlineCode(part.diff.path)} (${diffCounts(part.diff)})\n\n${fenced(
        diffTextLines(part.diff, { numbers: false }).join("\n"),
        "diff",
      )}`;
    case "data":
      return fenced(safeJson(part.value, 2), "json");
  }
}

const TITLES: Partial<Record<EntryView["kind"], string>> = {
  user: "User",
  assistant: "Assistant",
  compaction: "Compaction",
  branchSummary: "Branch summary",
};

/** One entry as Markdown: a section for messages and summaries, a one-line note for the rest. */
export function entryMarkdown(view: EntryView, label: string | undefined): string {
  const labelText = label === undefined ? "" : ` · label ${inlineCode(label)}`;
  const facts = view.meta.map((fact) => ` · ${fact}`).join("");
  if (view.parts.length === 0) {
    return `*${view.label}${facts}${labelText} (${inlineCode(view.id)})*`;
  }
  const title =
    view.kind === "toolResult"
      ? `Tool result · ${view.label.replace(/^tool /, "")}`
      : (TITLES[view.kind] ?? view.label.charAt(0).toUpperCase() + view.label.slice(1));
  const heading = `## ${title} · ${inlineCode(view.id)}${facts}${labelText}`;
  return [heading, ...view.parts.map(partMarkdown)].join("\n\n");
}

/**
 * The branch ending at `leafId` (default: the current leaf) as one Markdown document.
 *
 * Contract: O(entries on the branch); parses only those entries; throws the session's
 * `SessionEntryNotFoundError` for an unknown leaf.
 */
export function exportMarkdown(session: Session, options: MarkdownExportOptions = {}): string {
  const leafId = options.leafId === undefined ? session.leafId : options.leafId;
  const path = session.getPath(leafId);
  const title = session.name ?? `Session ${fieldText(session.id)}`;
  const rows: [string, string][] = [
    ["Session", inlineCode(fieldText(session.id))],
    ["Directory", inlineCode(fieldText(session.cwd))],
    ["Created", fieldText(session.header.timestamp)],
    [
      "Branch",
      `${countOf(path.length, "entry", "entries")}, leaf ${leafId === null ? "(none)" : inlineCode(leafId)}`,
    ],
  ];
  if (session.header.parentSession !== undefined)
    rows.push(["Forked from", inlineCode(fieldText(session.header.parentSession))]);
  const sections = [
    `# ${cell(title)}`,
    ["| | |", "| --- | --- |", ...rows.map(([key, value]) => `| ${key} | ${cell(value)} |`)].join("\n"),
  ];
  for (const ref of path)
    sections.push(
      entryMarkdown(viewEntry(ref.entry(), ref, toolCallFinder(session, ref.parentId)), ref.label),
    );
  if (path.length === 0) sections.push("*(no entries)*");
  return `${sections.join("\n\n")}\n`;
}
