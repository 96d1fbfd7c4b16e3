/**
 * `listSessions` over the session files: each file's header and tail are read (see
 * {@link summarizeTail}), never the whole file; the summaries are sorted newest activity first and
 * cut into pages with a keyset cursor.
 */
import { closeSync, constants, fstatSync, type Stats, statSync } from "node:fs";
import type { ListSessionsQuery, SessionPage, SessionSummary } from "@arbor/session-store";
import {
  compareListing,
  decodeListingCursor,
  encodeListingCursor,
  type ListingCursor,
} from "@arbor/session-store/backend";
import { InvalidStoreArgumentError } from "./errors.js";
import { encodeCwd, findSessionFiles, type SessionFileLocation } from "./layout.js";
import { openRegularFile } from "./regular-file.js";
import { readHeader, summarizeTail } from "./tail-summary.js";

/** Default page size. */
const DEFAULT_PAGE_SIZE = 50;

/** Summaries already read, by path, valid while the file's size, mtime and inode are unchanged. */
export type SummaryCache = Map<string, { key: string; summary: SessionSummary }>;

/**
 * Lists the sessions under `sessionsDirectory`.
 *
 * Contract: reads at most the header and the tail of each file (a file without a batch trailer near
 * its end, as the pi agent writes them, is counted in bounded chunks, once per change); files whose
 * header cannot be read are skipped and reported through `warn`. Throws `InvalidStoreArgumentError`
 * for a bad limit or cursor. With `only`, lists that one file instead of scanning the directory.
 */
export function listSessionFiles(
  sessionsDirectory: string,
  query: ListSessionsQuery | undefined,
  cache: SummaryCache,
  warn: (message: string) => void,
  only?: SessionFileLocation,
): SessionPage {
  const limit = query?.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidStoreArgumentError(`listSessions: limit must be a positive integer, received ${limit}.`);
  }
  const after = query?.cursor === undefined ? undefined : decodeListingCursor(query.cursor);
  const cwd = query?.cwd;
  const candidates: SessionSummary[] = [];
  const seen = new Set<string>();
  const visited = new Set<string>();
  const files =
    only !== undefined
      ? [only]
      : findSessionFiles(sessionsDirectory, cwd === undefined ? undefined : encodeCwd(cwd));
  for (const { sessionId, path } of files) {
    visited.add(path);
    const summary = summarize(path, sessionId, cache, warn);
    if (summary === undefined || seen.has(summary.id)) continue;
    seen.add(summary.id);
    if (cwd !== undefined && summary.cwd !== cwd) continue;
    if (after !== undefined && compareListing(after, summary) >= 0) continue;
    candidates.push(summary);
  }
  if (cwd === undefined) for (const path of cache.keys()) if (!visited.has(path)) cache.delete(path);
  candidates.sort(compareListing);
  const sessions = candidates.slice(0, limit);
  const last = sessions.at(-1);
  if (candidates.length <= limit || last === undefined) return { sessions };
  return { sessions, nextCursor: encodeListingCursor({ updatedAt: last.updatedAt, id: last.id }) };
}

function summarize(
  path: string,
  sessionId: string,
  cache: SummaryCache,
  warn: (message: string) => void,
): SessionSummary | undefined {
  try {
    const cached = cache.get(path);
    if (cached !== undefined && cached.key === cacheKey(statSync(path))) return cached.summary;
  } catch {
    return undefined; // Deleted since the directory was read.
  }
  let fd: number;
  try {
    fd = openRegularFile(path, constants.O_RDONLY); // never blocks on a FIFO
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    const key = cacheKey(stat);
    const { header, headerEnd } = readHeader(fd, stat.size, sessionId);
    const { tally } = summarizeTail(fd, stat.size, headerEnd);
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
    cache.set(path, { key, summary });
    return summary;
  } catch (error) {
    warn(`listSessions: skipped ${path}: ${(error as Error).message}`);
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function cacheKey(stat: Stats): string {
  return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
}
