/**
 * An entry of a session file whose body is parsed on demand: the scanner records where its line is in
 * the file, and `entry()` reads that range back (through its {@link EntrySource}) and parses it once.
 */
import type { SessionEntry, StoredEntry } from "@arbor/session-store";
import { parseEntryText } from "@arbor/session-store/backend";

/** Where a session's entry lines are read back from, shared by its entries. */
export interface EntrySource {
  readonly sessionId: string;
  /**
   * The text of the bytes `[start, end)` of the session file.
   *
   * Contract: throws `SessionCorruptError` when those bytes can no longer be read as they were scanned
   * (the file was replaced or cut shorter since).
   */
  text(start: number, end: number): string;
}

/** An {@link EntrySource} over bytes held in memory (a file read whole, a migrated copy, a tail). */
export class BufferEntrySource implements EntrySource {
  constructor(
    readonly sessionId: string,
    private readonly buffer: Buffer,
  ) {}

  text(start: number, end: number): string {
    // No encoding argument: Buffer#toString goes straight to its UTF-8 decoder.
    return this.buffer.toString(undefined, start, end);
  }
}

/** A {@link StoredEntry} backed by a line of a session file. */
export class JsonlStoredEntry implements StoredEntry {
  private parsed: SessionEntry | undefined;

  /**
   * @param lineNumber - 1-based line number in the file, for error messages
   * @param parsed - the entry when the scanner already had to parse the line (never parsed twice)
   */
  constructor(
    readonly type: string,
    readonly id: string,
    readonly parentId: string | null,
    private readonly source: EntrySource,
    /** Byte offset of the line in the file. */
    readonly start: number,
    /** Byte offset after the line's last `}`. */
    readonly end: number,
    readonly lineNumber: number,
    parsed?: SessionEntry,
  ) {
    this.parsed = parsed;
  }

  /**
   * The full entry, unknown fields included.
   *
   * Contract: parses the line at most once and returns the same object on every call; throws
   * `SessionCorruptError` (naming the line) when the line is not valid JSON, disagrees with the tree
   * fields the scanner read, or can no longer be read back (see {@link EntrySource.text}).
   */
  entry(): SessionEntry {
    if (this.parsed !== undefined) return this.parsed;
    const text = this.source.text(this.start, this.end);
    this.parsed = parseEntryText(this.source.sessionId, text, this, `line ${this.lineNumber}`);
    return this.parsed;
  }
}
