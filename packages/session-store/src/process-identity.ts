import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Who holds a lock or a lease — pid, host and start time — and whether that process is certainly gone: the
 * one rule the stores' writer locks (JSONL lock files, SQLite lease rows) judge a holder by.
 */

/** A process as a lock or a lease records it. */
export interface ProcessIdentity {
  pid: number;
  host: string;
  /**
   * Start time in clock ticks after boot (Linux `/proc/<pid>/stat`), to tell a reused pid; absent (or null,
   * as a database row holds it) where it is not known.
   */
  processStart?: string | null;
}

/** Field 22 of `/proc/<pid>/stat` (start time in clock ticks), where /proc exists. */
export function processStartOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

let own: { pid: number; host: string; processStart?: string } | undefined;

/** This process (computed once per pid). */
export function ownIdentity(): { pid: number; host: string; processStart?: string } {
  if (own === undefined || own.pid !== process.pid) {
    const start = processStartOf(process.pid);
    own = { pid: process.pid, host: hostname(), ...(start === undefined ? {} : { processStart: start }) };
  }
  return own;
}

/** True for this very process: same host and pid and, where both are known, start time. */
export function isThisProcess(identity: ProcessIdentity): boolean {
  const me = ownIdentity();
  return (
    identity.host === me.host &&
    identity.pid === me.pid &&
    (identity.processStart == null ||
      me.processStart === undefined ||
      identity.processStart === me.processStart)
  );
}

/**
 * True when the process is certainly gone: it ran on this host and its pid is not running, or is running
 * but started at another time (a reused pid). A process on another host is never judged gone.
 *
 * Contract: never throws; a signal-0 probe and a read of `/proc` at most.
 */
export function isGone(identity: ProcessIdentity): boolean {
  if (identity.host !== hostname()) return false;
  if (identity.pid === process.pid) return !isThisProcess(identity);
  try {
    process.kill(identity.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return true;
  }
  const start = processStartOf(identity.pid);
  return identity.processStart != null && start !== undefined && start !== identity.processStart;
}
