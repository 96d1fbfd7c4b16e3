/**
 * Entries of a read session whose bodies stay in the database until asked for: `readSession` reads the
 * tree columns of every row, and `entry()` fetches the row's JSON text by `(session, seq)` — the primary
 * key — when first called. Reads that walk forwards or backwards (a context: the compaction's kept span,
 * then the path after it) are served a growing window of rows per statement, as a file's read-ahead is.
 */
import { SessionCorruptError, type SessionEntry, type StoredEntry } from "@arbor/session-store";
import { parseEntryText } from "@arbor/session-store/backend";

/** Rows fetched per statement at most (≈ 512 KB of 2 KB entries). */
const MAX_WINDOW = 256;
/** A miss this close to the last window (in rows) continues its walk. */
const NEAR = 64;

/**
 * Where a read session's bodies come from: the rows `[from, to]` (by `seq`) of one session, in order.
 *
 * Contract: returns `[seq, body]` pairs of the rows that exist in that range; throws when the store is
 * closed.
 */
export type BodyRange = (from: number, to: number) => [seq: number, body: string][];

/** The bodies of one read session, fetched on demand (see the module comment). Not shared between reads. */
export class SqliteBodySource {
  private from = -1;
  private to = -2;
  private bodies: (string | undefined)[] = [];
  private span = 1;

  constructor(
    readonly sessionId: string,
    private readonly range: BodyRange,
  ) {}

  /** The JSON text of the row `seq`, or undefined when the row is gone (the session was deleted). */
  body(seq: number): string | undefined {
    if (seq < this.from || seq > this.to) this.fetch(seq);
    return this.bodies[seq - this.from];
  }

  private fetch(seq: number): void {
    const forwards = seq > this.to && seq <= this.to + NEAR;
    const backwards = seq < this.from && seq >= this.from - NEAR;
    this.span = forwards || backwards ? Math.min(MAX_WINDOW, this.span * 2) : 1;
    const from = backwards ? Math.max(0, seq - this.span + 1) : seq;
    const to = backwards ? seq : seq + this.span - 1;
    const bodies: (string | undefined)[] = new Array(to - from + 1);
    for (const [at, body] of this.range(from, to)) bodies[at - from] = body;
    this.from = from;
    this.to = to;
    this.bodies = bodies;
  }
}

/** A {@link StoredEntry} of a SQLite row: tree fields from its columns, the body fetched and parsed once. */
export class SqliteStoredEntry implements StoredEntry {
  private parsed: SessionEntry | undefined;

  /** The row's JSON text when it was read with the tree columns, else fetched from the source. */
  private body: string | undefined;

  /** @param seq - the row's position in the session (0-based) */
  constructor(
    private readonly source: SqliteBodySource,
    readonly seq: number,
    readonly type: string,
    readonly id: string,
    readonly parentId: string | null,
  ) {}

  /** Hands the entry its JSON text, read with the tree (undefined: fetched when asked). */
  preload(body: string | undefined): void {
    this.body = body;
  }

  /**
   * The full entry, unknown fields included.
   *
   * Contract: fetches and parses the row at most once and returns the same object on every call; throws
   * `SessionCorruptError` (naming the row) when its text is not JSON, disagrees with its columns or is gone
   * (the session was deleted since it was read), and `InvalidArgumentError` once the store is closed.
   */
  entry(): SessionEntry {
    if (this.parsed !== undefined) return this.parsed;
    const text = this.body ?? this.source.body(this.seq);
    if (text === undefined) {
      throw new SessionCorruptError(
        this.source.sessionId,
        `row ${this.seq} (entry "${this.id}") is gone: the session was deleted since it was read`,
      );
    }
    this.body = undefined;
    this.parsed = parseEntryText(this.source.sessionId, text, this, `row ${this.seq}`);
    return this.parsed;
  }
}
