/**
 * The page's {@link SessionTransport}: `@arbor/session-view`'s view model reads the demo server's session
 * through it. Records come from the server-sent event stream (the page's one `EventSource`, which hands each
 * record of the current session to {@link PageTransport.push}); the state and the history come from the
 * `get_state` and `get_messages` commands.
 */
import type { CommandResult } from "@arbor/app-runtime/client";
import type {
  ProtocolEvent,
  ProtocolEventListener,
  SessionHistory,
  SessionState,
  SessionTransport,
  ViewMessage,
} from "@arbor/session-view";
import { command } from "./api.js";

/** `get_state`'s answer. */
type StateAnswer = CommandResult<"get_state">;

/** The page's transport: records pushed by the page's event stream, state and history read by commands. */
export interface PageTransport extends SessionTransport {
  /**
   * Hands one record of the current session to the listeners.
   *
   * Contract: call in the stream's order, once per record; never throws (a listener must not throw).
   */
  push(event: ProtocolEvent): void;
}

function stateOf(answer: StateAnswer): SessionState {
  const usage = answer.contextUsage;
  return {
    sessionId: answer.sessionId,
    sessionName: answer.name,
    model: answer.model,
    reasoning: false,
    thinkingLevel: answer.thinkingLevel,
    context:
      usage === undefined
        ? undefined
        : { ...usage, reserveTokens: usage.contextWindow - usage.compactionThreshold, anchored: false },
    busy: answer.isBusy,
    phase: answer.phase,
  };
}

/** Options of {@link createPageTransport}. */
export interface PageTransportOptions {
  /**
   * Whether `history()` reads the context's messages (`get_messages`) for the view to replay; default true.
   * A page that shows the history otherwise (`get_transcript`) sets false and attaches with `replay: false`.
   */
  messages?: boolean;
}

/** Creates the page's transport (see the module comment). */
export function createPageTransport(options: PageTransportOptions = {}): PageTransport {
  const readMessages = options.messages ?? true;
  const listeners = new Set<ProtocolEventListener>();
  return {
    push(event) {
      for (const listener of listeners) listener(event);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async state(): Promise<SessionState> {
      return stateOf(await command({ type: "get_state" }));
    },
    async history(): Promise<SessionHistory> {
      if (!readMessages) return { messages: [], warnings: [], totals: undefined };
      const answer = await command({ type: "get_messages" });
      return { messages: answer.messages as readonly ViewMessage[], warnings: [], totals: undefined };
    },
  };
}
