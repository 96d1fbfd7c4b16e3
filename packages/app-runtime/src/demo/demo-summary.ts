/**
 * The scripted model's summaries. Compaction and branch summaries send the conversation as labelled lines
 * (`[User]: …`, `[Assistant tool call]: write(path="a.txt", …)`, …) inside `<conversation>` tags, maybe a
 * `<previous-summary>`, and the format to use; the scripted model answers in that format from the
 * conversation's own lines — deterministic, and faithful to what happened.
 */
import { clipLine } from "./demo-text.js";

/** What a summary request holds. */
interface SummaryRequest {
  conversation: string[];
  previous: string | undefined;
  /** The turn-prefix format (`## Original Request`) rather than the history / branch one. */
  turnPrefix: boolean;
  branch: boolean;
}

function between(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  if (start < 0) return undefined;
  const end = text.indexOf(close, start + open.length);
  return end < 0 ? undefined : text.slice(start + open.length, end);
}

function parseRequest(text: string): SummaryRequest {
  const conversation = (between(text, "<conversation>", "</conversation>") ?? "").split("\n");
  const previous = between(text, "<previous-summary>", "</previous-summary>")?.trim();
  const instructions = text.slice(text.lastIndexOf("</") + 1);
  return {
    conversation,
    previous,
    turnPrefix: instructions.includes("## Original Request"),
    branch: /a branch the user left|continues a branch/.test(instructions),
  };
}

function linesWith(lines: readonly string[], prefix: string): string[] {
  return lines.filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length).trim());
}

/** Bullet items of one section (`### Done`, `## Goal`) of an earlier summary. */
function sectionItems(summary: string | undefined, heading: string): string[] {
  if (summary === undefined) return [];
  const start = summary.indexOf(`${heading}\n`);
  if (start < 0) return [];
  const rest = summary.slice(start + heading.length + 1);
  const end = rest.search(/\n#{2,3} /);
  return (end < 0 ? rest : rest.slice(0, end))
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("- ") && !line.includes("(none)"))
    .map((line) => line.replace(/^- (\[[x ]\] )?/, ""));
}

function unique(items: readonly string[], max: number): string[] {
  return [...new Set(items)].slice(-max);
}

function bullets(items: readonly string[], checkbox = ""): string {
  return items.length === 0 ? "- (none)" : items.map((item) => `- ${checkbox}${item}`).join("\n");
}

/**
 * A summary of the conversation in a summarizer request, in the format the request asks for (and within the
 * length it asks for, in whole lines, when it asks for one).
 *
 * Contract: pure, deterministic; O(request length).
 */
export function demoSummary(requestText: string): string {
  const summary = fullDemoSummary(requestText);
  const asked = /at most [\d,]+ tokens \(about ([\d,]+) characters\)/.exec(requestText);
  return asked === null ? summary : wholeLinesWithin(summary, Number(asked[1]!.replaceAll(",", "")));
}

/**
 * The first lines of `text` that fit in `maxChars` (at least the first line, cut to it), as a model asked for
 * a shorter summary writes one: whole lines, never a sentence stopped in the middle.
 */
function wholeLinesWithin(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const lines = text.split("\n");
  const kept: string[] = [];
  let length = 0;
  for (const line of lines) {
    if (length + line.length + 1 > maxChars) break;
    kept.push(line);
    length += line.length + 1;
  }
  while (kept.length > 0 && kept.at(-1)!.trim() === "") kept.pop();
  if (kept.length > 0) return kept.join("\n");
  const first = lines[0] ?? "";
  const space = first.lastIndexOf(" ", maxChars);
  return space > 0 ? first.slice(0, space) : first.slice(0, Math.max(1, maxChars));
}

function fullDemoSummary(requestText: string): string {
  const request = parseRequest(requestText);
  const requests = linesWith(request.conversation, "[User]: ").map((line) => clipLine(line, 120));
  const toolCalls = linesWith(request.conversation, "[Assistant tool call]: ").map((line) =>
    clipLine(line, 100),
  );
  const answers = linesWith(request.conversation, "[Assistant]: ").map((line) => clipLine(line, 160));
  const failures = request.conversation
    .filter((line) => /^\[Tool result \w+ \(error\)\]: /.test(line))
    .map((line) => clipLine(line, 120));
  const last = requests.at(-1) ?? "(no request in this part)";

  if (request.turnPrefix) {
    return [
      "## Original Request",
      `- ${requests[0] ?? last}`,
      "",
      "## Early Progress",
      bullets(unique(toolCalls, 8)),
      "",
      "## Context for the Kept Messages",
      bullets(answers.slice(-2)),
    ].join("\n");
  }
  const goals = unique([...sectionItems(request.previous, "## Goal"), ...requests], 6);
  const done = unique([...sectionItems(request.previous, "### Done"), ...toolCalls], 10);
  const what = request.branch ? "what the abandoned branch tried" : "the conversation";
  return [
    "## Goal",
    bullets(goals),
    "",
    "## Constraints & Preferences",
    "- (none)",
    "",
    "## Progress",
    "### Done",
    bullets(done, "[x] "),
    "",
    "### In Progress",
    `- [ ] ${last}`,
    "",
    "### Blocked",
    bullets(failures),
    "",
    "## Key Decisions",
    `- **Scripted summary**: written by Arbor's offline scripted model from ${what}.`,
    "",
    "## Next Steps",
    `1. Continue from: ${last}`,
    "",
    "## Critical Context",
    bullets(answers.slice(-2)),
  ].join("\n");
}
