/**
 * The writer lease of a JSONL session: the session's `<file>.lock` (see `session-lock.ts`), held for the
 * lease as one more owner in this process, so that another process is refused when it asks — at open,
 * not only at its first append. The lock belongs to the process, but a lease does not: a second lease on
 * one session in this process is refused too, naming this process.
 */
import { SessionLockedError, type SessionWriterLease } from "@arbor/session-store";
import { acquireLock, describeHolder, heldLockInfo, releaseLock } from "./session-lock.js";

/** The lock files this process holds a lease on. */
const leased = new Set<string>();

/**
 * Takes the lease of the session whose lock file is `lockPath`; `onRelease` runs once, when it is given up.
 *
 * Contract: throws `SessionLockedError` naming the holder when another process holds the lock (a stale
 * one, whose process is gone, is taken over) or this process holds a lease on it already.
 */
export function acquireJsonlLease(
  lockPath: string,
  sessionId: string,
  onRelease: (lease: SessionWriterLease) => void,
): SessionWriterLease {
  if (leased.has(lockPath)) {
    throw new SessionLockedError(sessionId, describeHolder(heldLockInfo(lockPath), lockPath));
  }
  const owner = {};
  acquireLock(lockPath, owner, sessionId);
  leased.add(lockPath);
  let released = false;
  const lease: SessionWriterLease = {
    sessionId,
    holder: describeHolder(heldLockInfo(lockPath), lockPath),
    release: async () => {
      if (released) return;
      released = true;
      leased.delete(lockPath);
      releaseLock(lockPath, owner);
      onRelease(lease);
    },
  };
  return lease;
}
