/**
 * What a run has kept so far, for the one line a front end prints when the process must end before the run
 * does (a second Ctrl-C, a run that can go no further): the entries the `save_point`s of the watched
 * sessions reported, and where they are.
 */
import type { HarnessSession } from "@arbor/harness";
import type { AppRuntime } from "../app-runtime.js";

/** A watch over what a runtime's sessions saved (see {@link watchKeptWork}). */
export interface KeptWork {
  /**
   * One sentence: what was kept and where, e.g. `Kept: 3 entries of this run, in /…/x.jsonl (the last:
   * ab12cd34); what came after is lost.`
   */
  describe(): string;
  /** Stops watching. */
  stop(): void;
}

/** Where a session lives, for humans: its file, else its id and store. */
function locationOf(
  runtime: Pick<AppRuntime, "sessionFile" | "storeDescription">,
  sessionId: string,
): string {
  return runtime.sessionFile ?? `session ${sessionId}, ${runtime.storeDescription ?? "in memory"}`;
}

/**
 * Follows the `save_point`s of the runtime's current session (and of the next ones, after a switch) from
 * now on.
 *
 * Contract: `describe()` never throws; `stop()` may be called more than once.
 */
export function watchKeptWork(
  runtime: Pick<
    AppRuntime,
    "session" | "onSessionChange" | "persistent" | "sessionFile" | "storeDescription"
  >,
): KeptWork {
  let saved = 0;
  let last: string | undefined;
  let unsubscribe: () => void = () => undefined;
  const follow = (session: HarnessSession) => {
    unsubscribe();
    unsubscribe = session.subscribe((event) => {
      if (event.type !== "save_point" || event.entryIds.length === 0) return;
      saved += event.entryIds.length;
      last = event.entryIds.at(-1);
    });
  };
  follow(runtime.session);
  const unlisten = runtime.onSessionChange(follow);
  return {
    describe() {
      try {
        if (!runtime.persistent) return "Nothing is kept: the session was in memory only (--no-session).";
        const where = locationOf(runtime, runtime.session.id);
        if (saved === 0) return `Nothing of this run was saved (${where}).`;
        const entries = saved === 1 ? "1 entry" : `${saved} entries`;
        return `Kept: ${entries} of this run, in ${where} (the last: ${last}); what came after is lost.`;
      } catch {
        return "What was kept could not be determined.";
      }
    },
    stop() {
      unsubscribe();
      unlisten();
    },
  };
}
