/**
 * Whole-line shortening: a summary or a digest that must shrink leaves out whole lines (and says how
 * many), never part of one, so that what remains never ends mid-word or with half of a parenthesis.
 */

/** The line that stands for `count` lines left out. */
export function leftOutLine(count: number): string {
  return `(… ${count} line${count === 1 ? "" : "s"} left out …)`;
}

/**
 * A text stopped mid-way (a response ended by `max_tokens`) without its last line, which may be
 * unfinished; empty when it has a single line.
 *
 * Contract: pure.
 */
export function completeLines(text: string): string {
  const end = text.lastIndexOf("\n");
  return end < 0 ? "" : text.slice(0, end).trimEnd();
}

/** What {@link wholeLines} keeps. */
export interface WholeLines {
  /** The kept lines, with a {@link leftOutLine} where lines were left out; empty when none fitted. */
  text: string;
  /** How many lines of the text were left out (0: the text was returned unchanged). */
  leftOut: number;
}

/**
 * The whole lines of `text` that fit in `maxChars`: lines from its beginning (up to two thirds of the
 * room), then lines from its end, around a {@link leftOutLine} naming how many were left out between them.
 * A line longer than the room is left out whole. The text is returned unchanged when it fits.
 *
 * Contract: pure; the result never exceeds `maxChars`; each of its lines is a whole line of `text` or the
 * marker; it is empty (with `leftOut` = the text's line count) when not one line and the marker fit.
 */
export function wholeLines(text: string, maxChars: number): WholeLines {
  const max = Math.max(0, Math.floor(maxChars));
  if (text.length <= max) return { text, leftOut: 0 };
  const lines = text.split("\n");
  const room = max - (leftOutLine(lines.length).length + 1);
  let used = 0;
  let head = 0;
  while (head < lines.length && used + lines[head]!.length + 1 <= Math.floor((room * 2) / 3)) {
    used += lines[head]!.length + 1;
    head++;
  }
  let tail = lines.length;
  while (tail - 1 >= head && used + lines[tail - 1]!.length + 1 <= room) {
    used += lines[tail - 1]!.length + 1;
    tail--;
  }
  if (room <= 0 || (head === 0 && tail === lines.length)) return { text: "", leftOut: lines.length };
  const leftOut = tail - head;
  return {
    text: [...lines.slice(0, head), leftOutLine(leftOut), ...lines.slice(tail)].join("\n"),
    leftOut,
  };
}

/**
 * A one-line text shortened to at most `maxChars` characters at word boundaries: its beginning (about two
 * thirds) and its end around ` … `. Returned unchanged when it fits; a text without a space within reach is
 * cut where the room ends.
 *
 * Contract: pure; the result never exceeds `maxChars` (for `maxChars` ≥ 0).
 */
export function shortenAtWords(text: string, maxChars: number): string {
  const max = Math.max(0, Math.floor(maxChars));
  if (text.length <= max) return text;
  const ellipsis = " … ";
  const room = max - ellipsis.length;
  if (room < 2) return "";
  const headRoom = Math.ceil((room * 2) / 3);
  let headEnd = text.lastIndexOf(" ", headRoom);
  if (headEnd <= 0) headEnd = headRoom;
  const head = text.slice(0, headEnd).trimEnd();
  const tailRoom = room - head.length;
  let tailStart = text.indexOf(" ", text.length - tailRoom);
  if (tailStart < 0 || tailStart >= text.length - 1) tailStart = text.length - tailRoom - 1;
  const tail = text.slice(tailStart + 1).trimStart();
  return `${head}${ellipsis}${tail}`;
}
