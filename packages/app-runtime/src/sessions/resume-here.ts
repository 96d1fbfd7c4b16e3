/**
 * Resuming a session recorded in another directory. Its system prompt, its `AGENTS.md` and the model's
 * memory of paths belong to the directory it was recorded in, while the tools run in the directory Arbor
 * runs in; and a session's header (its `cwd`) cannot change (the format is append-only). So the session
 * continues here as a fork: a new session whose header records this directory (`parentSession`: the
 * original), holding the original's current branch — everything agrees on one directory, `--continue` and
 * `sessions list` find it here, and the original stays as it was. The user is told, with the command that
 * resumes the original where it was recorded (docs/reference/cli.md, "Resuming elsewhere").
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { Session, type SessionStore } from "@arbor/session-store";
import type { ResolvedSession } from "../session-reference.js";
import { arborCommand, shellWord } from "../shell-words.js";

/**
 * Copies a session's current branch into a new session of `target` (header `parentSession`: the source's
 * id), for forks across stores (a file outside the store, or into the in-memory store of `--no-session`) and
 * for a session resumed outside the directory it was recorded in.
 * Returns the new session's id.
 */
export async function copyBranch(
  source: Pick<ResolvedSession, "store" | "sessionId">,
  target: SessionStore,
  cwd: string,
): Promise<string> {
  const session = await Session.open(source.store, source.sessionId);
  const entries = [];
  for (const ref of session.getPath()) {
    const entry = ref.entry();
    if (entry !== undefined) entries.push(structuredClone(entry));
  }
  const copy = await Session.create(target, { cwd, parentSession: session.id });
  if (entries.length > 0) await target.appendEntries(copy.id, entries, { expectedLastEntryId: null });
  return copy.id;
}

/** A session that was resumed in another directory than its own, as a fork. */
export interface MovedSession {
  /** The session the user named. */
  originalId: string;
  /** The directory it was recorded in. */
  recordedCwd: string;
  /** The fork that continues it here. */
  sessionId: string;
  /** True when the fork was made by an earlier resume here (it continues; no new fork is made). */
  earlier?: boolean;
}

/** A directory's real path (symbolic links resolved) when it exists, else its absolute path. */
function realDirectory(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Whether two paths name the same directory. Reads the filesystem (symbolic links). */
export function sameDirectory(first: string, second: string): boolean {
  return first === second || realDirectory(first) === realDirectory(second);
}

/**
 * The session to resume in `cwd`: `sessionId` itself when it was recorded there (or is empty), else its
 * fork recorded in `cwd` — the newest one an earlier resume here made, or a new fork of its current branch
 * (see the module comment) — returned with what moved.
 *
 * Contract: writes only the new session; rejects with the store's error when the fork cannot be written.
 */
export async function resumableHere(
  store: SessionStore,
  sessionId: string,
  cwd: string,
): Promise<{ sessionId: string; moved?: MovedSession }> {
  const session = await Session.open(store, sessionId);
  if (session.leafId === null || sameDirectory(session.cwd, cwd)) return { sessionId };
  const moved = { originalId: sessionId, recordedCwd: session.cwd };
  // Resumed here before: its fork of this directory (the newest) continues, not a second fork.
  const earlier = await forkIn(store, sessionId, cwd);
  if (earlier !== undefined)
    return { sessionId: earlier, moved: { ...moved, sessionId: earlier, earlier: true } };
  const fork = await copyBranch({ store, sessionId }, store, cwd);
  return { sessionId: fork, moved: { ...moved, sessionId: fork } };
}

/** The newest session of `cwd` forked from `sessionId`, if any (reads the listing page by page). */
async function forkIn(store: SessionStore, sessionId: string, cwd: string): Promise<string | undefined> {
  let cursor: string | undefined;
  do {
    const page = await store.listSessions({ cwd, limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    const found = page.sessions.find((summary) => summary.parentSession === sessionId);
    if (found !== undefined) return found.id;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return undefined;
}

/**
 * What to tell the user about a {@link MovedSession}: where it was recorded, that it continues here as a
 * fork, and the command that resumes the original where it was recorded.
 */
export function movedSessionNotice(
  moved: MovedSession,
  cwd: string,
  env: Readonly<Record<string, string | undefined>> = {},
): string {
  return (
    `session ${moved.originalId} was recorded in ${moved.recordedCwd}, not here (${cwd}): it continues here ` +
    `as ${moved.sessionId}, ${moved.earlier === true ? "its fork made here before" : "a fork"} whose tools ` +
    `run here (the original is unchanged). To resume it where it ` +
    `was recorded: cd ${shellWord(moved.recordedCwd)} && ${arborCommand(env)} --resume ${moved.originalId}`
  );
}
