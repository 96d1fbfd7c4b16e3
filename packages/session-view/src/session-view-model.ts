/**
 * The state of a session's view, outside any UI framework: it follows one harness session at a time and
 * keeps three slices — the transcript (append-only), the live part (the reply being streamed, running
 * tools, the activity label, queued messages) and the footer (model, thinking level, tokens, cost, context
 * usage, session, last compaction). A slice is replaced only when it changes, so a component that reads one
 * slice re-renders only for it: while a reply streams, only the live part changes.
 *
 * `subscribe` / `getSnapshot` follow React's `useSyncExternalStore` contract (the snapshot keeps its
 * identity until something changes); any other front end can call them too. The slices and their
 * notifications are {@link ViewStore}'s; how a session's event records fill them, `SessionEventView`'s.
 *
 * It reads a session through a {@link SessionTransport}: the protocol's event records, the session's state
 * and its history. `attach(session)` builds the in-process transport of a harness session
 * ({@link harnessTransport}); the demo page attaches a transport over server-sent events.
 */
import type { HarnessSession } from "@arbor/harness";
import { errorText } from "./format.js";
import { SessionEventView } from "./session-event-view.js";
import {
  harnessTransport,
  isSessionTransport,
  type SessionState,
  type SessionTransport,
  whenReady,
} from "./session-transport.js";
import { itemsOfMessage, type ToolCallInfo, type ViewMessage } from "./transcript-items.js";
import { EMPTY_TOTALS } from "./usage-totals.js";
import { ViewStore } from "./view-store.js";

/** Default least time between two notifications of a streaming reply, in milliseconds. */
export const STREAM_FRAME_MS = 16;
/** Default number of items per transcript generation. */
export const GENERATION_SIZE = 64;
/** Messages of a session's context shown when the view attaches to it. */
export const REPLAY_LIMIT = 40;
/** Messages of the new branch shown after a move in the tree. */
export const MOVE_REPLAY_LIMIT = 12;

/** Options of a {@link SessionViewModel}. */
export interface SessionViewModelOptions {
  /** Whether the session is saved (shown in the footer). Default true. */
  persistent?: boolean;
  /**
   * Least time between two notifications of a streaming reply (deltas arrive much faster than a screen
   * shows them; every other change is notified at once). Default {@link STREAM_FRAME_MS}.
   */
  streamFrameMs?: number;
  /** Items per transcript generation. Default {@link GENERATION_SIZE}. */
  generationSize?: number;
  /** Appended to the notice that counts the messages a replay leaves out (e.g. where to see them all). */
  replayHint?: string;
}

/** How {@link SessionViewModel.attach} shows the session's history. */
export interface AttachOptions {
  /** A separator line printed first (e.g. "resumed session …"). */
  separator?: string;
  /** Replay the last messages of the context (default true). */
  replay?: boolean;
}

/**
 * The view model of a session: transcript items, the live and footer slices, usage and cost totals, and
 * queue state, kept in step with the session's event records.
 */
export class SessionViewModel extends ViewStore {
  private readonly persistent: boolean;
  private readonly replayHint: string | undefined;
  private currentSession: HarnessSession | undefined;
  private currentTransport: SessionTransport | undefined;
  /** Counts attaches: an answer of a transport that is no longer attached is dropped. */
  private attachment = 0;
  private events: SessionEventView | undefined;
  private unsubscribe: (() => void) | undefined;
  private moveAnnounced = false;

  constructor(options: SessionViewModelOptions = {}) {
    const persistent = options.persistent ?? true;
    super({
      persistent,
      streamFrameMs: options.streamFrameMs ?? STREAM_FRAME_MS,
      generationSize: options.generationSize ?? GENERATION_SIZE,
    });
    this.persistent = persistent;
    this.replayHint = options.replayHint;
  }

  // ------------------------------------------------------------------------------------------- sessions

  /** The harness session the view shows, when it was attached in process. */
  get session(): HarnessSession | undefined {
    return this.currentSession;
  }

  /** The transport the view reads. */
  get transport(): SessionTransport | undefined {
    return this.currentTransport;
  }

  /**
   * Shows a session from now on: listens to its records (and no longer to the previous session's), counts
   * its tokens and cost, and replays the last {@link REPLAY_LIMIT} messages of its context. A harness session
   * is read through {@link harnessTransport}, synchronously: everything is shown when `attach` returns. Over a
   * transport that answers with promises, the history is shown when it arrives.
   *
   * Contract: never throws; a session whose entries cannot be read shows a warning notice instead.
   */
  attach(source: HarnessSession | SessionTransport, options: AttachOptions = {}): void {
    this.unsubscribe?.();
    const transport = isSessionTransport(source) ? source : harnessTransport(source);
    this.currentTransport = transport;
    this.currentSession = isSessionTransport(source)
      ? (source as { session?: HarnessSession }).session
      : source;
    const attachment = ++this.attachment;
    const events = new SessionEventView(this, {
      phase: () => transport.phase?.(),
      updateContext: () => this.readContext(attachment),
    });
    this.events = events;
    this.unsubscribe = transport.subscribe((event) => {
      if (attachment === this.attachment && events.handle(event, this.moveAnnounced)) this.refresh();
    });
    if (options.separator !== undefined) this.append({ kind: "separator", text: options.separator });
    const show = (history: Awaited<ReturnType<SessionTransport["history"]>>) => {
      if (attachment !== this.attachment) return;
      if (options.replay !== false) this.replay(history.messages);
      for (const warning of history.warnings)
        this.append({ kind: "notice", level: "warning", text: warning });
      this.setFooter({ ...this.footer, totals: history.totals ?? EMPTY_TOTALS, lastCompaction: undefined });
      this.setLive({
        ...this.live,
        streaming: undefined,
        tools: [],
        steering: [],
        followUp: [],
        hint: undefined,
      });
      this.refresh();
    };
    let history: ReturnType<SessionTransport["history"]>;
    try {
      history = transport.history();
    } catch (error) {
      history = Promise.reject(error);
    }
    whenReady(history, show, (error) => {
      if (attachment !== this.attachment) return;
      this.notice("warning", `cannot read the session's history: ${errorText(error)}`);
      this.refresh();
    });
  }

  /** Stops listening to the session. */
  detach(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.attachment++;
    this.cancelFrame();
  }

  /**
   * Announces a move in the tree (`navigateTree()` is about to be called): its branch summary is shown by
   * {@link showMove}, with the new branch, rather than when the summary is written.
   */
  expectMove(): void {
    this.moveAnnounced = true;
  }

  /** Whether a move in the tree was announced and not shown yet. */
  get moveExpected(): boolean {
    return this.moveAnnounced;
  }

  /** The move announced by {@link expectMove} did not happen. */
  cancelMove(): void {
    this.moveAnnounced = false;
  }

  /** Shows where a move in the tree led: a separator and the tail of the new branch's context. */
  showMove(
    session: { readonly state: { readonly messages: readonly ViewMessage[] } },
    separator: string,
  ): void {
    this.moveAnnounced = false;
    this.append({ kind: "separator", text: separator });
    this.replay(session.state.messages, MOVE_REPLAY_LIMIT);
    this.refresh();
  }

  /** Replays the tail of a context (after a switch or a tree move), with a line counting what is left out. */
  replay(messages: readonly ViewMessage[], limit = REPLAY_LIMIT): void {
    const start = Math.max(0, messages.length - limit);
    if (start > 0) {
      const hint = this.replayHint === undefined ? "" : ` (${this.replayHint})`;
      this.append({ kind: "notice", level: "info", text: `… ${start} earlier messages${hint}` });
    }
    const calls = new Map<string, ToolCallInfo>();
    for (let index = start; index < messages.length; index++) {
      for (const item of itemsOfMessage(messages[index]!, calls)) this.append(item);
    }
  }

  /**
   * Records that the user queued `text` as a steering message or a follow-up: when the agent takes it, the
   * transcript marks it so.
   */
  queued(text: string, note: "steer" | "follow-up"): void {
    this.events?.queued(text, note);
  }

  /**
   * Reads busy state, phase, model, thinking level, name and context usage from the session again (at once
   * in process; when the answer arrives over a remote transport, whose failure keeps what was shown).
   */
  refresh(): void {
    const transport = this.currentTransport;
    if (transport === undefined) return;
    const attachment = this.attachment;
    this.readState(transport, (state) => {
      if (attachment !== this.attachment) return;
      this.setFooter({
        ...this.footer,
        model: state.model,
        reasoning: state.reasoning,
        thinkingLevel: state.thinkingLevel,
        context: state.context,
        sessionId: state.sessionId,
        sessionName: state.sessionName,
        persistent: this.persistent,
      });
      this.updateLive({ busy: state.busy, phase: state.phase });
    });
  }

  /** Reads the context usage again; an unknown usage keeps the last one. */
  private readContext(attachment: number): void {
    const transport = this.currentTransport;
    if (transport === undefined) return;
    this.readState(transport, (state, late) => {
      // Undefined keeps the last known usage; in process a notification follows at once.
      if (attachment === this.attachment && state.context !== undefined) {
        this.updateFooter({ context: state.context }, late);
      }
    });
  }

  private readState(transport: SessionTransport, then: (state: SessionState, late: boolean) => void): void {
    let state: ReturnType<SessionTransport["state"]>;
    try {
      state = transport.state();
    } catch {
      return;
    }
    whenReady(state, then);
  }
}
