/**
 * `copySessions`: moves sessions between any two {@link SessionStore} backends, entry for entry.
 */
import type { SessionEntry } from "./entries.js";
import type { SessionStore } from "./store.js";

/** Options of {@link copySessions}. */
export interface CopySessionsOptions {
  /** Entries per `appendEntries` call on the target; default 500. */
  batchSize?: number;
  /**
   * Called after each session is copied.
   *
   * Contract: must not throw.
   */
  onCopied?: (sessionId: string, entries: number) => void;
}

/** What {@link copySessions} did. */
export interface CopySessionsResult {
  /** The ids copied, in order. */
  copied: string[];
  /** Entries copied in all. */
  entries: number;
  /** The source's read warnings, each prefixed with its session id (e.g. a corrupt row left out). */
  warnings: string[];
}

/**
 * Copies sessions from `from` to `to`: each header as read, then every entry in append order, in
 * batches chained by `expectedLastEntryId` (so a concurrent writer on the target is reported, not
 * interleaved). Entries are handed over as the source parsed them, unknown types and fields included,
 * so their JSON text is the same in both stores. Without `ids`, every session of `from` is copied,
 * newest activity first.
 *
 * Contract: throws the first error of either store and stops there (sessions copied before it stay
 * copied): `SessionNotFoundError` for an id `from` lacks, `SessionExistsError` when `to` already has it,
 * `SessionCorruptError` for a source session whose header or an entry body cannot be read. The source
 * is never written.
 */
export async function copySessions(
  from: SessionStore,
  to: SessionStore,
  ids?: readonly string[],
  options: CopySessionsOptions = {},
): Promise<CopySessionsResult> {
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 500));
  const result: CopySessionsResult = { copied: [], entries: 0, warnings: [] };
  for (const sessionId of ids ?? (await allSessionIds(from))) {
    const read = await from.readSession(sessionId);
    for (const warning of read.warnings) result.warnings.push(`${sessionId}: ${warning}`);
    await to.createSession(read.header);
    let last: string | null = null;
    for (let start = 0; start < read.entries.length; start += batchSize) {
      const batch: SessionEntry[] = read.entries
        .slice(start, start + batchSize)
        .map((stored) => stored.entry());
      await to.appendEntries(sessionId, batch, { expectedLastEntryId: last });
      last = batch.at(-1)?.id ?? last;
    }
    result.copied.push(sessionId);
    result.entries += read.entries.length;
    options.onCopied?.(sessionId, read.entries.length);
  }
  return result;
}

/** Every session id of a store, following the listing's cursors. */
async function allSessionIds(store: SessionStore): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listSessions({ limit: 200, cursor });
    for (const session of page.sessions) ids.push(session.id);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return ids;
}
