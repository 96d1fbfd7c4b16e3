/**
 * Search and output bounds of the `recall` tool: query words and scores, and the window of the output that
 * fits a byte budget.
 */

/** Words of a query: lowercase, split at whitespace, surrounding punctuation removed, duplicates dropped. */
export function queryWords(query: string): string[] {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "") || word)
    .filter((word) => word !== "");
  return [...new Set(words)];
}

function occurrences(text: string, word: string, cap: number): number {
  let count = 0;
  for (
    let index = text.indexOf(word);
    index >= 0 && count < cap;
    index = text.indexOf(word, index + word.length)
  ) {
    count++;
  }
  return count;
}

/**
 * Score of a text for a query: 100 per distinct word found, 50 more when the whole phrase (of two or more
 * words) occurs, plus up to 10 for repeated occurrences; 0 when no word occurs.
 */
export function score(lower: string, words: readonly string[], phrase: string): number {
  let found = 0;
  let repeats = 0;
  for (const word of words) {
    const count = occurrences(lower, word, 10);
    if (count > 0) found++;
    repeats += count;
  }
  if (found === 0) return 0;
  const phraseBonus = words.length > 1 && lower.includes(phrase) ? 50 : 0;
  return found * 100 + phraseBonus + Math.min(10, repeats);
}

/** A piece of the output: an entry (with its id) or a heading. */
export interface Block {
  text: string;
  id?: string;
}

/**
 * The part of the blocks' text (joined by `separator`) from `offset` that fits `budget` bytes: whole blocks
 * while they fit, or — when not even the first one fits — that block cut (see {@link cutWithin}).
 */
export function windowOf(
  blocks: readonly Block[],
  separator: string,
  offset: number,
  budget: number,
): { text: string; next: number | undefined; ids: string[] } {
  const full = blocks.map((block) => block.text).join(separator);
  const ids: string[] = [];
  let position = 0;
  let end = offset;
  let next = offset;
  let bytes = 0;
  for (const block of blocks) {
    const blockEnd = position + block.text.length;
    if (blockEnd > offset || position >= offset) {
      const piece = Buffer.byteLength(full.slice(end, blockEnd));
      if (bytes + piece > budget) {
        if (end === offset) {
          end = cutWithin(full, offset, budget);
          next = end;
          if (block.id !== undefined) ids.push(block.id);
        }
        break;
      }
      bytes += piece;
      end = blockEnd;
      // A continuation starts at the next block, not at the separator.
      next = blockEnd + separator.length;
      if (block.id !== undefined) ids.push(block.id);
    }
    position = blockEnd + separator.length;
  }
  return { text: full.slice(offset, end), next: next < full.length ? next : undefined, ids };
}

/** The largest end ≤ the text's length such that `text.slice(start, end)` fits `budget` bytes. */
export function cutWithin(text: string, start: number, budget: number): number {
  let end = Math.min(text.length, start + budget);
  for (let bytes = Buffer.byteLength(text.slice(start, end)); bytes > budget && end > start; ) {
    end = Math.min(end - 1, start + Math.floor(((end - start) * budget) / bytes));
    bytes = Buffer.byteLength(text.slice(start, end));
  }
  const code = text.charCodeAt(end - 1);
  if (end > start && end < text.length && code >= 0xd800 && code <= 0xdbff) end--;
  const newline = text.lastIndexOf("\n", end - 1);
  if (end < text.length && newline > start + (end - start) * 0.8) end = newline + 1;
  return end;
}

/** A text cut to at most `maxBytes` bytes, ending with `…` when cut. */
export function truncateText(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  return `${text.slice(0, cutWithin(text, 0, maxBytes - 3))}…`;
}
