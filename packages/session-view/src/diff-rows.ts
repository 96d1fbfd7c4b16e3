/**
 * A {@link ToolDiff} as rows to print: line numbers, signs, gaps between hunks, a cut after `max` rows —
 * what the terminal, the HTML export, `arbor sessions show` and the web demo render.
 */
import type { ToolDiff, ToolDiffLineKind } from "./tool-diff.js";

/**
 * A diff's counts as `+3 −1` (a true minus sign).
 *
 * Contract: pure.
 */
export function diffCounts(diff: Pick<ToolDiff, "added" | "removed">): string {
  return `+${diff.added} −${diff.removed}`;
}

/** One printable row of a diff: a line, or the gap between two hunks. */
export interface DiffRow {
  readonly kind: ToolDiffLineKind | "gap";
  /** The line number shown (the new file's for added and context lines, the old file's for removed ones). */
  readonly number: number | undefined;
  /** `+`, `-`, a space, or `…` for a gap. */
  readonly sign: string;
  readonly text: string;
}

/** The rows a renderer shows and how many it left out. */
export interface DiffRows {
  readonly rows: readonly DiffRow[];
  /** Rows not shown (cut at `max`), plus the lines the diff itself left out when known. */
  readonly more: number;
  /** Width of the widest line number (for a right-aligned gutter). */
  readonly numberWidth: number;
}

/**
 * A diff as rows for a renderer: its lines in order, a gap row between hunks, cut after `max` rows.
 *
 * Contract: pure; O(rows shown + hunks).
 */
export function diffRows(diff: ToolDiff, max = Number.POSITIVE_INFINITY): DiffRows {
  const rows: DiffRow[] = [];
  let total = 0;
  let widest = 0;
  diff.hunks.forEach((hunk, index) => {
    const entries: DiffRow[] = [];
    if (index > 0) entries.push({ kind: "gap", number: undefined, sign: "…", text: "" });
    for (const line of hunk.lines) {
      const number = line.kind === "remove" ? line.oldLine : (line.newLine ?? line.oldLine);
      entries.push({
        kind: line.kind,
        number,
        sign: line.kind === "add" ? "+" : line.kind === "remove" ? "-" : " ",
        text: line.text,
      });
    }
    for (const entry of entries) {
      total++;
      if (rows.length < max) {
        rows.push(entry);
        if (entry.number !== undefined) widest = Math.max(widest, String(entry.number).length);
      }
    }
  });
  let more = total - rows.length;
  if (diff.truncated) {
    const shownChanges = diff.hunks.reduce(
      (sum, hunk) => sum + hunk.lines.filter((line) => line.kind !== "context").length,
      0,
    );
    more += Math.max(0, diff.added + diff.removed - shownChanges);
  }
  return { rows, more, numberWidth: widest };
}

/**
 * A diff as plain text lines: `  12 + text` (the line number, the sign, the text), `   … ` between hunks,
 * and `… N more lines` when cut after `max` rows. Without `numbers`, lines are `+ text` (a Markdown `diff`
 * block).
 *
 * Contract: pure; at most `max + 1` lines.
 */
export function diffTextLines(diff: ToolDiff, options: { max?: number; numbers?: boolean } = {}): string[] {
  const { rows, more, numberWidth } = diffRows(diff, options.max);
  const numbers = options.numbers !== false;
  const lines = rows.map((row) => {
    if (!numbers) return row.kind === "gap" ? "…" : `${row.sign} ${row.text}`;
    const number = (row.number === undefined ? "" : String(row.number)).padStart(numberWidth);
    return row.kind === "gap" ? `${" ".repeat(numberWidth)} …` : `${number} ${row.sign} ${row.text}`;
  });
  if (more > 0) lines.push(`… ${more} more line${more === 1 ? "" : "s"}`);
  return lines;
}
