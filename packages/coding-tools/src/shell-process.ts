import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";

/** How a command run by {@link runShellCommand} ended. */
export interface ShellExit {
  /** The shell's exit code; `null` when a signal ended it. */
  exitCode: number | null;
  /** The signal that ended the shell, if one did. */
  signal: NodeJS.Signals | null;
  /** The timeout fired and the process tree was killed. */
  timedOut: boolean;
  /** The abort signal fired and the process tree was killed. */
  aborted: boolean;
}

/** What {@link runShellCommand} runs and how. */
export interface ShellCommand {
  command: string;
  /** The shell program; it is run as `shell -c command`. */
  shell: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Kills the process tree after this many milliseconds (none when undefined). */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL when the tree is killed. */
  killGraceMs: number;
  signal: AbortSignal;
  /** Receives stdout and stderr chunks in arrival order. */
  onData: (chunk: Buffer) => void;
}

/** After the shell exits, output still in the pipes is read until they stay quiet this long… */
const DRAIN_IDLE_MS = 50;
/** …or at most this long, so a background process holding the pipes open cannot keep the call waiting. */
const DRAIN_MAX_MS = 1000;

/** Process groups started here that may still be running; killed when this process exits. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Runs `shell -c command` in its own process group (`detached`), so that the whole tree it starts —
 * pipelines, `&` jobs, subshells — can be killed at once: on abort or timeout the group gets SIGTERM,
 * then SIGKILL after `killGraceMs`. The call resolves when the shell has exited and its output is read;
 * it does not wait for background processes that keep stdout open. stdin is closed (`/dev/null`).
 *
 * Rejects only when the shell cannot be started (e.g. the program or `cwd` does not exist).
 */
export function runShellCommand(command: ShellCommand): Promise<ShellExit> {
  return new Promise<ShellExit>((resolvePromise, rejectPromise) => {
    let child: ChildProcess;
    try {
      child = spawn(command.shell, ["-c", command.command], {
        cwd: command.cwd,
        env: command.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      rejectPromise(error);
      return;
    }
    const pid = child.pid;
    let timedOut = false;
    let aborted = false;
    let killing = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let openStreams = 2;
    let settled = false;
    let idleTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let timeoutTimer: NodeJS.Timeout | undefined;

    if (pid !== undefined) trackGroup(pid);

    const killTree = () => {
      if (killing || pid === undefined) return;
      killing = true;
      signalGroup(pid, "SIGTERM");
      const escalation = setTimeout(() => {
        signalGroup(pid, "SIGKILL");
        liveGroups.delete(pid);
      }, command.killGraceMs);
      escalation.unref();
    };
    const onAbort = () => {
      aborted = true;
      killTree();
    };

    const finish = () => {
      if (settled || exit === undefined) return;
      settled = true;
      clearTimeout(idleTimer);
      clearTimeout(drainTimer);
      clearTimeout(timeoutTimer);
      command.signal.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      if (pid !== undefined && !killing) liveGroups.delete(pid);
      resolvePromise({ exitCode: exit.code, signal: exit.signal, timedOut, aborted });
    };
    const restartIdle = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(finish, DRAIN_IDLE_MS);
    };
    const onData = (chunk: Buffer) => {
      if (settled) return;
      command.onData(chunk);
      if (exit !== undefined) restartIdle();
    };
    const onStreamClosed = () => {
      openStreams--;
      if (openStreams === 0) finish();
    };
    for (const stream of [child.stdout, child.stderr]) {
      if (stream === null) {
        openStreams--;
        continue;
      }
      stream.on("data", onData);
      stream.once("close", onStreamClosed);
      stream.on("error", () => {});
    }

    child.once("error", (error) => {
      if (exit !== undefined || settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      command.signal.removeEventListener("abort", onAbort);
      if (pid !== undefined) liveGroups.delete(pid);
      rejectPromise(error);
    });
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      if (openStreams === 0) {
        finish();
        return;
      }
      restartIdle();
      drainTimer = setTimeout(finish, DRAIN_MAX_MS);
    });

    if (command.timeoutMs !== undefined) {
      timeoutTimer = setTimeout(() => {
        timedOut = true;
        killTree();
      }, command.timeoutMs);
    }
    if (command.signal.aborted) onAbort();
    else command.signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Sends a signal to a process group; a group that is already gone is fine. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: every process of the group has exited.
  }
}

function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const group of liveGroups) signalGroup(group, "SIGKILL");
  });
}

let defaultShell: string | undefined;

/**
 * The shell commands run in: bash when installed (`/bin/bash`, `/usr/bin/bash`, `/usr/local/bin/bash`),
 * else `$SHELL`, else `/bin/sh`.
 */
export function findDefaultShell(): string {
  if (defaultShell !== undefined) return defaultShell;
  const candidates = ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"];
  defaultShell = candidates.find((candidate) => existsSync(candidate)) ?? process.env.SHELL ?? "/bin/sh";
  return defaultShell;
}
