/**
 * The last entries of a session's current path and how many come before them, without reading the whole
 * path: the path's length comes from the session's index (`Session.pathLength`, O(1)). What
 * `get_transcript` sends.
 */
import type { Session, SessionEntry } from "@arbor/session-store";

/** An entry of the path: its tree fields and the entry (`undefined`: unreadable). */
export interface PathEntry {
  id: string;
  type: string;
  parentId: string | null;
  entry: SessionEntry | undefined;
}

/**
 * The last `count` entries of the current path (oldest first) and how many come before them.
 *
 * Contract: the same entries as `session.getPath().slice(-count)`; parses only them, O(count).
 */
export function pathTail(session: Session, count: number): { earlier: number; entries: PathEntry[] } {
  const length = session.pathLength();
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
