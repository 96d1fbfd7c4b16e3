/**
 * `listSessions` over the session files: each file's header and tail are read (see {@link peekTail}),
 * never the whole file, except to count the sessions of the page returned that have no trailer; the
 * summaries are sorted newest activity first and cut into pages with a keyset cursor, and kept in the
 * listing index.
 */
import { closeSync, constants, fstatSync, statSync } from "node:fs";
import type { ListSessionsQuery, SessionPage, SessionSummary } from "@arbor/session-store";
import { compareListing, decodeListingCursor, encodeListingCursor } from "@arbor/session-store/backend";
import { InvalidStoreArgumentError } from "./errors.js";
import { readFirstMessage } from "./first-message.js";
import { encodeCwd, findSessionFiles, type SessionFileLocation } from "./layout.js";
import { type ListingIndex, listingKey } from "./listing-index.js";
import { openRegularFile } from "./regular-file.js";
import { peekTail, readHeader, summarizeTail } from "./tail-summary.js";

/** Default page size. */
const DEFAULT_PAGE_SIZE = 50;

/**
 * Lists the sessions under `sessionsDirectory`.
 *
 * Contract: reads at most the header and the last 64 KB of each file, and counts (in one bounded pass)
 * only the files of the page returned whose tail holds no batch trailer (the pi agent writes none);
 * what it learns goes into `index` (see {@link ListingIndex}), so that unchanged files cost one `stat`
 * next time. Files whose header cannot be read are skipped and reported through `warn`. Throws
 * `InvalidStoreArgumentError` for a bad limit or cursor. With `only`, lists that one file instead of
 * scanning the directory.
 */
export function listSessionFiles(
  sessionsDirectory: string,
  query: ListSessionsQuery | undefined,
  index: ListingIndex,
  warn: (message: string) => void,
  only?: SessionFileLocation,
): SessionPage {
  const limit = query?.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidStoreArgumentError(`listSessions: limit must be a positive integer, received ${limit}.`);
  }
  const after = query?.cursor === undefined ? undefined : decodeListingCursor(query.cursor);
  const cwd = query?.cwd;
  index.load();
  const candidates: SessionSummary[] = [];
  const seen = new Set<string>();
  const visited = new Set<string>();
  const files =
    only !== undefined
      ? [only]
      : findSessionFiles(sessionsDirectory, cwd === undefined ? undefined : encodeCwd(cwd));
  for (const { sessionId, path } of files) {
    visited.add(path);
    const summary = summarize(path, sessionId, index, warn, false);
    if (summary === undefined || seen.has(summary.id)) continue;
    seen.add(summary.id);
    if (cwd !== undefined && summary.cwd !== cwd) continue;
    if (after !== undefined && compareListing(after, summary) >= 0) continue;
    candidates.push(summary);
  }
  if (cwd === undefined && only === undefined)
    for (const path of [...index.entries.keys()]) if (!visited.has(path)) index.delete(path);
  candidates.sort(compareListing);
  const sessions: SessionSummary[] = [];
  for (const candidate of candidates.slice(0, limit)) {
    // Only the page's sessions need their counts: complete those the tail could not give.
    const location = candidate.location as string;
    const summary =
      index.get(location)?.complete === false
        ? summarize(location, candidate.id, index, warn, true)
        : candidate;
    if (summary !== undefined) sessions.push(withFirstMessage(location, summary, index));
  }
  index.save();
  const last = sessions.at(-1);
  if (candidates.length <= limit || last === undefined) return { sessions };
  return { sessions, nextCursor: encodeListingCursor({ updatedAt: last.updatedAt, id: last.id }) };
}

/**
 * A summary of the page with its `firstMessage` (read from the file's beginning once, then kept in the
 * index with the rest of the summary).
 */
function withFirstMessage(path: string, summary: SessionSummary, index: ListingIndex): SessionSummary {
  if (summary.firstMessage !== undefined || summary.messageCount === 0) return summary;
  let fd: number;
  try {
    fd = openRegularFile(path, constants.O_RDONLY);
  } catch {
    return summary;
  }
  try {
    const stat = fstatSync(fd);
    const { headerEnd } = readHeader(fd, stat.size, summary.id);
    const firstMessage = readFirstMessage(fd, stat.size, headerEnd);
    if (firstMessage === undefined) return summary;
    const known = index.get(path);
    const completed = { ...summary, firstMessage };
    if (known !== undefined && known.key === listingKey(stat))
      index.set(path, { ...known, summary: completed });
    return completed;
  } catch {
    return summary;
  } finally {
    closeSync(fd);
  }
}

/**
 * The summary of one file: from the index when the file is unchanged, else from its header and tail
 * (and, with `complete`, a full count when the tail has no trailer).
 */
function summarize(
  path: string,
  sessionId: string,
  index: ListingIndex,
  warn: (message: string) => void,
  complete: boolean,
): SessionSummary | undefined {
  const known = index.get(path);
  if (known !== undefined && (known.complete || !complete)) {
    try {
      if (known.key === listingKey(statSync(path))) return known.summary;
    } catch {
      index.delete(path);
      return undefined; // Deleted since the directory was read.
    }
  }
  let fd: number;
  try {
    fd = openRegularFile(path, constants.O_RDONLY); // never blocks on a FIFO
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    const { header, headerEnd } = readHeader(fd, stat.size, sessionId);
    const peek = complete
      ? { tally: summarizeTail(fd, stat.size, headerEnd).tally, complete: true }
      : peekTail(fd, stat.size, headerEnd);
    const { tally } = peek;
    const createdAt =
      typeof header.timestamp === "string" ? header.timestamp : new Date(stat.birthtimeMs).toISOString();
    const summary: SessionSummary = {
      id: header.id,
      cwd: typeof header.cwd === "string" ? header.cwd : "",
      createdAt,
      updatedAt: tally.updatedAt ?? createdAt,
      messageCount: tally.messageCount,
      location: path,
    };
    if (tally.name !== undefined) summary.name = tally.name;
    if (typeof header.parentSession === "string") summary.parentSession = header.parentSession;
    index.set(path, { key: listingKey(stat), summary, complete: peek.complete });
    return summary;
  } catch (error) {
    warn(`listSessions: skipped ${path}: ${(error as Error).message}`);
    return undefined;
  } finally {
    closeSync(fd);
  }
}
