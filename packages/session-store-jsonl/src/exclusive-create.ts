/**
 * Creating a session id is exclusive across processes: a session file's name holds its creation time
 * (`<timestamp>_<id>.jsonl`), so two processes creating one id at once would make two files with
 * different names. Creation therefore holds a per-id lock, `<sessions>/.locks/<id>.create.lock` (the
 * session lock's format and stale-lock rules), and under it looks for a file of that id in every working
 * directory's folder before creating one.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { findSessionFile } from "./layout.js";
import { acquireLock, releaseLock } from "./session-lock.js";

/** The folder of the creation locks, inside the sessions directory. */
export const CREATION_LOCK_DIRECTORY = ".locks";

/** The creation lock of one id. */
export function creationLockPath(sessionsDirectory: string, sessionId: string): string {
  return join(sessionsDirectory, CREATION_LOCK_DIRECTORY, `${sessionId}.create.lock`);
}

/**
 * Runs `create` holding the creation lock of `sessionId`, unless a file of that id exists already
 * (another process may have created it since this store last looked): then returns its path and does
 * not run `create`.
 *
 * Contract: throws `SessionLockedError` naming the holder while another live process is creating the
 * same id; the lock is released when `create` returns or throws.
 */
export function createExclusively(
  sessionsDirectory: string,
  sessionId: string,
  owner: object,
  create: () => void,
): string | undefined {
  mkdirSync(join(sessionsDirectory, CREATION_LOCK_DIRECTORY), { recursive: true, mode: 0o700 });
  const lockPath = creationLockPath(sessionsDirectory, sessionId);
  acquireLock(lockPath, owner, sessionId);
  try {
    const existing = findSessionFile(sessionsDirectory, sessionId);
    if (existing !== undefined) return existing;
    create();
    return undefined;
  } finally {
    releaseLock(lockPath, owner);
  }
}
