/**
 * A stored entry backed by the JSON text of a database row: the tree fields come from the row's
 * columns, the body is parsed on the first `entry()` call.
 */
import { SessionCorruptError, type SessionEntry, type StoredEntry } from "@arbor/session-store";

/** A {@link StoredEntry} over a row's JSON text, parsed once, lazily. */
export class TextStoredEntry implements StoredEntry {
  private parsed: SessionEntry | undefined;

  constructor(
    private readonly sessionId: string,
    readonly seq: number,
    readonly type: string,
    readonly id: string,
    readonly parentId: string | null,
    private readonly body: string,
  ) {}

  /**
   * The full entry, unknown fields included.
   *
   * Contract: parses the row at most once and returns the same object on every call; throws
   * `SessionCorruptError` (naming the row) when its text is not JSON or disagrees with its columns.
   */
  entry(): SessionEntry {
    if (this.parsed !== undefined) return this.parsed;
    let value: unknown;
    try {
      value = JSON.parse(this.body);
    } catch (error) {
      throw new SessionCorruptError(
        this.sessionId,
        `row ${this.seq} (entry "${this.id}") is not valid JSON`,
        {
          cause: error,
        },
      );
    }
    const entry = value as SessionEntry;
    if (
      typeof value !== "object" ||
      value === null ||
      entry.type !== this.type ||
      entry.id !== this.id ||
      (entry.parentId ?? null) !== this.parentId
    ) {
      throw new SessionCorruptError(
        this.sessionId,
        `row ${this.seq} (entry "${this.id}") does not match its type, id and parentId columns`,
      );
    }
    this.parsed = entry;
    return entry;
  }
}
