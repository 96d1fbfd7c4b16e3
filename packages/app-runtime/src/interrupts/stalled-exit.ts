/**
 * The last guard of a one-shot process: when the event loop has nothing left to do but the run has not
 * finished — it waits on a promise nothing can settle (an extension's command with no time limit, a limit
 * set to 0) — Node would end the process with exit code 13 ("unsettled top-level await") and no word.
 * Instead it says so, names what was pending and what was kept, and exits 1.
 */
import type { AppRuntime } from "../app-runtime.js";
import { pendingGuardedCalls } from "../extensions/guarded-call.js";
import { watchKeptWork } from "./kept-work.js";

/**
 * Installs the guard until the returned function is called (call it once the run has finished).
 *
 * Contract: writes one line (`arbor: error: …`) and calls `exit(1)` (default `process.exit`) when the
 * process would otherwise end with nothing left to do; does nothing when the run finishes first.
 */
export function exitWhenStalled(
  runtime: AppRuntime,
  write: (text: string) => void,
  exit: (code: number) => void = process.exit,
): () => void {
  const kept = watchKeptWork(runtime);
  const stalled = () => {
    const pending = pendingGuardedCalls();
    const what = pending.length === 0 ? "" : ` (still waiting for: ${pending.join("; ")})`;
    try {
      write(
        `arbor: error: the run can go no further: it waits for something that can never happen${what}. ${kept.describe()}\n`,
      );
    } finally {
      exit(1);
    }
  };
  process.on("beforeExit", stalled);
  return () => {
    process.off("beforeExit", stalled);
    kept.stop();
  };
}
