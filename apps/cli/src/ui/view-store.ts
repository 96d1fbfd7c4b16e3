/**
 * The state of the interactive UI outside React: it follows the current harness session and keeps three
 * slices that components read with `useSyncExternalStore` — the printed transcript (append-only), the live
 * part (the reply being streamed, running tools, the spinner's activity, queued messages) and the footer
 * (model, thinking level, tokens, cost, context usage, session, last compaction). A slice is replaced only
 * when it changes, so a component re-renders only for its own slice: while a reply streams, only the live
 * part does.
 *
 * The transcript is handed to ink's `<Static>` in generations of at most {@link GENERATION_SIZE} items:
 * appending copies only the current generation, so a long session costs O(1) per item, not O(items).
 */
import type { AgentMessage } from "@arbor/agent-core";
import type { ContextUsage, HarnessSession } from "@arbor/harness";
import { errorText } from "./format.js";
import { SessionListener } from "./session-listener.js";
import {
  itemsOfMessage,
  type NoticeLevel,
  type ToolCallInfo,
  type TranscriptItem,
  type TranscriptItemInput,
} from "./transcript-items.js";
import { EMPTY_TOTALS, sessionUsageTotals } from "./usage-totals.js";
import { activityOf, type FooterView, type LiveView, type StaticView } from "./view-slices.js";

/** The slices, for the components that read them. */
export type { FooterView, LiveBlock, LiveView, RunningTool, StaticView } from "./view-slices.js";

/**
 * Least time between two renders of a streaming reply. Deltas arrive much faster than a terminal shows
 * them (and a long paragraph costs O(its length) to lay out), so they are drawn at most this often; every
 * other change is drawn at once.
 */
export const STREAM_FRAME_MS = 16;
/** Items per `<Static>` generation. */
export const GENERATION_SIZE = 64;
/** Messages of a session's context shown when the UI attaches to it. */
export const REPLAY_LIMIT = 40;
/** Messages of the new branch shown after a move in the tree. */
export const MOVE_REPLAY_LIMIT = 12;

/** How {@link InteractiveStore.attach} shows the session's history. */
export interface AttachOptions {
  /** A separator line printed first (e.g. "resumed session …"). */
  separator?: string;
  /** Replay the last messages of the context (default true). */
  replay?: boolean;
}

type Listener = () => void;

/** The interactive UI's state; a {@link SessionListener} keeps it in step with the current session. */
export class InteractiveStore {
  private listeners = new Set<Listener>();
  private nextKey = 0;
  private acknowledged = { generation: 0, count: 0 };
  private current: HarnessSession | undefined;
  private unsubscribe: (() => void) | undefined;
  private queuedNotes: { text: string; note: string }[] = [];
  private moveAnnounced = false;
  private frameTimer: NodeJS.Timeout | undefined;

  staticView: StaticView = { generation: 0, items: [] };
  liveView: LiveView = {
    busy: false,
    phase: "idle",
    activity: undefined,
    streaming: undefined,
    streamingKey: 0,
    tools: [],
    steering: [],
    followUp: [],
    hint: undefined,
    retryLabel: undefined,
  };
  footerView: FooterView;

  constructor(private readonly persistent: boolean) {
    this.footerView = {
      model: "",
      reasoning: false,
      thinkingLevel: "off",
      totals: EMPTY_TOTALS,
      context: undefined,
      sessionId: "",
      sessionName: undefined,
      persistent,
      lastCompaction: undefined,
    };
  }

  // ------------------------------------------------------------------------------------------ subscribing

  /** Adds a listener of every change; returns the function that removes it. */
  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  private notify(): void {
    if (this.frameTimer !== undefined) {
      clearTimeout(this.frameTimer);
      this.frameTimer = undefined;
    }
    for (const listener of this.listeners) listener();
  }

  /** Draws a streaming change within {@link STREAM_FRAME_MS} (at once if something else is drawn first). */
  private notifySoon(): void {
    if (this.frameTimer !== undefined) return;
    this.frameTimer = setTimeout(() => {
      this.frameTimer = undefined;
      this.notify();
    }, STREAM_FRAME_MS);
    this.frameTimer.unref?.();
  }

  /**
   * Records that `<Static>` printed the first `count` items of a generation. A new generation starts only
   * once every item of the current one is printed, so nothing is lost when React batches several appends.
   */
  acknowledgeStatic(generation: number, count: number): void {
    this.acknowledged = { generation, count };
  }

  // ------------------------------------------------------------------------------------------- sessions

  /** The session the UI shows. */
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
    this.queuedNotes = [];
    const listener = new SessionListener(this, session);
    this.unsubscribe = session.subscribe((event) => {
      if (session === this.current) listener.handle(event);
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
    this.footerView = { ...this.footerView, totals, lastCompaction: undefined };
    this.liveView = {
      ...this.liveView,
      streaming: undefined,
      tools: [],
      steering: [],
      followUp: [],
      hint: undefined,
    };
    this.refresh();
  }

  /** Stops listening to the session. */
  detach(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.frameTimer !== undefined) clearTimeout(this.frameTimer);
    this.frameTimer = undefined;
  }

  /**
   * Announces a move in the tree (`navigateTree()` was called): its branch summary is shown by
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
  replay(messages: readonly AgentMessage[], limit = REPLAY_LIMIT): void {
    const start = Math.max(0, messages.length - limit);
    if (start > 0) {
      this.append({
        kind: "notice",
        level: "info",
        text: `… ${start} earlier messages (arbor sessions show lists them all)`,
      });
    }
    const calls = new Map<string, ToolCallInfo>();
    for (let index = start; index < messages.length; index++) {
      for (const item of itemsOfMessage(messages[index]!, calls)) this.append(item);
    }
  }

  // ------------------------------------------------------------------------------------------- writing

  /** Prints an item. */
  append(input: TranscriptItemInput): void {
    const item = { ...input, key: String(this.nextKey++) } as TranscriptItem;
    const { generation, items } = this.staticView;
    const printed = this.acknowledged.generation === generation && this.acknowledged.count >= items.length;
    this.staticView =
      items.length >= GENERATION_SIZE && printed
        ? { generation: generation + 1, items: [item] }
        : { generation, items: [...items, item] };
    this.notify();
  }

  /** Prints a notice. */
  notice(level: NoticeLevel, text: string): void {
    this.append({ kind: "notice", level, text });
  }

  /**
   * Records that the user queued `text` as a steering message or a follow-up: when the agent takes it, the
   * transcript marks it so.
   */
  queued(text: string, note: "steer" | "follow-up"): void {
    this.queuedNotes.push({ text, note });
  }

  /** The note of a queued message the agent took now (and forgets it), if the user queued that text. */
  takeQueuedNote(text: string): string | undefined {
    const index = this.queuedNotes.findIndex((queued) => queued.text === text);
    return index === -1 ? undefined : this.queuedNotes.splice(index, 1)[0]!.note;
  }

  /** Sets (or clears) the hint line. */
  setHint(hint: string | undefined): void {
    if (this.liveView.hint === hint) return;
    this.liveView = { ...this.liveView, hint };
    this.notify();
  }

  /** Reads busy state, phase, model, thinking level, name and context usage from the session again. */
  refresh(): void {
    const session = this.current;
    if (session === undefined) return;
    const state = session.state;
    let context: ContextUsage | undefined;
    try {
      context = session.contextUsage();
    } catch {
      context = undefined;
    }
    this.footerView = {
      ...this.footerView,
      model: `${state.model.provider}/${state.model.id}`,
      reasoning: state.model.reasoning,
      thinkingLevel: state.thinkingLevel,
      context,
      sessionId: session.id,
      sessionName: state.name,
      persistent: this.persistent,
    };
    this.updateLive({ busy: session.isBusy, phase: session.phase });
  }

  /**
   * Changes the live slice (the spinner's label follows); `soon` draws it within {@link STREAM_FRAME_MS}
   * instead of at once (for streamed deltas).
   */
  updateLive(change: Partial<LiveView>, soon = false): void {
    const next = { ...this.liveView, ...change };
    this.liveView = { ...next, activity: activityOf(next) };
    if (soon) this.notifySoon();
    else this.notify();
  }

  /** Changes the footer slice (drawn at once unless `draw` is false: another change follows). */
  updateFooter(change: Partial<FooterView>, draw = true): void {
    this.footerView = { ...this.footerView, ...change };
    if (draw) this.notify();
  }
}
