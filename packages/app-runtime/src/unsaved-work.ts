/**
 * Telling the user, once, when work was not stored: a front end watches a run's saves
 * ({@link UnsavedWork.watch}) and says why entries were left unsaved and where they are kept; the runtime's
 * warnings ({@link UnsavedWork.reportError}, the harness's `onError`) leave out the refusals a watcher
 * reports. The state is one runtime's ({@link UnsavedWork}, created by `createAppRuntime`): two runtimes
 * in one process never silence each other.
 */
import type { HarnessEvent, HarnessSession, KeptEntries } from "@arbor/harness";

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

/** Options of {@link UnsavedWork.watch} (and `AppRuntime.watchUnsavedWork`). */
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
 * What {@link UnsavedWork.watchAcross} (and `AppRuntime.watchUnsavedWork`) returns: call it to stop watching
 * and learn why entries were left unsaved — a `save_error` that no later `save_point` made good (another
 * process appended first, the lock is held, the disk is full) — and where they are kept (the recovery file
 * and the command that applies it), or `undefined` when everything reached the store.
 *
 * Contract: may be called once.
 */
export interface UnsavedWorkWatch {
  (): string | undefined;
  /**
   * True when `text` (e.g. what this watch returned) carries a message the runtime has already warned
   * about — a front end then says "see above" instead of repeating it.
   *
   * Contract: reads the runtime's warnings so far; may be called before or after the watch stops.
   */
  alreadyWarned(text: string): boolean;
}

/** The part of a runtime {@link UnsavedWork.watchAcross} follows: its current session and its switches. */
export interface SessionHolder {
  readonly session: HarnessSession;
  /**
   * Contract: calls its listener with the new session after each switch and returns a function that removes
   * the listener.
   */
  onSessionChange(listener: (session: HarnessSession) => void): () => void;
}

/**
 * One runtime's record of store refusals: which ones a watcher took charge of (the front end reports
 * them, so the runtime's warnings do not — also not when the same refusal comes again as the session is
 * closed), and which ones the runtime warned about. `createAppRuntime` makes one per runtime and passes
 * {@link reportError} to the harness as its `onError`.
 */
export class UnsavedWork {
  /** The errors of the `save_error` events a watcher saw. */
  private readonly claimedErrors = new WeakSet<object>();
  /** Their messages: the same refusal again (a new error object, e.g. at close) is not warned either. */
  private readonly claimedMessages = new Set<string>();
  /** The messages {@link reportError} warned about. */
  private readonly warnedMessages = new Set<string>();
  private lastWarned: string | undefined;

  /** @param warn receives each warning. Contract: must not throw. */
  constructor(private readonly warn: (message: string) => void) {}

  /**
   * The harness's `onError`: warns each message once in a row, and none that a watcher of this runtime
   * reports itself as unsaved work. The harness hands a refused save to `onError` after its `save_error`
   * event has reached every listener, so a watcher has claimed it by then.
   *
   * Contract: never throws (unless `warn` does).
   */
  readonly reportError = (error: unknown): void => {
    const message = messageOf(error);
    if (typeof error === "object" && error !== null && this.claimedErrors.has(error)) return;
    if (message === this.lastWarned || this.claimedMessages.has(message)) return;
    this.lastWarned = message;
    this.warnedMessages.add(message);
    this.warn(message);
  };

  /** True when `text` carries a message {@link reportError} has warned about. */
  alreadyWarned(text: string): boolean {
    for (const message of this.warnedMessages) if (text.includes(message)) return true;
    return false;
  }

  /**
   * Watches one session's saves, for any front end that must tell the user when something was not stored
   * (print and json mode exit non-zero, a web server reports it). Returns a function that stops watching and
   * tells why entries were left unsaved and where they are kept (see {@link UnsavedWorkWatch}), or
   * `undefined` when everything reached the store. While it watches, {@link reportError} does not also warn
   * about the refusals it sees (so the reason is said once).
   *
   * Contract: watches only events emitted after the call; the returned function may be called once.
   */
  watch(session: HarnessSession, options: WatchUnsavedWorkOptions = {}): () => string | undefined {
    return watchSaves(session, options, (error) => {
      if (typeof error === "object" && error !== null) this.claimedErrors.add(error);
      this.claimedMessages.add(messageOf(error));
    });
  }

  /**
   * Like {@link watch} over every session a runtime holds in turn (an RPC client switches sessions): the
   * returned function tells why the last unsaved work of any of them was not stored.
   */
  watchAcross(runtime: SessionHolder, options: WatchUnsavedWorkOptions = {}): UnsavedWorkWatch {
    let reasons: string[] = [];
    let stop = this.watch(runtime.session, options);
    const unlisten = runtime.onSessionChange((session) => {
      const reason = stop();
      if (reason !== undefined) reasons.push(reason);
      stop = this.watch(session, options);
    });
    const stopAll = () => {
      unlisten();
      const reason = stop();
      if (reason !== undefined) reasons.push(reason);
      const last = reasons.at(-1);
      reasons = [];
      return last;
    };
    return Object.assign(stopAll, { alreadyWarned: (text: string) => this.alreadyWarned(text) });
  }
}

/**
 * A watcher of a session's saves (see {@link UnsavedWork.watch}); `claim` receives the error of each
 * `save_error` it sees.
 */
function watchSaves(
  session: HarnessSession,
  options: WatchUnsavedWorkOptions,
  claim: (error: unknown) => void,
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
      claim(event.error);
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
