import type { HarnessSession } from "@arbor/harness";

/**
 * Watches a run's saves, for any front end that must tell the user when something was not stored (print
 * and json mode exit non-zero, a web server reports it). Returns a function that stops watching and tells
 * why entries were left unsaved — a `save_error` that no later `save_point` made good (another process
 * appended first, the lock is held, the disk is full) — or `undefined` when everything reached the store.
 *
 * Contract: watches only events emitted after the call; the returned function may be called once.
 */
export function watchUnsavedWork(session: HarnessSession): () => string | undefined {
  let unsaved: unknown;
  let failed = false;
  const unsubscribe = session.subscribe((event) => {
    if (event.type === "save_error") {
      failed = true;
      unsaved = event.error;
    } else if (event.type === "save_point") failed = false;
  });
  return () => {
    unsubscribe();
    if (!failed) return undefined;
    const reason = unsaved instanceof Error ? unsaved.message : String(unsaved);
    return `the session was not saved: ${reason}`;
  };
}
