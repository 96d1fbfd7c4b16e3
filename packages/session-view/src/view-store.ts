import {
  expandedToolItem,
  isCutToolItem,
  type NoticeLevel,
  type TranscriptItem,
  type TranscriptItemInput,
} from "./transcript-items.js";
import { EMPTY_TOTALS } from "./usage-totals.js";
import { activityOf, type FooterView, type LiveView, type TranscriptView } from "./view-slices.js";

/** Everything the view shows, as one immutable value. */
export interface SessionViewSnapshot {
  readonly transcript: TranscriptView;
  readonly live: LiveView;
  readonly footer: FooterView;
}

type Listener = () => void;

/** The live slice while nothing runs. */
export const IDLE_LIVE: LiveView = {
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

/** How a {@link ViewStore} notifies and pages its transcript (resolved options of the view model). */
export interface ViewStoreOptions {
  persistent: boolean;
  /** Least time between two notifications of a streamed change, in milliseconds. */
  streamFrameMs: number;
  /** Items per transcript generation. */
  generationSize: number;
}

/**
 * The three slices of a session's view — transcript, live part, footer — and their listeners, outside any
 * UI framework. A slice is replaced only when it changes, and the snapshot keeps its identity until one
 * does (React's `useSyncExternalStore` contract). The transcript is handed out in generations of at most
 * `generationSize` items: appending copies only the current generation, so a long session costs O(1) per
 * item, not O(items). The base of `SessionViewModel`, which keeps the slices in step with a session.
 */
export class ViewStore {
  private readonly listeners = new Set<Listener>();
  private readonly streamFrameMs: number;
  private readonly generationSize: number;
  private nextKey = 0;
  private acknowledged = { generation: 0, count: 0 };
  private frameTimer: ReturnType<typeof setTimeout> | undefined;
  private snapshot: SessionViewSnapshot | undefined;
  private transcriptSlice: TranscriptView = { generation: 0, items: [] };
  private liveSlice: LiveView = IDLE_LIVE;
  private footerSlice: FooterView;

  constructor(options: ViewStoreOptions) {
    this.streamFrameMs = options.streamFrameMs;
    this.generationSize = options.generationSize;
    this.footerSlice = {
      model: "",
      reasoning: false,
      thinkingLevel: "off",
      totals: EMPTY_TOTALS,
      context: undefined,
      sessionId: "",
      sessionName: undefined,
      persistent: options.persistent,
      lastCompaction: undefined,
    };
  }

  /** The transcript slice: the items of the current generation. */
  get transcript(): TranscriptView {
    return this.transcriptSlice;
  }

  /** The live slice: what is happening now. */
  get live(): LiveView {
    return this.liveSlice;
  }

  /** The footer slice: model, usage and cost totals, context usage, session. */
  get footer(): FooterView {
    return this.footerSlice;
  }

  /**
   * The three slices as one value.
   *
   * Contract: returns the same object until a slice changes (fit for `useSyncExternalStore`); never throws.
   */
  getSnapshot = (): SessionViewSnapshot => {
    this.snapshot ??= Object.freeze({
      transcript: this.transcriptSlice,
      live: this.liveSlice,
      footer: this.footerSlice,
    });
    return this.snapshot;
  };

  /**
   * Adds a listener of every change; returns the function that removes it.
   *
   * Contract: a listener is called with no arguments after a slice changed (a streamed delta within
   * `streamFrameMs`); it must not throw.
   */
  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /**
   * Records that a renderer printed the first `count` items of a generation. A new generation starts only
   * once every item of the current one is printed, so nothing is lost when several appends are batched.
   */
  acknowledgeTranscript(generation: number, count: number): void {
    this.acknowledged = { generation, count };
  }

  /** Adds an item to the transcript. */
  append(input: TranscriptItemInput): void {
    const item = { ...input, key: String(this.nextKey++) } as TranscriptItem;
    const { generation, items } = this.transcriptSlice;
    const printed = this.acknowledged.generation === generation && this.acknowledged.count >= items.length;
    this.setTranscript(
      items.length >= this.generationSize && printed
        ? { generation: generation + 1, items: [item] }
        : { generation, items: [...items, item] },
    );
    this.notify();
  }

  /**
   * Shows the last tool result that was cut (output lines, diff rows) in full: appends it again, expanded
   * (the key a front end binds to it: Ctrl-O in the terminal). Returns false, and shows a notice, when no cut
   * result is in the transcript's current generation.
   *
   * Contract: never throws; appends at most one item.
   */
  expandLastTool(): boolean {
    const { items } = this.transcriptSlice;
    for (let index = items.length - 1; index >= 0; index--) {
      const item = items[index]!;
      if (item.kind === "tool" && item.expanded === true) break;
      if (item.kind === "tool" && isCutToolItem(item)) {
        this.append(expandedToolItem(item));
        return true;
      }
    }
    this.notice("info", "no cut tool output to expand");
    return false;
  }

  /** Adds a notice to the transcript. */
  notice(level: NoticeLevel, text: string): void {
    this.append({ kind: "notice", level, text });
  }

  /** Sets (or clears) the hint line. */
  setHint(hint: string | undefined): void {
    if (this.liveSlice.hint === hint) return;
    this.setLive({ ...this.liveSlice, hint });
    this.notify();
  }

  /**
   * Changes the live slice (the activity label follows); `soon` notifies within `streamFrameMs` instead of
   * at once (for streamed deltas).
   */
  updateLive(change: Partial<LiveView>, soon = false): void {
    const next = { ...this.liveSlice, ...change };
    this.setLive({ ...next, activity: activityOf(next) });
    if (soon) this.notifySoon();
    else this.notify();
  }

  /** Changes the footer slice (notified at once unless `notify` is false: another change follows). */
  updateFooter(change: Partial<FooterView>, notify = true): void {
    this.setFooter({ ...this.footerSlice, ...change });
    if (notify) this.notify();
  }

  /** Replaces the live slice without notifying (a notification follows). */
  protected setLive(value: LiveView): void {
    this.liveSlice = value;
    this.snapshot = undefined;
  }

  /** Replaces the footer slice without notifying (a notification follows). */
  protected setFooter(value: FooterView): void {
    this.footerSlice = value;
    this.snapshot = undefined;
  }

  /** Drops a pending streamed notification (the view stops following its session). */
  protected cancelFrame(): void {
    if (this.frameTimer !== undefined) clearTimeout(this.frameTimer);
    this.frameTimer = undefined;
  }

  private setTranscript(value: TranscriptView): void {
    this.transcriptSlice = value;
    this.snapshot = undefined;
  }

  private notify(): void {
    if (this.frameTimer !== undefined) {
      clearTimeout(this.frameTimer);
      this.frameTimer = undefined;
    }
    for (const listener of this.listeners) listener();
  }

  private notifySoon(): void {
    if (this.frameTimer !== undefined) return;
    this.frameTimer = setTimeout(() => {
      this.frameTimer = undefined;
      this.notify();
    }, this.streamFrameMs);
    (this.frameTimer as { unref?: () => void }).unref?.();
  }
}
