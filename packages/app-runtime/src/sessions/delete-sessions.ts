/**
 * Deleting sessions, one by one or by a prune query (age, working directory), on any store. A session
 * another process is writing (it holds the writer lease, docs/decisions/0015-writer-lease.md) is never
 * deleted under it: it is refused, with the holder named, and the others are deleted.
 */
import type { SessionStore, SessionSummary } from "@arbor/session-store";

/** Which sessions a prune deletes: all the conditions given hold. */
export interface PruneQuery {
  /** Only sessions whose last activity is older than this many milliseconds. */
  olderThanMs?: number;
  /** Only the sessions of this working directory (absent: every directory). */
  cwd?: string;
  /** The time ages are measured from (default: now). */
  now?: Date;
}

/** A session that was not deleted, and why (in words for the user). */
export interface RefusedDeletion {
  id: string;
  reason: string;
}

/** What {@link deleteSessions} did. */
export interface SessionDeletion {
  deleted: string[];
  refused: RefusedDeletion[];
}

const AGE_UNITS: Readonly<Record<string, number>> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/**
 * An age as a prune takes it: a whole number and a unit, `90m`, `12h`, `30d` or `8w`; in milliseconds, or
 * undefined for anything else.
 *
 * Contract: pure.
 */
export function parseAge(text: string): number | undefined {
  const match = /^\s*(\d+)\s*([mhdw])\s*$/i.exec(text);
  if (match === null) return undefined;
  const unit = AGE_UNITS[(match[2] ?? "").toLowerCase()];
  const count = Number(match[1]);
  return unit === undefined || count < 1 ? undefined : count * unit;
}

/** Largest page asked of the store at once. */
const PAGE_SIZE = 200;

/**
 * The sessions a prune query selects, newest activity first.
 *
 * Contract: reads the store's listing only (never whole sessions); pages through all of it.
 */
export async function sessionsToPrune(store: SessionStore, query: PruneQuery): Promise<SessionSummary[]> {
  const cutoff =
    query.olderThanMs === undefined ? undefined : (query.now ?? new Date()).getTime() - query.olderThanMs;
  const selected: SessionSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listSessions({
      ...(query.cwd === undefined ? {} : { cwd: query.cwd }),
      limit: PAGE_SIZE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const session of page.sessions) {
      if (cutoff === undefined || Date.parse(session.updatedAt) < cutoff) selected.push(session);
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return selected;
}

/** Options of {@link deleteSessions}. */
export interface DeleteSessionsOptions {
  /** Sessions this process has open (the current one): refused, never deleted. */
  keep?: readonly string[];
}

/**
 * Deletes sessions by id. Each is first leased (when the store has writer leases), so a session another
 * process writes is refused with the store's message naming the holder; an unknown id is refused too.
 *
 * Contract: never throws for one session's refusal (it is in `refused`); throws the store's errors that
 * concern the whole store (read-only, unavailable) at the first session.
 */
export async function deleteSessions(
  store: SessionStore,
  ids: readonly string[],
  options: DeleteSessionsOptions = {},
): Promise<SessionDeletion> {
  const result: SessionDeletion = { deleted: [], refused: [] };
  const keep = new Set(options.keep ?? []);
  for (const id of new Set(ids)) {
    if (keep.has(id)) {
      result.refused.push({ id, reason: "it is the session open here; switch to another session first" });
      continue;
    }
    const refusal = await deleteOne(store, id);
    if (refusal === undefined) result.deleted.push(id);
    else result.refused.push({ id, reason: refusal });
  }
  return result;
}

/** Codes of the errors that concern one session, not the store. */
const SESSION_REFUSALS = new Set(["session_not_found", "session_locked"]);

async function deleteOne(store: SessionStore, id: string): Promise<string | undefined> {
  try {
    const lease = await store.acquireWriterLease?.(id);
    try {
      await store.deleteSession(id);
    } finally {
      await lease?.release();
    }
    return undefined;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && SESSION_REFUSALS.has(code)) {
      return code === "session_not_found" ? "no such session in this store" : (error as Error).message;
    }
    throw error;
  }
}
