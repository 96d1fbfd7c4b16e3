/**
 * Markdown lexing for a reply that grows while it streams. Re-lexing the whole text at every delta would
 * cost O(length) per delta — O(length²) per reply. Instead the blocks before the last one are frozen once
 * complete: a Markdown block cannot change once another block follows it (the one exception, reference
 * link definitions further down, is not worth a quadratic cost), so each update lexes only the text from the
 * start of the last block on.
 */
import { Lexer, type Token } from "marked";

/** The blocks of the text so far. */
export interface IncrementalBlocks {
  /** Visible blocks that will not change any more (the same array, grown, from one update to the next). */
  readonly frozen: readonly Token[];
  /** How many blocks `frozen` holds now (it is appended to in place). */
  readonly frozenCount: number;
  /** The blocks after the frozen ones, lexed again at every update. */
  readonly tail: readonly Token[];
}

/** Incremental lexer of one growing Markdown text. */
export class IncrementalMarkdown {
  private frozen: Token[] = [];
  /** Characters of the text the frozen blocks cover. */
  private frozenLength = 0;
  private lastText = "";
  private lastResult: IncrementalBlocks = { frozen: this.frozen, frozenCount: 0, tail: [] };

  /**
   * The blocks of `text`, which normally extends the text of the previous call (one that does not is lexed from scratch).
   *
   * Contract: the blocks equal `Lexer.lex(text)` except where a block's meaning depends on text after a later
   * block; the work per call is O(length of the last block) plus O(newly frozen text) — amortized O(delta).
   */
  update(text: string): IncrementalBlocks {
    if (text === this.lastText) return this.lastResult;
    if (!this.extends(text)) this.reset();
    this.lastText = text;
    const source = text.slice(this.frozenLength);
    const tokens = Lexer.lex(source);
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last]!.type === "space") last--;
    // Freeze every block before the last non-blank one, when the raw texts add up to the source exactly
    // (marked normalizes some input, e.g. "\r\n"; then nothing is frozen and the whole tail is lexed again).
    let covered = 0;
    for (let index = 0; index < last; index++) covered += tokens[index]!.raw.length;
    if (last > 0 && source.startsWith(rawOf(tokens, last))) {
      for (let index = 0; index < last; index++) {
        const token = tokens[index]!;
        // Blank lines only separate blocks: frozen blocks are the visible ones.
        if (token.type !== "space") this.frozen.push(token);
      }
      this.frozenLength += covered;
      this.lastResult = { frozen: this.frozen, frozenCount: this.frozen.length, tail: tokens.slice(last) };
    } else {
      this.lastResult = { frozen: this.frozen, frozenCount: this.frozen.length, tail: tokens };
    }
    return this.lastResult;
  }

  private extends(text: string): boolean {
    if (text.length < this.lastText.length) return false;
    // Checking the frozen boundary (not the whole prefix) keeps the check O(1) for a text that only grows.
    const from = Math.max(0, this.frozenLength - 32);
    return text.slice(from, this.lastText.length) === this.lastText.slice(from);
  }

  private reset(): void {
    // A new array: renderers memoize on (array, count), and the old blocks are gone.
    this.frozen = [];
    this.frozenLength = 0;
    this.lastText = "";
  }
}

function rawOf(tokens: readonly Token[], count: number): string {
  let raw = "";
  for (let index = 0; index < count; index++) raw += tokens[index]!.raw;
  return raw;
}
