/**
 * The last entries of a session's current path and how many come before them, without reading the whole
 * path each time: the path's length is kept per session and updated from the entries appended since (a
 * session only grows; a leaf that moved elsewhere reads the path again). What `get_transcript` sends.
 */
import type { Session, SessionEntry } from "@arbor/session-store";

/** The kept length of each session's path, at a leaf. */
const lengths = new WeakMap<Session, { leafId: string | null; length: number; entryCount: number }>();

/** An entry of the path: its tree fields and the entry (`undefined`: unreadable). */
export interface PathEntry {
  id: string;
  type: string;
  parentId: string | null;
  entry: SessionEntry | undefined;
}

/**
 * The length of the current path.
 *
 * Contract: equal to `session.getPath().length`; O(entries appended since the last call for this session)
 * when the leaf moved down through them, else O(path).
 */
export function pathLength(session: Session): number {
  const leafId = session.leafId;
  const kept = lengths.get(session);
  let length: number | undefined;
  if (kept !== undefined) {
    const appended = session.entryCount - kept.entryCount;
    let steps = 0;
    for (let id = leafId; length === undefined; steps++) {
      if (id === kept.leafId) length = kept.length + steps;
      else if (id === null || steps >= appended) break;
      else {
        const entry = session.getEntry(id);
        if (entry === undefined) break;
        id = entry.parentId;
      }
    }
  }
  length ??= session.getPath().length;
  lengths.set(session, { leafId, length, entryCount: session.entryCount });
  return length;
}

/**
 * The last `count` entries of the current path (oldest first) and how many come before them.
 *
 * Contract: the same entries as `session.getPath().slice(-count)`; parses only them (O(count) once the path's
 * length is known, see {@link pathLength}).
 */
export function pathTail(session: Session, count: number): { earlier: number; entries: PathEntry[] } {
  const length = pathLength(session);
  const entries: PathEntry[] = [];
  for (let id = session.leafId; id !== null && entries.length < count; ) {
    const entry = session.getEntry(id);
    if (entry === undefined) return fromPath(session, count);
    const parentId = entry.parentId !== null && session.has(entry.parentId) ? entry.parentId : null;
    entries.push({ id, type: entry.type, parentId, entry });
    id = parentId;
  }
  entries.reverse();
  return { earlier: length - entries.length, entries };
}

/** {@link pathTail} through `getPath` (a path with an unreadable entry). */
function fromPath(session: Session, count: number): { earlier: number; entries: PathEntry[] } {
  const path = session.getPath();
  const shown = path.slice(-count);
  return {
    earlier: path.length - shown.length,
    entries: shown.map((ref) => ({ id: ref.id, type: ref.type, parentId: ref.parentId, entry: ref.entry() })),
  };
}
