import type { HarnessSession } from "@arbor/harness";

/**
 * The messages of store refusals a watcher took charge of: the front end reports them, the runtime's
 * warnings do not (also not when the same refusal comes again as the session is closed).
 */
const watchedMessages = new Set<string>();

/** The messages {@link harnessErrorReporter} has warned about (in this process). */
const warnedMessages = new Set<string>();

/**
 * True when `text` (e.g. what {@link watchUnsavedWork} returned) carries a message the runtime has
 * already warned about — a front end then says "see above" instead of repeating it.
 */
export function alreadyWarned(text: string): boolean {
  for (const message of warnedMessages) if (text.includes(message)) return true;
  return false;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Watches a run's saves, for any front end that must tell the user when something was not stored (print
 * and json mode exit non-zero, a web server reports it). Returns a function that stops watching and tells
 * why entries were left unsaved — a `save_error` that no later `save_point` made good (another process
 * appended first, the lock is held, the disk is full) — or `undefined` when everything reached the store.
 * While it watches, the runtime does not also warn about the refusals it sees (so the reason is said once).
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
      watchedMessages.add(messageOf(event.error));
    } else if (event.type === "save_point") failed = false;
  });
  return () => {
    unsubscribe();
    if (!failed) return undefined;
    return `the session was not saved: ${messageOf(unsaved)}`;
  };
}

/**
 * Like {@link watchUnsavedWork} over every session a runtime holds in turn (an RPC client switches
 * sessions): the returned function tells why the last unsaved work of any of them was not stored.
 *
 * Contract: `onSessionChange` must call its listener with the new session after each switch and return a
 * function that removes the listener.
 */
export function watchUnsavedWorkAcross(runtime: {
  readonly session: HarnessSession;
  onSessionChange(listener: (session: HarnessSession) => void): () => void;
}): () => string | undefined {
  let reasons: string[] = [];
  let stop = watchUnsavedWork(runtime.session);
  const unlisten = runtime.onSessionChange((session) => {
    const reason = stop();
    if (reason !== undefined) reasons.push(reason);
    stop = watchUnsavedWork(session);
  });
  return () => {
    unlisten();
    const reason = stop();
    if (reason !== undefined) reasons.push(reason);
    const last = reasons.at(-1);
    reasons = [];
    return last;
  };
}

/**
 * Reports the harness's errors as warnings, each message once in a row, and none that a
 * {@link watchUnsavedWork} watcher reports itself as unsaved work. The check waits for the harness's
 * `save_error` event, which follows its `onError` call.
 *
 * Contract: `warn` must not throw.
 */
export function harnessErrorReporter(warn: (message: string) => void): (error: unknown) => void {
  let last: string | undefined;
  return (error) => {
    setImmediate(() => {
      const message = messageOf(error);
      if (message === last || watchedMessages.has(message)) return;
      last = message;
      warnedMessages.add(message);
      warn(message);
    });
  };
}
