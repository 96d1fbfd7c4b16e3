import type { Session, SessionEntryRef } from "@arbor/session-store";
import { renderEntry } from "./recall-render.js";
import { collectScope, type Recallable, type RecallScope } from "./recall-scope.js";

/**
 * What the `recall` tool keeps of one open session between calls: the searchable text of each entry it
 * searched (its rendering, lower-cased — an entry never changes, so it stays right across branch switches and
 * compactions), and the recallable entries of the current branch, found again only when the leaf moved other
 * than down through plain appended entries (a compaction, branch summary or prune among them, a branch switch).
 */

/** Default bound of the kept texts of one session, in characters (UTF-16 code units). */
export const DEFAULT_RECALL_SEARCH_CHARS = 128 * 1024 * 1024;

/** Entry types whose append changes what can be recalled. */
const SCOPE_TYPES = new Set(["compaction", "branch_summary", "prune"]);

/** The recallable entries of a branch, in conversation order, and the branch's leaf and size. */
interface KeptScope {
  scope: RecallScope;
  /** `scope.byId`'s entries sorted by `order`. */
  candidates: Recallable[];
  /** The kept text of each candidate (same index), once searched: what a repeated search reads. */
  texts: (string | undefined)[];
  leafId: string | null;
  entryCount: number;
  pathLength: number;
}

/** See the module comment; one per session (see {@link recallIndexOf}). */
export class RecallIndex {
  private readonly textById = new Map<string, string>();
  private chars = 0;
  private kept: KeptScope | undefined;

  /** @param maxChars - bound of the kept texts, in characters; texts past it are rendered at each query. */
  constructor(
    private readonly session: Session,
    private readonly maxChars: number = DEFAULT_RECALL_SEARCH_CHARS,
  ) {}

  /** Characters of text kept (at most `maxChars`). */
  get keptChars(): number {
    return this.chars;
  }

  /**
   * The recallable entries of the current branch and them sorted in conversation order.
   *
   * Contract: equal to `collectScope` of the session now; O(1) when the leaf did not move, O(entries appended)
   * when it moved down through plain appended entries, else O(branch) as `collectScope`.
   */
  scope(): { scope: RecallScope; candidates: readonly Recallable[] } {
    const { session } = this;
    const kept = this.kept;
    if (kept !== undefined && (kept.leafId === session.leafId || this.extend(kept))) return kept;
    const scope = collectScope(session);
    const candidates = [...scope.byId.values()].sort((a, b) => a.order - b.order);
    this.kept = {
      scope,
      candidates,
      texts: [],
      leafId: session.leafId,
      entryCount: session.entryCount,
      pathLength: scope.positions.size,
    };
    return this.kept;
  }

  /**
   * The lower-cased searchable text of a recallable entry (`undefined`: it cannot be read).
   *
   * Contract: equal to `renderEntry(ref.entry()).body.toLowerCase()`; kept while the kept texts stay within
   * `maxChars` (the first ones searched stay; the others are rendered again at each call).
   */
  text(ref: SessionEntryRef): string | undefined {
    const cached = this.textById.get(ref.id);
    if (cached !== undefined) return cached;
    const entry = ref.entry();
    if (entry === undefined) return undefined;
    const lower = renderEntry(entry).body.toLowerCase();
    if (this.chars + lower.length <= this.maxChars) {
      this.textById.set(ref.id, lower);
      this.chars += lower.length;
    }
    return lower;
  }

  /**
   * The kept texts of `candidates` (same index; `undefined` where none is kept: ask {@link text}). For the
   * candidates {@link scope} returned, the texts are filled on the first call and read from an array after.
   *
   * Contract: every string given equals what {@link text} gives for that candidate.
   */
  texts(candidates: readonly Recallable[]): readonly (string | undefined)[] {
    const kept = this.kept;
    if (kept === undefined || candidates !== kept.candidates) return [];
    const { texts } = kept;
    for (let at = texts.length; at < candidates.length; at++) {
      const ref = candidates[at]!.ref;
      const text = this.text(ref);
      const keptText = this.textById.get(ref.id);
      // Past the bound nothing more is kept: the search renders the rest itself.
      if (keptText === undefined && text !== undefined) break;
      texts.push(keptText);
    }
    return texts;
  }

  /** Follows the leaf down through plain appended entries; false when the scope must be found again. */
  private extend(kept: KeptScope): boolean {
    const { session } = this;
    const appended = session.entryCount - kept.entryCount;
    const fresh: string[] = [];
    for (let id = session.leafId; id !== kept.leafId; ) {
      if (id === null || fresh.length >= appended) return false;
      const entry = session.getEntry(id);
      if (entry === undefined || SCOPE_TYPES.has(entry.type)) return false;
      fresh.push(id);
      id = entry.parentId;
    }
    // The path grew: the new entries get the next positions, the abandoned branches' entries move after them.
    const { positions, byId } = kept.scope;
    for (const [offset, id] of fresh.reverse().entries()) positions.set(id, kept.pathLength + offset);
    for (const recallable of byId.values())
      if (recallable.order >= kept.pathLength) recallable.order += fresh.length;
    kept.pathLength += fresh.length;
    kept.leafId = session.leafId;
    kept.entryCount = session.entryCount;
    return true;
  }
}
