/**
 * The state of a session's view, outside any UI framework: it follows one harness session at a time and
 * keeps three slices — the transcript (append-only), the live part (the reply being streamed, running
 * tools, the activity label, queued messages) and the footer (model, thinking level, tokens, cost, context
 * usage, session, last compaction). A slice is replaced only when it changes, so a component that reads one
 * slice re-renders only for it: while a reply streams, only the live part changes.
 *
 * `subscribe` / `getSnapshot` follow React's `useSyncExternalStore` contract (the snapshot keeps its
 * identity until something changes); any other front end can call them too. The slices and their
 * notifications are {@link ViewStore}'s; how a session's events fill them, `SessionEventView`'s.
 */
import type { HarnessSession } from "@arbor/harness";
import { errorText } from "./format.js";
import { contextOf, SessionEventView } from "./session-event-view.js";
import { itemsOfMessage, type ToolCallInfo, type ViewMessage } from "./transcript-items.js";
import { EMPTY_TOTALS, sessionUsageTotals } from "./usage-totals.js";
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
 * The view model of a harness session: transcript items, the live and footer slices, usage and cost
 * totals, and queue state, kept in step with the session's events.
 */
export class SessionViewModel extends ViewStore {
  private readonly persistent: boolean;
  private readonly replayHint: string | undefined;
  private current: HarnessSession | undefined;
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

  /** The session the view shows. */
  get session(): HarnessSession | undefined {
    return this.current;
  }

  /**
   * Shows `session` from now on: listens to its events (and no longer to the previous session's), counts
   * its tokens and cost, and replays the last {@link REPLAY_LIMIT} messages of its context.
   *
   * Contract: never throws; a session whose entries cannot be read shows a warning notice instead.
   */
  attach(session: HarnessSession, options: AttachOptions = {}): void {
    this.unsubscribe?.();
    this.current = session;
    const events = new SessionEventView(this, session);
    this.events = events;
    this.unsubscribe = session.subscribe((event) => {
      if (session === this.current && events.handle(event, this.moveAnnounced)) this.refresh();
    });
    if (options.separator !== undefined) this.append({ kind: "separator", text: options.separator });
    if (options.replay !== false) this.replay(session.state.messages);
    for (const warning of session.warnings) this.append({ kind: "notice", level: "warning", text: warning });
    let totals = EMPTY_TOTALS;
    try {
      totals = sessionUsageTotals(session.session);
    } catch (error) {
      this.append({
        kind: "notice",
        level: "warning",
        text: `cannot count the session's tokens: ${errorText(error)}`,
      });
    }
    this.setFooter({ ...this.footer, totals, lastCompaction: undefined });
    this.setLive({
      ...this.live,
      streaming: undefined,
      tools: [],
      steering: [],
      followUp: [],
      hint: undefined,
    });
    this.refresh();
  }

  /** Stops listening to the session. */
  detach(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
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
  showMove(session: HarnessSession, separator: string): void {
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

  /** Reads busy state, phase, model, thinking level, name and context usage from the session again. */
  refresh(): void {
    const session = this.current;
    if (session === undefined) return;
    const state = session.state;
    this.setFooter({
      ...this.footer,
      model: `${state.model.provider}/${state.model.id}`,
      reasoning: state.model.reasoning,
      thinkingLevel: state.thinkingLevel,
      context: contextOf(session) ?? undefined,
      sessionId: session.id,
      sessionName: state.name,
      persistent: this.persistent,
    });
    this.updateLive({ busy: session.isBusy, phase: session.phase });
  }
}
