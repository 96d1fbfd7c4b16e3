/**
 * Ctrl-C in a front end that runs one thing at a time (print and json mode, the demo server): the first
 * SIGINT asks it to stop; a second one, while that stop is pending, ends the process at once (exit code
 * 130) after one line that says what was kept and where. A hook that hangs cannot make the first one wait
 * for good (it is not waited for once the run is aborted), and a loop of an extension that never yields is
 * stopped at the first Ctrl-C by the watchdog of `guarded-call.ts`.
 */
import type { AppRuntime } from "../app-runtime.js";
import { watchKeptWork } from "./kept-work.js";

/** What a run that Ctrl-C stopped ends with (its message; print and json mode exit 1). */
export const INTERRUPTED = "interrupted (Ctrl-C)";

/** A Ctrl-C handler installed for one run. */
export interface InterruptWatch {
  /** Whether Ctrl-C was pressed since it was installed. */
  readonly interrupted: boolean;
  /** Removes the handler. */
  restore(): void;
}

/** Options of {@link interruptTwice}. */
export interface InterruptTwiceOptions {
  /**
   * The first Ctrl-C: ask what runs to stop.
   *
   * Contract: must not throw, and must return at once.
   */
  onFirst(): void;
  /** What was kept and where: one sentence (see `watchKeptWork`). */
  kept(): string;
  /** Where the line goes (stderr). */
  write(text: string): void;
  /** The line's prefix (default `arbor`). */
  name?: string;
  /** Ends the process (default `process.exit`); for tests. */
  exit?: (code: number) => void;
  /**
   * A SIGINT within this many ms of the first one counts as the same Ctrl-C (default 0: none does). A
   * package manager's script (`pnpm demo`) gets one Ctrl-C twice: from the terminal and forwarded by pnpm.
   */
  repeatWindowMs?: number;
  /** The clock, in ms (default `Date.now`); for tests. */
  now?: () => number;
}

/**
 * Installs the two-step Ctrl-C (see the module comment).
 *
 * Contract: the second SIGINT (after `repeatWindowMs`) writes one line (`<name>: interrupted again: …`)
 * and calls `exit(130)` without waiting for anything; `restore()` removes the handler.
 */
export function interruptTwice(options: InterruptTwiceOptions): InterruptWatch {
  let interrupted = false;
  let firstAt = 0;
  const now = options.now ?? Date.now;
  const handler = () => {
    if (interrupted && now() - firstAt < (options.repeatWindowMs ?? 0)) return;
    if (interrupted) {
      let kept: string;
      try {
        kept = options.kept();
      } catch {
        kept = "What was kept could not be determined.";
      }
      try {
        options.write(
          `${options.name ?? "arbor"}: interrupted again: exiting at once, without waiting for the run to stop. ${kept}\n`,
        );
      } finally {
        (options.exit ?? process.exit)(130);
      }
      return;
    }
    interrupted = true;
    firstAt = now();
    options.onFirst();
  };
  process.on("SIGINT", handler);
  return {
    get interrupted() {
      return interrupted;
    },
    restore: () => {
      process.off("SIGINT", handler);
    },
  };
}

/**
 * Print and json mode: the first Ctrl-C aborts the whole run — the model call or the tool in flight, a
 * hook that hangs, and every turn after it — and is remembered (the run exits 1 whatever its last message
 * was); a second one exits at once, saying what was kept.
 *
 * Contract: as {@link interruptTwice}; `restore()` also stops following the runtime's saves — except after
 * a Ctrl-C, when the process is on its way out: then the handler stays, so that a second Ctrl-C while the
 * session is closed still ends it with its line (not silently, by the signal).
 */
export function abortOnInterrupt(runtime: AppRuntime, write: (text: string) => void): InterruptWatch {
  const kept = watchKeptWork(runtime);
  const watch = interruptTwice({
    onFirst: () => runtime.session.abort(INTERRUPTED),
    kept: () => kept.describe(),
    write,
  });
  return {
    get interrupted() {
      return watch.interrupted;
    },
    restore: () => {
      if (watch.interrupted) return;
      watch.restore();
      kept.stop();
    },
  };
}
