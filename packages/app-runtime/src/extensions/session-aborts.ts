/**
 * Telling the extension host that a session was aborted. Hooks receive the operation's signal, but event
 * listeners do not, and the harness emits no event for `abort()` (the next event comes only once the run has
 * moved on — which a listener that never settles prevents). So the host wraps the `abort` method of each
 * session it follows: every front end (Ctrl-C in print and json mode, rpc's and the demo's `abort`, the
 * terminal's Esc) calls it, and none has to remember the host.
 */
import type { HarnessSession } from "@arbor/harness";

const listenersOf = new WeakMap<HarnessSession, Set<() => void>>();

/**
 * Calls `listener` each time `session.abort()` is called while the session is busy (after the session has
 * aborted its operation).
 *
 * Contract: returns a function that removes the listener; `abort()` keeps its own contract (never throws:
 * a throwing listener is ignored).
 */
export function onSessionAbort(session: HarnessSession, listener: () => void): () => void {
  let listeners = listenersOf.get(session);
  if (listeners === undefined) {
    const own = new Set<() => void>();
    listeners = own;
    listenersOf.set(session, own);
    const abort = session.abort.bind(session);
    session.abort = (reason?: unknown) => {
      const busy = session.isBusy;
      abort(reason);
      if (!busy) return;
      for (const each of [...own]) {
        try {
          each();
        } catch {
          // abort() never throws.
        }
      }
    };
  }
  const set = listeners;
  set.add(listener);
  return () => {
    set.delete(listener);
  };
}
