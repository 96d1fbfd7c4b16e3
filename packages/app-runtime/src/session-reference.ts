/**
 * Resolving what a user types to name a session (`<id|path>`) and an entry of it (`<entryId>`): a path to a
 * `.jsonl` session file (inside the store or anywhere else), a full session id, or a unique prefix of one;
 * an entry id or a unique prefix of one.
 *
 * A file outside the store is opened with `JsonlSessionStore.openFile(path, { readOnly: true })`: the file
 * is never changed or locked, it is read the way the store reads its own files (bodies parsed on demand; a
 * version 1 or 2 file migrated in memory; a torn tail left out and reported), and
 * {@link ResolvedSession.release} closes that store.
 */
import { realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ArborError } from "@arbor/ai-providers";
import {
  type Session,
  SessionCorruptError,
  type SessionStore,
  type SessionSummary,
} from "@arbor/session-store";
import type { JsonlStoreModule, StoreFactories } from "./factories.js";

/** A reference that names no session or entry, or more than one. */
export class SessionReferenceError extends ArborError {
  constructor(
    code: "session_reference_not_found" | "session_reference_ambiguous" | "invalid_session_file",
    message: string,
  ) {
    super(code, message);
    this.name = "SessionReferenceError";
  }
}

/** A session found from a reference. */
export interface ResolvedSession {
  /** The store to open the session from: the one given, or a read-only one over an outside file. */
  readonly store: SessionStore;
  /** The session's id (its header's `id`). */
  readonly sessionId: string;
  /** The session's file, when known (a path reference, or a JSONL store's file). */
  readonly location: string | undefined;
  /** True when the reference was a file outside the store (then {@link store} is read-only). */
  readonly external: boolean;
  /**
   * Releases what resolving took: for an outside file, closes the store opened on it. Never closes the
   * caller's store.
   *
   * Contract: never throws; calling it twice is harmless.
   */
  release(): Promise<void>;
}

/** Options of {@link resolveSessionReference}. */
export interface ResolveSessionOptions {
  /** The directory relative paths are resolved against. */
  cwd: string;
  /**
   * The app's store factories: `jsonl` opens a session file outside the store. Without it, a path to such
   * a file is refused with a message.
   */
  stores?: Pick<StoreFactories, "jsonl">;
}

/** A store that keeps one file per session (the JSONL store), seen structurally. */
interface SessionFileStore extends SessionStore {
  readonly sessionsDirectory: string;
  pathOf(sessionId: string): string;
}

function isSessionFileStore(store: SessionStore): store is SessionFileStore {
  const candidate = store as Partial<SessionFileStore>;
  return typeof candidate.sessionsDirectory === "string" && typeof candidate.pathOf === "function";
}

/** Most candidates an ambiguity error lists. */
const MAX_LISTED_CANDIDATES = 10;

/** Page size used when searching the store by id prefix. */
const SEARCH_PAGE_SIZE = 500;

/** True when the text can only be a path: it has a separator, starts with `.` or `~`, or ends in `.jsonl`. */
export function looksLikePath(reference: string): boolean {
  return (
    reference.includes("/") ||
    reference.includes("\\") ||
    reference.startsWith(".") ||
    reference.startsWith("~") ||
    reference.toLowerCase().endsWith(".jsonl")
  );
}

/** True when an id can name a session file (the JSONL store's rule). */
function isUsableSessionId(id: string): boolean {
  return id.length > 0 && id.length <= 200 && !/[/\\\0]/.test(id) && !id.includes("..");
}

function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(homedir(), path.slice(2));
  return path;
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** Opens a file outside the store read-only, as a store of its own (nothing is written or locked). */
async function openExternalFile(
  path: string,
  stores: ResolveSessionOptions["stores"],
): Promise<ResolvedSession> {
  if (stores?.jsonl === undefined) {
    throw new SessionReferenceError(
      "invalid_session_file",
      `${path} is outside the session store, and this app cannot open session files (it has no JSONL store).`,
    );
  }
  const { JsonlSessionStore } = await stores.jsonl();
  let opened: Awaited<ReturnType<JsonlStoreModule["JsonlSessionStore"]["openFile"]>>;
  try {
    opened = await JsonlSessionStore.openFile(path, { readOnly: true });
  } catch (error) {
    if (
      error instanceof SessionCorruptError ||
      (error instanceof ArborError && error.code === "invalid_argument")
    ) {
      throw new SessionReferenceError(
        "invalid_session_file",
        `${path} is not a session file Arbor can open (${error.message}); a session file starts with {"type":"session","id":…}.`,
      );
    }
    throw error;
  }
  let released = false;
  return {
    store: opened.store,
    sessionId: opened.sessionId,
    location: path,
    external: true,
    async release() {
      if (released) return;
      released = true;
      await opened.store.close?.().catch(() => undefined);
    },
  };
}

function inStore(store: SessionStore, sessionId: string, location: string | undefined): ResolvedSession {
  return { store, sessionId, location, external: false, release: async () => undefined };
}

/** The file of a session in a JSONL store; undefined for other stores or an unknown id. */
export function jsonlPathOf(store: SessionStore, sessionId: string): string | undefined {
  if (!isSessionFileStore(store) || !isUsableSessionId(sessionId)) return undefined;
  return store.pathOf(sessionId);
}

/** Every session whose id starts with `prefix` (case-insensitive), and the one equal to it, if any. */
async function searchByPrefix(
  store: SessionStore,
  prefix: string,
): Promise<{ exact: SessionSummary | undefined; matches: SessionSummary[]; named: SessionSummary[] }> {
  const wanted = prefix.toLowerCase();
  const matches: SessionSummary[] = [];
  const named: SessionSummary[] = [];
  let exact: SessionSummary | undefined;
  let cursor: string | undefined;
  do {
    const page = await store.listSessions({ limit: SEARCH_PAGE_SIZE, cursor });
    for (const summary of page.sessions) {
      if (summary.id === prefix) exact = summary;
      if (summary.id.toLowerCase().startsWith(wanted)) matches.push(summary);
      if (summary.name?.trim().toLowerCase() === wanted.trim()) named.push(summary);
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { exact, matches, named };
}

function describeCandidate(summary: SessionSummary): string {
  const name = summary.name === undefined ? "" : `  "${summary.name}"`;
  return `  ${summary.id}  ${summary.updatedAt}  ${summary.cwd}${name}`;
}

/**
 * Finds the session a reference names:
 *
 * 1. a path (see {@link looksLikePath}) to an existing session file: the store's own file when a JSONL
 *    store holds it (same real path), else the file through a read-only store of its own;
 * 2. a session id the store holds;
 * 3. a unique prefix of one (case-insensitive), searched across every working directory;
 * 4. else the name of exactly one session (case-insensitive, as `/name` set it).
 *
 * Contract: throws {@link SessionReferenceError} — `session_reference_not_found` (naming what was looked
 * for and how to list sessions), `session_reference_ambiguous` (listing up to 10 candidates), or
 * `invalid_session_file` for a path that is not a session file — and the store's own errors. The caller
 * must call `release()` when done with the result.
 */
export async function resolveSessionReference(
  store: SessionStore,
  reference: string,
  options: ResolveSessionOptions,
): Promise<ResolvedSession> {
  const text = reference.trim();
  if (text === "") {
    throw new SessionReferenceError(
      "session_reference_not_found",
      "An empty session reference names nothing.",
    );
  }
  if (looksLikePath(text)) {
    const path = resolve(options.cwd, expandHome(text));
    let isFile = false;
    try {
      isFile = statSync(path).isFile();
    } catch {
      // Reported below (or tried as an id).
    }
    if (isFile) {
      const external = await openExternalFile(path, options.stores);
      const own = jsonlPathOf(store, external.sessionId);
      if (own !== undefined && samePath(own, path)) {
        await external.release();
        return inStore(store, external.sessionId, own);
      }
      return external;
    }
    if (text.includes("/") || text.includes("\\") || text.toLowerCase().endsWith(".jsonl")) {
      throw new SessionReferenceError(
        "session_reference_not_found",
        `No session file at ${path}${statIsDirectory(path) ? " (it is a directory)" : ""}.`,
      );
    }
  }
  const own = jsonlPathOf(store, text);
  if (own !== undefined) return inStore(store, text, own);
  const { exact, matches, named } = await searchByPrefix(store, text);
  if (exact !== undefined) return inStore(store, exact.id, exact.location);
  const only = matches[0];
  if (matches.length === 1 && only !== undefined) return inStore(store, only.id, only.location);
  if (matches.length === 0) {
    // No id starts so: a session's name (`/name`, `session_info`), when exactly one session has it.
    const [byName] = named;
    if (named.length === 1 && byName !== undefined) return inStore(store, byName.id, byName.location);
    if (named.length > 1) {
      throw new SessionReferenceError(
        "session_reference_ambiguous",
        `${named.length} sessions are named "${text}"; give one's id:\n${named
          .slice(0, MAX_LISTED_CANDIDATES)
          .map(describeCandidate)
          .join("\n")}`,
      );
    }
    throw new SessionReferenceError(
      "session_reference_not_found",
      `No session "${text}" in ${describeStore(store)} (no id starts so and no session has that name). ` +
        "`arbor sessions list --all` lists every session; a path to a .jsonl file works too.",
    );
  }
  const listed = matches.slice(0, MAX_LISTED_CANDIDATES).map(describeCandidate);
  if (matches.length > MAX_LISTED_CANDIDATES) {
    listed.push(`  … and ${matches.length - MAX_LISTED_CANDIDATES} more`);
  }
  throw new SessionReferenceError(
    "session_reference_ambiguous",
    `"${text}" matches ${matches.length} sessions; type more of the id:\n${listed.join("\n")}`,
  );
}

function statIsDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A store in words, for messages: `the JSONL store in /home/me/.arbor`, or `the session store`. */
export function describeStore(store: SessionStore): string {
  if (isSessionFileStore(store)) return `the JSONL store in ${dirname(store.sessionsDirectory)}`;
  return "the session store";
}

/**
 * Finds the entry a reference names in a session: its id, or a unique prefix of one; `leaf` names the
 * current leaf.
 *
 * Contract: O(entries) at most (an exact id is O(1)); parses nothing. Throws {@link SessionReferenceError}
 * when no entry or several match (listing up to 10).
 */
export function resolveEntryReference(session: Session, reference: string): string {
  const text = reference.trim();
  if (session.has(text)) return text;
  if (text === "leaf" && session.leafId !== null) return session.leafId;
  const matches: string[] = [];
  if (text !== "") {
    const stack = session.getTree();
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.id.startsWith(text)) matches.push(node.id);
      for (const child of node.children) stack.push(child);
    }
  }
  const only = matches[0];
  if (matches.length === 1 && only !== undefined) return only;
  if (matches.length === 0) {
    throw new SessionReferenceError(
      "session_reference_not_found",
      `Session ${session.id} has no entry "${text}". \`arbor sessions show ${session.id} --tree\` lists its entries.`,
    );
  }
  const listed = matches.slice(0, MAX_LISTED_CANDIDATES).join(", ");
  throw new SessionReferenceError(
    "session_reference_ambiguous",
    `"${text}" matches ${matches.length} entries of session ${session.id}: ${listed}${matches.length > MAX_LISTED_CANDIDATES ? ", …" : ""}.`,
  );
}
