/**
 * Who this process is, for a lease row (pid, host, start time), and whether the process a row names is
 * certainly gone.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/** A process as a lease row records it. */
export interface ProcessIdentity {
  pid: number;
  host: string;
  /** Start time in clock ticks after boot (Linux `/proc/<pid>/stat`), to tell a reused pid; absent elsewhere. */
  processStart: string | null;
}

/** Field 22 of `/proc/<pid>/stat` (start time in clock ticks), where /proc exists. */
export function processStartOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

let own: ProcessIdentity | undefined;

/** This process (computed once per pid). */
export function ownIdentity(): ProcessIdentity {
  if (own === undefined || own.pid !== process.pid) {
    own = { pid: process.pid, host: hostname(), processStart: processStartOf(process.pid) };
  }
  return own;
}

/** True for this very process (same host, pid and, where known, start time). */
export function isThisProcess(identity: ProcessIdentity): boolean {
  const me = ownIdentity();
  return (
    identity.host === me.host &&
    identity.pid === me.pid &&
    (identity.processStart === null || me.processStart === null || identity.processStart === me.processStart)
  );
}

/**
 * True when the process is certainly gone: it ran on this host and its pid is not running, or is running
 * but started at another time (a reused pid). A process on another host is never judged here.
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
  return identity.processStart !== null && start !== null && start !== identity.processStart;
}
