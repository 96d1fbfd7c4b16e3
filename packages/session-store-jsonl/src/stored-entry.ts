/**
 * An entry of a session file whose body is parsed on demand: the scanner records where its line
 * is in the file's buffer, and `entry()` parses that slice once.
 */
import type { SessionEntry, StoredEntry } from "@arbor/session-store";
import { parseEntryText } from "@arbor/session-store/backend";

/** The buffer a session was read from, shared by its entries. */
export interface EntrySource {
  readonly sessionId: string;
  readonly buffer: Buffer;
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
    /** Byte offset of the line in the session's buffer. */
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
   * `SessionCorruptError` (naming the line) when the line is not valid JSON or disagrees with the tree
   * fields the scanner read.
   */
  entry(): SessionEntry {
    if (this.parsed !== undefined) return this.parsed;
    // No encoding argument: Buffer#toString goes straight to its UTF-8 decoder.
    const text = this.source.buffer.toString(undefined, this.start, this.end);
    this.parsed = parseEntryText(this.source.sessionId, text, this, `line ${this.lineNumber}`);
    return this.parsed;
  }
}
