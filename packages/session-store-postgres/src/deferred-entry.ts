/**
 * Entries read without their bodies (`readSession` with `deferBodies`): the tree columns of the row, the
 * JSON text once loaded. See docs/decisions/0019-deferred-entry-bodies.md.
 */
import { EntryNotLoadedError, type SessionEntry, type StoredEntry } from "@arbor/session-store";
import { parseEntryText } from "@arbor/session-store/backend";

/** A {@link StoredEntry} over a row whose JSON text may not be loaded yet; parsed once, lazily. */
export class DeferredJsonEntry implements StoredEntry {
  private parsed: SessionEntry | undefined;

  /**
   * @param seq - the row's position in the session (0-based): its key for loading, and for messages
   * @param body - the JSON text, or `undefined` until {@link load} gives it
   */
  constructor(
    private readonly sessionId: string,
    readonly seq: number,
    readonly type: string,
    readonly id: string,
    readonly parentId: string | null,
    private body: string | undefined,
  ) {}

  /** True once the JSON text is at hand. */
  get loaded(): boolean {
    return this.body !== undefined || this.parsed !== undefined;
  }

  /** Gives the row's JSON text (the first one given wins). */
  load(body: string): void {
    this.body ??= body;
  }

  /**
   * The full entry, unknown fields included.
   *
   * Contract: parses the row at most once and returns the same object on every call; throws
   * `EntryNotLoadedError` while the text is not loaded, and `SessionCorruptError` (naming the row) when
   * it is not JSON or disagrees with the row's columns.
   */
  entry(): SessionEntry {
    if (this.parsed !== undefined) return this.parsed;
    if (this.body === undefined) throw new EntryNotLoadedError(this.sessionId, this.id);
    this.parsed = parseEntryText(this.sessionId, this.body, this, `row ${this.seq}`);
    this.body = undefined;
    return this.parsed;
  }
}
