/**
 * Where the `edit` tool's replacements go: each `oldText` must occur exactly once in the original text,
 * and no two may overlap. When one does not match, the message says what is close (the same lines with
 * other whitespace or quotes, or where its first line occurs) so the model can fix its call.
 */

/** One exact replacement. */
export interface TextReplacement {
  oldText: string;
  newText: string;
}

/** A replacement located in the original text. */
export interface LocatedReplacement {
  /** Position of the replacement in the call's `edits` (0-based). */
  index: number;
  start: number;
  end: number;
  newText: string;
}

/** The outcome of {@link applyReplacements}. */
export type ReplacementOutcome =
  | { ok: true; text: string; replacements: LocatedReplacement[] }
  | { ok: false; message: string };

/** Most match positions listed in a message. */
const MAX_LISTED = 10;

/** Longest excerpt of the file quoted in a hint. */
const MAX_EXCERPT_LINES = 12;
const MAX_EXCERPT_CHARS = 1500;

/**
 * Applies every replacement to `text`, all or nothing: each `oldText` is searched in the ORIGINAL text
 * (not in the result of earlier replacements) and must occur exactly once; replacements must not overlap.
 * `name` is how the file is named in messages.
 */
export function applyReplacements(
  text: string,
  replacements: readonly TextReplacement[],
  name: string,
): ReplacementOutcome {
  let lineIndex: LineIndex | undefined;
  // Line numbers are only needed for messages: built on the first failure, not on the success path.
  const lines = () => {
    lineIndex ??= new LineIndex(text);
    return lineIndex;
  };
  const located: LocatedReplacement[] = [];
  const problems: string[] = [];
  const label = (index: number) => (replacements.length === 1 ? "oldText" : `edits[${index}].oldText`);
  for (const [index, { oldText, newText }] of replacements.entries()) {
    if (oldText === "") {
      problems.push(
        `${label(index)} is empty. Quote the exact text to replace (to create or overwrite a file, use write).`,
      );
      continue;
    }
    const positions = findOccurrences(text, oldText, MAX_LISTED + 1);
    if (positions.length === 1) {
      const start = positions[0]!;
      located.push({ index, start, end: start + oldText.length, newText });
    } else if (positions.length === 0) {
      problems.push(`${label(index)} was not found in ${name}.${describeNearMisses(oldText, lines())}`);
    } else {
      const total = positions.length > MAX_LISTED ? countOccurrences(text, oldText) : positions.length;
      const where = positions.slice(0, MAX_LISTED).map((position) => lines().lineOf(position));
      problems.push(
        `${label(index)} matches ${total} times in ${name} (at line${where.length === 1 ? "" : "s"} ` +
          `${where.join(", ")}${total > where.length ? ", …" : ""}); it must match exactly once. ` +
          "Include more of the surrounding lines to make it unique.",
      );
    }
  }
  if (problems.length > 0) return { ok: false, message: summarize(problems, replacements.length) };
  located.sort((left, right) => left.start - right.start);
  for (let position = 1; position < located.length; position++) {
    const previous = located[position - 1]!;
    const current = located[position]!;
    if (current.start < previous.end) {
      const [first, second] = [previous, current].sort((left, right) => left.index - right.index) as [
        LocatedReplacement,
        LocatedReplacement,
      ];
      return {
        ok: false,
        message:
          `edits[${first.index}] and edits[${second.index}] overlap in ${name} (lines ${lines().span(first)} and ` +
          `${lines().span(second)}); each oldText must cover a separate part of the file. Merge them into one ` +
          "edit. No change was made.",
      };
    }
  }
  const parts: string[] = [];
  let cursor = 0;
  for (const replacement of located) {
    parts.push(text.slice(cursor, replacement.start), replacement.newText);
    cursor = replacement.end;
  }
  parts.push(text.slice(cursor));
  return { ok: true, text: parts.join(""), replacements: located };
}

function summarize(problems: readonly string[], total: number): string {
  const suffix = " No change was made.";
  if (total === 1) return `${problems[0]}${suffix}`;
  return `${problems.length} of ${total} edits cannot be applied:\n- ${problems.join("\n- ")}\n${suffix.trim()}`;
}

/** Start positions of `needle` in `text`, overlapping ones included, at most `limit`. */
export function findOccurrences(text: string, needle: string, limit: number): number[] {
  const positions: number[] = [];
  let position = text.indexOf(needle);
  while (position !== -1 && positions.length < limit) {
    positions.push(position);
    position = text.indexOf(needle, position + 1);
  }
  return positions;
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  let position = text.indexOf(needle);
  while (position !== -1) {
    count++;
    position = text.indexOf(needle, position + 1);
  }
  return count;
}

/** Line numbers of positions in a text (1-based), by binary search over line starts. */
class LineIndex {
  readonly #starts: number[] = [0];
  readonly lines: string[];

  constructor(text: string) {
    this.lines = text.split("\n");
    let position = text.indexOf("\n");
    while (position !== -1) {
      this.#starts.push(position + 1);
      position = text.indexOf("\n", position + 1);
    }
  }

  lineOf(position: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.#starts[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }

  span(replacement: { start: number; end: number }): string {
    const first = this.lineOf(replacement.start);
    const last = this.lineOf(Math.max(replacement.start, replacement.end - 1));
    return first === last ? `${first}` : `${first}-${last}`;
  }
}

/** Trims a line and folds runs of whitespace and typographic quotes and dashes to plain ASCII. */
function looseLine(line: string): string {
  return line
    .replace(/[\u2018\u2019\u201A\u201B]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/[\s\u00A0]+/g, " ")
    .trim();
}

/** A hint for an `oldText` that was not found: a loose match, or where its first line occurs. */
function describeNearMisses(oldText: string, index: LineIndex): string {
  const wanted = oldText.split("\n").map(looseLine);
  while (wanted.length > 0 && wanted[wanted.length - 1] === "") wanted.pop();
  while (wanted.length > 0 && wanted[0] === "") wanted.shift();
  if (wanted.length === 0) return " It holds only whitespace; quote the text around the spot instead.";
  const fileLines = index.lines;
  const loose = fileLines.map(looseLine);
  const matches: number[] = [];
  for (let line = 0; line + wanted.length <= loose.length && matches.length < 3; line++) {
    let same = true;
    for (let offset = 0; offset < wanted.length; offset++) {
      if (loose[line + offset] !== wanted[offset]) {
        same = false;
        break;
      }
    }
    if (same) matches.push(line);
  }
  const reread = " Re-read the file to copy its exact current text.";
  if (matches.length > 0) {
    const first = matches[0]!;
    const where = matches.map((line) => `${line + 1}-${line + wanted.length}`).join(", ");
    return (
      ` A match that differs only in whitespace, indentation or quote characters is at line${matches.length === 1 ? "" : "s"} ${where}; ` +
      `the file has there:\n${excerpt(fileLines, first, wanted.length)}\nCopy that text exactly into oldText.`
    );
  }
  const firstLine = wanted[0]!;
  const starts: number[] = [];
  for (let line = 0; line < loose.length && starts.length < MAX_LISTED; line++) {
    if (loose[line] === firstLine) starts.push(line);
  }
  if (starts.length > 0) {
    const first = starts[0]!;
    return (
      ` Its first line occurs at line${starts.length === 1 ? "" : "s"} ${starts.map((line) => line + 1).join(", ")}, ` +
      `but the lines after it differ; the file has there:\n${excerpt(fileLines, first, wanted.length)}\n${reread.trim()}`
    );
  }
  return `${reread} oldText must match exactly, including whitespace and line breaks.`;
}

function excerpt(lines: readonly string[], start: number, count: number): string {
  const shown = lines.slice(start, start + Math.min(count, MAX_EXCERPT_LINES));
  let text = shown.join("\n");
  if (text.length > MAX_EXCERPT_CHARS) text = `${text.slice(0, MAX_EXCERPT_CHARS)}…`;
  else if (count > MAX_EXCERPT_LINES) text += "\n…";
  return text;
}
