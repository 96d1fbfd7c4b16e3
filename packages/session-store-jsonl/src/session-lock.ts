/**
 * The advisory write lock of a session file: `<file>.lock`, created with O_EXCL and holding the
 * owner's pid, host, process start time and the time the lock was taken.
 *
 * A lock belongs to a process: every store instance in the process shares it (they serialize through
 * the `expectedLastEntryId` check instead), and it is released when the last of them closes or the
 * process exits. A lock whose process is gone (same host, pid not running, or running but started at
 * another time: a reused pid) is stale and taken over; a takeover is itself guarded by an O_EXCL
 * `<file>.lock.takeover` file so two processes never both take one lock.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { hostname } from "node:os";
import { SessionLockedError } from "@arbor/session-store";
import { isGone, isThisProcess, ownIdentity } from "@arbor/session-store/backend";
import { createFilled } from "./create-filled.js";

/** What a lock file holds. */
export interface LockInfo {
  pid: number;
  host: string;
  /** When the lock was taken (ISO 8601). */
  since: string;
  /** The owner's start time in clock ticks after boot (Linux `/proc/<pid>/stat`), to tell a reused pid. */
  processStart?: string;
}

interface HeldLock {
  owners: Set<object>;
  info: LockInfo;
}

/** Locks this process holds, by lock file path. */
const held = new Map<string, HeldLock>();
let exitHookInstalled = false;

/** A takeover guard older than this is left over from a crash and removed. */
const TAKEOVER_GUARD_TIMEOUT_MS = 10_000;
/** A lock file younger than this with no readable content is being written; older, it is stale. */
const EMPTY_LOCK_GRACE_MS = 2_000;

/** `pid 123@host since 2026-…`: who holds a lock, for error messages. */
export function describeHolder(info: LockInfo | undefined, lockPath: string): string {
  if (info === undefined) return `an unknown process (unreadable ${lockPath})`;
  const where = info.host === hostname() ? "" : ` (another host: delete ${lockPath} if that process is gone)`;
  return `pid ${info.pid}@${info.host} since ${info.since}${where}`;
}

/**
 * Takes the lock for `owner` (any object: a store instance), or joins this process's hold of it.
 *
 * Contract: throws `SessionLockedError` naming the holder when another live process holds it;
 * takes over a stale lock. Idempotent per owner.
 */
export function acquireLock(lockPath: string, owner: object, sessionId: string): void {
  const existing = held.get(lockPath);
  if (existing !== undefined) {
    existing.owners.add(owner);
    return;
  }
  const mine = ownInfo();
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(lockPath, mine)) {
      remember(lockPath, owner, mine);
      return;
    }
    const current = readLock(lockPath);
    if (current === "missing") continue;
    if (current !== "unreadable" && isThisProcess(current)) {
      // Ours already (a second copy of this module, or a store that was not closed): adopt it.
      remember(lockPath, owner, current);
      return;
    }
    if (!isStale(current, lockPath)) {
      throw new SessionLockedError(
        sessionId,
        describeHolder(current === "unreadable" ? undefined : current, lockPath),
      );
    }
    if (takeOver(lockPath, current, mine)) {
      remember(lockPath, owner, mine);
      return;
    }
  }
  const holder = readLock(lockPath);
  throw new SessionLockedError(
    sessionId,
    describeHolder(typeof holder === "object" ? holder : undefined, lockPath),
  );
}

/** Drops `owner`'s share of the lock; the file is removed when no owner in this process is left. */
export function releaseLock(lockPath: string, owner: object): void {
  const lock = held.get(lockPath);
  if (lock === undefined || !lock.owners.delete(owner)) return;
  if (lock.owners.size > 0) return;
  held.delete(lockPath);
  removeIfOurs(lockPath, lock.info);
}

/** What this process wrote in a lock it holds; undefined when it holds none at that path. */
export function heldLockInfo(lockPath: string): LockInfo | undefined {
  return held.get(lockPath)?.info;
}

/** The holder of a lock file, for messages; undefined when there is none or it is unreadable. */
export function lockHolder(lockPath: string): LockInfo | undefined {
  const info = readLock(lockPath);
  return typeof info === "object" ? info : undefined;
}

function remember(lockPath: string, owner: object, info: LockInfo): void {
  held.set(lockPath, { owners: new Set([owner]), info });
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", releaseAllOnExit);
  }
}

function releaseAllOnExit(): void {
  for (const [lockPath, lock] of held) removeIfOurs(lockPath, lock.info);
  held.clear();
}

function removeIfOurs(lockPath: string, info: LockInfo): void {
  const current = readLock(lockPath);
  if (typeof current === "object" && current.pid === info.pid && current.since === info.since) {
    try {
      unlinkSync(lockPath);
    } catch {
      // Already gone.
    }
  }
}

function tryCreate(lockPath: string, info: LockInfo): boolean {
  // Never visible empty, so another process never takes a lock being written for an unreadable holder.
  const fd = createFilled(lockPath, Buffer.from(`${JSON.stringify(info)}\n`), false);
  if (fd === undefined) return false;
  closeSync(fd);
  return true;
}

function readLock(lockPath: string): LockInfo | "missing" | "unreadable" {
  let text: string;
  try {
    text = readFileSync(lockPath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    return "unreadable";
  }
  try {
    const value = JSON.parse(text) as LockInfo;
    if (typeof value.pid === "number" && typeof value.host === "string" && typeof value.since === "string")
      return value;
  } catch {
    // Fall through.
  }
  return "unreadable";
}

/** True when the holder is certainly gone: same host and its pid is not running (or was reused). */
function isStale(info: LockInfo | "unreadable", lockPath: string): boolean {
  if (info === "unreadable") {
    try {
      return Date.now() - statSync(lockPath).mtimeMs > EMPTY_LOCK_GRACE_MS;
    } catch {
      return true;
    }
  }
  return isGone(info);
}

/** Replaces a stale lock under the takeover guard; false when another process got there first. */
function takeOver(lockPath: string, stale: LockInfo | "unreadable", mine: LockInfo): boolean {
  const guard = `${lockPath}.takeover`;
  let guardFd: number;
  try {
    guardFd = openSync(guard, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    try {
      if (Date.now() - statSync(guard).mtimeMs > TAKEOVER_GUARD_TIMEOUT_MS) unlinkSync(guard);
    } catch {
      // Removed meanwhile.
    }
    return false;
  }
  closeSync(guardFd);
  try {
    const current = readLock(lockPath);
    const unchanged =
      current === "missing" ||
      (current === "unreadable" && stale === "unreadable") ||
      (typeof current === "object" &&
        typeof stale === "object" &&
        current.pid === stale.pid &&
        current.since === stale.since);
    if (!unchanged) return false;
    try {
      unlinkSync(lockPath);
    } catch {
      // Already gone.
    }
    return tryCreate(lockPath, mine);
  } finally {
    try {
      unlinkSync(guard);
    } catch {
      // Already gone.
    }
  }
}

function ownInfo(): LockInfo {
  return { ...ownIdentity(), since: new Date().toISOString() };
}
