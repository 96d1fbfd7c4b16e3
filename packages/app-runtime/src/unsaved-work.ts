import type { HarnessEvent, HarnessSession, KeptEntries } from "@arbor/harness";

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

/** A delay in words: `30 s`, `0.5 s`. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * The line a front end prints once when a save point is retried (the first `save_retry` of a series):
 * `the store refused the save (<cause>); retrying for up to 30 s`.
 */
export function saveRetryNotice(event: Extract<HarnessEvent, { type: "save_retry" }>): string {
  return `the store refused the save (${messageOf(event.error).replace(/[.\s]+$/, "")}); retrying for up to ${seconds(event.timeoutMs)}`;
}

/** Options of {@link watchUnsavedWork}. */
export interface WatchUnsavedWorkOptions {
  /**
   * Receives one line when a save point is first retried ({@link saveRetryNotice}); print and json mode
   * write it to stderr.
   *
   * Contract: must not throw.
   */
  onRetry?: (line: string) => void;
}

/**
 * Watches a run's saves, for any front end that must tell the user when something was not stored (print
 * and json mode exit non-zero, a web server reports it). Returns a function that stops watching and tells
 * why entries were left unsaved — a `save_error` that no later `save_point` made good (another process
 * appended first, the lock is held, the disk is full) — and where they are kept (the recovery file and the
 * command that applies it), or `undefined` when everything reached the store. While it watches, the
 * runtime does not also warn about the refusals it sees (so the reason is said once).
 *
 * Contract: watches only events emitted after the call; the returned function may be called once.
 */
export function watchUnsavedWork(
  session: HarnessSession,
  options: WatchUnsavedWorkOptions = {},
): () => string | undefined {
  let unsaved: Extract<HarnessEvent, { type: "save_error" }> | undefined;
  let kept: KeptEntries | undefined;
  let failed = false;
  let stopped = false;
  let retrying = false;
  const unsubscribe = session.subscribe((event) => {
    if (event.type === "save_retry") {
      if (!retrying) options.onRetry?.(saveRetryNotice(event));
      retrying = true;
    } else if (event.type === "save_error") {
      failed = true;
      retrying = false;
      unsaved = event;
      kept = event.kept ?? kept;
      watchedMessages.add(messageOf(event.error));
    } else if (event.type === "run_stopped") {
      stopped = true;
      kept = event.kept ?? kept;
    } else if (event.type === "save_point") {
      failed = false;
      retrying = false;
    }
  });
  return () => {
    unsubscribe();
    if (!failed || unsaved === undefined) return undefined;
    const cause = messageOf(unsaved.error).replace(/[.\s]+$/, "");
    const stop = stopped ? " The run stopped before running anything more." : "";
    const where =
      kept !== undefined
        ? ` What was not stored is kept in ${kept.location}${kept.howToApply === undefined ? "" : `; ${kept.howToApply}`}.`
        : stopped
          ? " What was not stored is kept nowhere else: it is lost when this process ends."
          : "";
    return `the session was not saved: ${cause}.${stop}${where}`;
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
