/**
 * Reading a session's entries as {@link SqliteStoredEntry}s: the tree columns of every row (from the
 * covering index, in chunks, so a 60k-entry session never holds 60k row arrays at once — the garbage
 * collector would copy them all), and the bodies of the few entries whose effect is global.
 */
import { ENTRY_TYPES, type ReadStatements } from "./sqlite-statements.js";
import { type SqliteBodySource, SqliteStoredEntry } from "./sqlite-stored-entry.js";

/** Rows per statement of the tree query. */
const TREE_CHUNK = 4096;

/** Entry types whose bodies `Session.open` reads at once (their effect is global): read with the tree. */
const EAGER_TYPES: ReadonlySet<string> = new Set(["label", "session_info", "leaf"]);

/** A row of the tree query (`raw()`): `type` (a number: see {@link ENTRY_TYPES}), `id`, `parent_id`. */
type TreeRow = [type: number | string | null, id: string | null, parentId: string | null];

/** What {@link readTree} found. */
export interface TreeRead {
  entries: SqliteStoredEntry[];
  /** Rows left out: `[seq, id]` of each row without its tree fields. */
  skipped: [seq: number, id: string | null][];
}

/**
 * Reads the entries of a session with `entryCount` rows. Rows are numbered `0…entryCount - 1` (the
 * append numbers them, `seq` is unique): then a row's `seq` is its position and the query returns no
 * `seq`; a session whose rows are numbered otherwise (a row removed by hand) is read with its `seq`s.
 *
 * Contract: runs inside the caller's read transaction; entries come in `seq` order.
 */
export function readTree(
  reads: ReadStatements,
  sessionId: string,
  entryCount: number,
  source: SqliteBodySource,
): TreeRead {
  const read: TreeRead = { entries: [], skipped: [] };
  const eager: SqliteStoredEntry[] = [];
  const add = (seq: number, row: TreeRow) => {
    const [code, id, parentId] = row;
    const type = typeof code === "number" ? (ENTRY_TYPES[code] as string) : code;
    if (type === null || id === null) {
      read.skipped.push([seq, id]);
      return;
    }
    const entry = new SqliteStoredEntry(source, seq, type, id, parentId);
    read.entries.push(entry);
    if (EAGER_TYPES.has(type)) eager.push(entry);
  };
  const last = reads.lastSeq.get(sessionId) as number | null;
  let dense = (last ?? -1) === entryCount - 1;
  for (let from = 0; dense && from < entryCount; from += TREE_CHUNK) {
    const to = Math.min(entryCount, from + TREE_CHUNK) - 1;
    const rows = reads.tree.all(sessionId, from, to) as TreeRow[];
    if (rows.length !== to - from + 1) dense = false;
    else for (let index = 0; index < rows.length; index++) add(from + index, rows[index] as TreeRow);
  }
  if (!dense) {
    read.entries = [];
    read.skipped = [];
    eager.length = 0;
    for (const [seq, ...row] of reads.treeWithSeq.all(sessionId) as [number, ...TreeRow][]) add(seq, row);
  }
  if (eager.length > 0) {
    const bodies = new Map(
      reads.bodiesAt.all(sessionId, JSON.stringify(eager.map((entry) => entry.seq))) as [number, string][],
    );
    for (const entry of eager) entry.preload(bodies.get(entry.seq));
  }
  return read;
}
