/**
 * How a view model reaches a session: a {@link SessionTransport} hands it the session's protocol event
 * records in order, the state the footer shows, and the history to replay when it attaches. In process,
 * {@link harnessTransport} encodes a harness session's events with the one encoder and answers at once;
 * over HTTP (the demo page), records come from server-sent events and the state from commands, so `state()`
 * and `history()` may answer with a promise.
 */
import type { ContextUsage, HarnessPhase, HarnessSession } from "@arbor/harness";
import { EventEncoder } from "./event-encoder.js";
import { errorText } from "./format.js";
import type { ProtocolEvent } from "./protocol-events.js";
import { sessionContextUsage } from "./session-context.js";
import type { ViewMessage } from "./transcript-items.js";
import { sessionUsageTotals, type UsageTotals, usageOfEntry } from "./usage-totals.js";

/** What the footer and the busy state show of a session, read when the view attaches and after each operation. */
export interface SessionState {
  readonly sessionId: string;
  readonly sessionName: string | undefined;
  /** `provider/id`. */
  readonly model: string;
  /** Whether the model can reason (a thinking level applies). */
  readonly reasoning: boolean;
  readonly thinkingLevel: string;
  /** Undefined when it cannot be computed. */
  readonly context: ContextUsage | undefined;
  readonly busy: boolean;
  readonly phase: HarnessPhase;
}

/** What a view shows of a session when it attaches. */
export interface SessionHistory {
  /** The messages of the session's context (the view replays the last of them). */
  readonly messages: readonly ViewMessage[];
  /** Problems found while opening or reading the session, shown as warnings. */
  readonly warnings: readonly string[];
  /** Usage and cost of every entry of the session (all branches); undefined when not known. */
  readonly totals: UsageTotals | undefined;
}

/** Receives the records of a session, in order. */
export type ProtocolEventListener = (event: ProtocolEvent) => void;

/** A session as a view model reads it (see the module comment). */
export interface SessionTransport {
  /**
   * Adds a listener of the session's event records; returns the function that removes it.
   *
   * Contract: the listener receives every record from now on, in the order they were written, each once;
   * it must not throw. Removing a listener twice is harmless.
   */
  subscribe(listener: ProtocolEventListener): () => void;
  /**
   * The session's state now.
   *
   * Contract: synchronous in process; a remote transport may answer with a promise (which may reject: the
   * view then keeps what it showed).
   */
  state(): SessionState | Promise<SessionState>;
  /**
   * The session's context messages, warnings and usage totals, for the view to replay when it attaches.
   *
   * Contract: as {@link state}; never called more than once per attach.
   */
  history(): SessionHistory | Promise<SessionHistory>;
  /**
   * The session's phase now, when the transport can tell it at once (in process).
   *
   * Contract: synchronous and cheap (called for many records); a transport that cannot answer at once
   * leaves it out, and the view follows the phase from the records.
   */
  phase?(): HarnessPhase;
}

/** The in-process transport of a harness session. */
export interface HarnessTransport extends SessionTransport {
  /** The session it reads. */
  readonly session: HarnessSession;
}

/** The session's context usage, or undefined when it cannot be computed. */
export function contextOf(session: HarnessSession): ContextUsage | undefined {
  try {
    return sessionContextUsage(session);
  } catch {
    return undefined;
  }
}

/** A harness session's {@link SessionState}. */
export function harnessSessionState(session: HarnessSession): SessionState {
  const state = session.state;
  return {
    sessionId: session.id,
    sessionName: state.name,
    model: `${state.model.provider}/${state.model.id}`,
    reasoning: state.model.reasoning,
    thinkingLevel: state.thinkingLevel,
    context: contextOf(session),
    busy: session.isBusy,
    phase: session.phase,
  };
}

/**
 * The in-process transport of a harness session: its events encoded as records by an {@link EventEncoder}
 * (one per listener, with the usage of summary entries read from the session), its state and history read
 * at once.
 *
 * Contract: never throws; a session whose entries cannot be counted reports it as a warning of its history.
 */
export function harnessTransport(session: HarnessSession): HarnessTransport {
  return {
    session,
    subscribe(listener) {
      const encoder = new EventEncoder({ entryUsage: (id) => usageOfEntry(session.session.getEntry(id)) });
      return session.subscribe((event) => {
        for (const record of encoder.encode(event)) listener(record);
      });
    },
    state: () => harnessSessionState(session),
    phase: () => session.phase,
    history() {
      const warnings = [...session.warnings];
      let totals: UsageTotals | undefined;
      try {
        totals = sessionUsageTotals(session.session);
      } catch (error) {
        warnings.push(`cannot count the session's tokens: ${errorText(error)}`);
      }
      return { messages: session.state.messages, warnings, totals };
    },
  };
}

/** Whether `source` is a transport (rather than a harness session). */
export function isSessionTransport(source: unknown): source is SessionTransport {
  return (
    typeof source === "object" &&
    source !== null &&
    typeof (source as SessionTransport).history === "function" &&
    typeof (source as SessionTransport).subscribe === "function"
  );
}

/**
 * Calls `then` with a value that may be a promise: at once when it is not (so an in-process transport keeps
 * the view synchronous), when it resolves otherwise; `onError` receives a rejection. Returns whether `then`
 * ran at once.
 */
export function whenReady<T>(
  value: T | Promise<T>,
  then: (value: T, late: boolean) => void,
  onError: (error: unknown) => void = () => undefined,
): boolean {
  if (typeof (value as { then?: unknown } | null)?.then === "function") {
    (value as PromiseLike<T>).then((resolved) => then(resolved, true), onError);
    return false;
  }
  then(value as T, false);
  return true;
}
