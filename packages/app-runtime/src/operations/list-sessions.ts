/**
 * The one JSON shape of a session in a list (`list_sessions` of the protocol, `arbor sessions list
 * --json`) and paging through the store: newest activity first, a page of `limit` with the cursor of the
 * next.
 */
import type { SessionStore, SessionSummary } from "@arbor/session-store";
import { clipText, singleLine } from "@arbor/session-view";

/** One session in a list: every field always present (`null` when unknown), so scripts can rely on it. */
export interface SessionListItem {
  id: string;
  name: string | null;
  cwd: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601: the last entry's timestamp. */
  updatedAt: string;
  messageCount: number;
  /** The session it was forked from (an id, or a pi agent's file path). */
  parentSession: string | null;
  /** The session's file (JSONL store). */
  location: string | null;
  /** The first user message, on one line (at most 200 characters), when the file's beginning holds it. */
  firstMessage: string | null;
}

/** A page of sessions: `nextCursor` reads the next one (`null`: this was the last). */
export interface SessionPage {
  sessions: SessionListItem[];
  nextCursor: string | null;
}

/** Options of {@link listSessionPage}. */
export interface SessionPageOptions {
  /** Every working directory's sessions (default: only those of `cwd`). */
  all?: boolean;
  /** The working directory whose sessions are listed without `all`. */
  cwd?: string;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  /** Most sessions on the page; default {@link DEFAULT_PAGE_SIZE}. */
  limit?: number;
}

/** Sessions on a page when no `limit` is given. */
export const DEFAULT_PAGE_SIZE = 20;

/** A summary of the store as a {@link SessionListItem}. Contract: pure. */
export function sessionListItem(summary: SessionSummary): SessionListItem {
  return {
    id: summary.id,
    name: summary.name ?? null,
    cwd: summary.cwd,
    createdAt: summary.createdAt,
    updatedAt: summary.updatedAt,
    messageCount: summary.messageCount,
    parentSession: summary.parentSession ?? null,
    location: summary.location ?? null,
    firstMessage: summary.firstMessage === undefined ? null : clipText(singleLine(summary.firstMessage), 200),
  };
}

/**
 * One page of the store's sessions, newest activity first.
 *
 * Contract: reads the store only; one `listSessions` call.
 */
export async function listSessionPage(
  store: SessionStore,
  options: SessionPageOptions = {},
): Promise<SessionPage> {
  const page = await store.listSessions({
    limit: options.limit ?? DEFAULT_PAGE_SIZE,
    ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
    ...(options.all === true || options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  return {
    sessions: page.sessions.map(sessionListItem),
    nextCursor: page.nextCursor ?? null,
  };
}
