/**
 * An entry as plain text (`arbor sessions show`): a heading line (`[id] label · facts  time`) and its
 * content indented below. Long bulky parts (tool output, summaries, thinking, raw data) are cut unless
 * `full` is set; the conversation's own text is cut only when it is very long.
 */

import { diffCounts, diffTextLines } from "./diff-rows.js";
import type { EntryPart, EntryView } from "./entry-view.js";
import { clipText, formatCount, formatTimestamp, singleLine } from "./format.js";
import { safeJson, toolCallLine } from "./tool-call-line.js";

/** Options of {@link entryTextLines}. */
export interface EntryTextOptions {
  /** Print every part whole. */
  full: boolean;
  /** The entry's current label. */
  label?: string;
  /** Marks the entry as the session's current leaf. */
  leaf?: boolean;
}

const INDENT = "  ";

/** Lines and characters kept of each part kind when not `full`. */
const LIMITS: Record<EntryPart["kind"], { lines: number; chars: number }> = {
  text: { lines: 200, chars: 20_000 },
  thinking: { lines: 6, chars: 800 },
  toolCall: { lines: 1, chars: 240 },
  image: { lines: 1, chars: 200 },
  output: { lines: 12, chars: 2_000 },
  summary: { lines: 24, chars: 3_000 },
  diff: { lines: 40, chars: 8_000 },
  data: { lines: 1, chars: 400 },
};

/** The lines of a text cut to `lines` lines and `chars` characters, with a note saying what was left out. */
function limitedLines(text: string, limit: { lines: number; chars: number } | undefined): string[] {
  const lines = text.split("\n");
  if (limit === undefined) return lines;
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (kept.length >= limit.lines || used >= limit.chars) break;
    const room = limit.chars - used;
    kept.push(line.length > room ? `${line.slice(0, room)}…` : line);
    used += line.length + 1;
  }
  const omitted = lines.length - kept.length;
  if (omitted > 0)
    kept.push(`[… ${formatCount(omitted)} more line${omitted === 1 ? "" : "s"}; --full shows everything]`);
  return kept;
}

function partLines(part: EntryPart, full: boolean): string[] {
  const limit = full ? undefined : LIMITS[part.kind];
  switch (part.kind) {
    case "text":
      return limitedLines(part.text, limit);
    case "thinking":
      return part.redacted
        ? ["(thinking, redacted)"]
        : limitedLines(part.text, limit).map((line, index) =>
            index === 0 ? `(thinking) ${line}` : `           ${line}`,
          );
    case "toolCall": {
      if (full)
        return [
          `→ ${part.name}`,
          ...safeJson(part.arguments, 2)
            .split("\n")
            .map((line) => `  ${line}`),
        ];
      return [
        clipText(`→ ${toolCallLine(part.name, part.arguments, { style: "json" })}`, LIMITS.toolCall.chars),
      ];
    }
    case "image":
      return [`[image ${part.mimeType}, ${formatCount(Math.floor((part.data.length * 3) / 4 / 1024))} KiB]`];
    case "output": {
      const text = part.text.replace(/\n+$/, "");
      const lines = limitedLines(text === "" ? "(no output)" : text, limit);
      return part.isError
        ? lines.map((line, index) => (index === 0 ? `error: ${line}` : `       ${line}`))
        : lines;
    }
    case "summary":
      return limitedLines(part.text, limit);
    case "diff":
      return [
        `diff ${part.diff.path} (${diffCounts(part.diff)})`,
        ...diffTextLines(part.diff, full ? {} : { max: LIMITS.diff.lines }),
      ];
    case "data":
      return full
        ? safeJson(part.value, 2).split("\n")
        : [clipText(singleLine(safeJson(part.value)), LIMITS.data.chars)];
  }
}

/** The heading of an entry: `[id] label · fact · fact [label] ← leaf  2026-11-30 12:27:26Z`. */
export function entryHeading(view: EntryView, options: Omit<EntryTextOptions, "full">): string {
  const facts = view.meta.length === 0 ? "" : ` · ${view.meta.join(" · ")}`;
  const label = options.label === undefined ? "" : ` [${options.label}]`;
  const leaf = options.leaf === true ? " ← leaf" : "";
  const time = view.timestamp === undefined ? "" : `  ${formatTimestamp(view.timestamp)}`;
  return `[${view.id}] ${view.label}${facts}${label}${leaf}${time}`;
}

/**
 * An entry as text lines: its heading, then each part indented by two spaces.
 *
 * Contract: pure; never throws; without `full` the output of one entry is bounded (about 250 lines).
 */
export function entryTextLines(view: EntryView, options: EntryTextOptions): string[] {
  const lines = [entryHeading(view, options)];
  for (const part of view.parts) {
    for (const line of partLines(part, options.full)) lines.push(line === "" ? "" : `${INDENT}${line}`);
  }
  return lines;
}
