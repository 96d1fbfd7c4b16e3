import { readdirSync, readFileSync } from "node:fs";

/** A live (non-zombie) process: its pid, process group and command name. Linux only (/proc). */
export interface ProcessInfo {
  pid: number;
  processGroup: number;
  command: string;
}

/** The live processes of a process group (zombies count as gone). */
export function processesInGroup(processGroup: number): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry));
    if (info !== undefined && info.processGroup === processGroup) found.push(info);
  }
  return found;
}

/** Whether a process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  return readProcess(pid) !== undefined;
}

function readProcess(pid: number): ProcessInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const open = stat.indexOf("(");
  const close = stat.lastIndexOf(")");
  const fields = stat.slice(close + 2).split(" ");
  const state = fields[0];
  if (state === "Z" || state === "X") return undefined;
  return { pid, processGroup: Number(fields[2]), command: stat.slice(open + 1, close) };
}

/** Polls `condition` every 20 ms until it holds; fails after `timeoutMs` (a guard, not a measurement). */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
