import type { StructuredPatchHunk } from "diff";
import type { LocatedReplacement } from "./edit-matching.js";
import { loadDiff } from "./lazy-libraries.js";

/** The diff of an edit and what it changed. */
export interface EditDiff {
  /** Unified diff (`---`/`+++` headers, then hunks); empty when too large to compute. */
  diff: string;
  /** First changed line in the new text (1-based). */
  firstChangedLine: number;
  /** Lines added and removed; `undefined` when the diff was too large to compute. */
  linesAdded?: number;
  linesRemoved?: number;
}

/** Clusters whose diff script would exceed this many lines are not diffed (the edit still applies). */
const MAX_EDIT_LENGTH = 20_000;

/**
 * The unified diff of replacements applied to `text` (`\n` line endings), computed with the `diff`
 * package on the changed regions only: the replacements are grouped into clusters whose context lines
 * touch, each cluster's lines (plus `context` lines around) are diffed, and the hunks are shifted to
 * their place in the file. An edit of a large file thus costs O(changed region), not O(file).
 */
export async function diffReplacements(
  name: string,
  text: string,
  replacements: readonly LocatedReplacement[],
  context: number,
): Promise<EditDiff> {
  const { FILE_HEADERS_ONLY, formatPatch, structuredPatch } = await loadDiff();
  const lines = new LineStarts(text);
  const sorted = [...replacements].sort((left, right) => left.start - right.start);
  const clusters: { firstLine: number; lastLine: number; members: LocatedReplacement[] }[] = [];
  for (const replacement of sorted) {
    const firstLine = Math.max(0, lines.lineOf(replacement.start) - context);
    const lastLine = Math.min(
      lines.count - 1,
      lines.lineOf(Math.max(replacement.start, replacement.end - 1)) + context,
    );
    const previous = clusters[clusters.length - 1];
    if (previous !== undefined && firstLine <= previous.lastLine + 1) {
      previous.lastLine = Math.max(previous.lastLine, lastLine);
      previous.members.push(replacement);
    } else clusters.push({ firstLine, lastLine, members: [replacement] });
  }
  const hunks: StructuredPatchHunk[] = [];
  let lineShift = 0;
  for (const cluster of clusters) {
    const from = lines.startOf(cluster.firstLine);
    const to = lines.endOf(cluster.lastLine);
    const before = text.slice(from, to);
    let after = "";
    let cursor = from;
    for (const member of cluster.members) {
      after += text.slice(cursor, member.start) + member.newText;
      cursor = member.end;
    }
    after += text.slice(cursor, to);
    const patch = structuredPatch(name, name, before, after, undefined, undefined, {
      context,
      maxEditLength: MAX_EDIT_LENGTH,
    });
    if (patch === undefined) {
      return { diff: "", firstChangedLine: lines.lineOf(sorted[0]!.start) + 1 };
    }
    for (const hunk of patch.hunks) {
      hunks.push({
        ...hunk,
        lines: hunk.lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line)),
        oldStart: hunk.oldStart + cluster.firstLine,
        newStart: hunk.newStart + cluster.firstLine + lineShift,
      });
    }
    lineShift += countNewlines(after) - countNewlines(before);
  }
  let firstChangedLine: number | undefined;
  let linesAdded = 0;
  let linesRemoved = 0;
  for (const hunk of hunks) {
    let line = hunk.newStart;
    for (const entry of hunk.lines) {
      const marker = entry[0];
      if (marker === "+" || marker === "-") {
        firstChangedLine ??= Math.max(1, line);
        if (marker === "+") linesAdded++;
        else linesRemoved++;
      }
      if (marker === " " || marker === "+") line++;
    }
  }
  const diff = formatPatch(
    { oldFileName: name, newFileName: name, oldHeader: undefined, newHeader: undefined, hunks },
    FILE_HEADERS_ONLY,
  );
  return {
    diff,
    firstChangedLine: firstChangedLine ?? lines.lineOf(sorted[0]?.start ?? 0) + 1,
    linesAdded,
    linesRemoved,
  };
}

function countNewlines(text: string): number {
  let count = 0;
  let position = text.indexOf("\n");
  while (position !== -1) {
    count++;
    position = text.indexOf("\n", position + 1);
  }
  return count;
}

/** Where each line of a text starts (0-based lines), found by binary search. */
class LineStarts {
  readonly #starts: number[] = [0];
  readonly #length: number;

  constructor(text: string) {
    this.#length = text.length;
    let position = text.indexOf("\n");
    while (position !== -1) {
      if (position + 1 < text.length) this.#starts.push(position + 1);
      position = text.indexOf("\n", position + 1);
    }
  }

  get count(): number {
    return this.#starts.length;
  }

  lineOf(position: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.#starts[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  startOf(line: number): number {
    return this.#starts[line]!;
  }

  /** The end of a line, its newline included. */
  endOf(line: number): number {
    return line + 1 < this.#starts.length ? this.#starts[line + 1]! : this.#length;
  }
}

/** Files larger than this (old or new content) are written without a diff. */
export const MAX_WRITE_DIFF_BYTES = 1024 * 1024;

/**
 * The unified diff of a whole file's old and new text (line endings shown as `\n`), with the same machinery
 * and bounds as an edit's ({@link diffReplacements}): empty, without counts, when too large to compute.
 */
export async function diffTexts(
  name: string,
  before: string,
  after: string,
  context: number,
): Promise<EditDiff> {
  const oldText = before.replaceAll("\r\n", "\n");
  const newText = after.replaceAll("\r\n", "\n");
  if (oldText === newText) return { diff: "", firstChangedLine: 1, linesAdded: 0, linesRemoved: 0 };
  return diffReplacements(name, oldText, [{ index: 0, start: 0, end: oldText.length, newText }], context);
}
