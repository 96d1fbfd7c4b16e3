import type { Session, SessionEntry } from "@arbor/session-store";

/**
 * The entries a compaction plan needs: the path from the latest compaction's kept part (or the root) to the
 * leaf. Earlier entries are never parsed.
 */
export function compactionBranch(session: Session, leafId: string | null): SessionEntry[] {
  const path = session.getPath(leafId);
  let start = 0;
  for (let index = path.length - 1; index >= 0; index--) {
    const ref = path[index]!;
    if (ref.type !== "compaction") continue;
    start = index;
    const entry = ref.entry();
    const firstKept = entry?.type === "compaction" ? entry.firstKeptEntryId : undefined;
    for (let kept = index - 1; kept >= 0; kept--) {
      if (path[kept]!.id === firstKept) {
        start = kept;
        break;
      }
    }
    break;
  }
  const entries: SessionEntry[] = [];
  for (let index = start; index < path.length; index++) {
    const entry = path[index]!.entry();
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}
