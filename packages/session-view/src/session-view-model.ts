/**
 * The state of a session's view, outside any UI framework: it follows one harness session at a time and
 * keeps three slices — the transcript (append-only), the live part (the reply being streamed, running
 * tools, the activity label, queued messages) and the footer (model, thinking level, tokens, cost, context
 * usage, session, last compaction). A slice is replaced only when it changes, so a component that reads one
 * slice re-renders only for it: while a reply streams, only the live part changes.
 *
 * `subscribe` / `getSnapshot` follow React's `useSyncExternalStore` contract (the snapshot keeps its
 * identity until something changes); any other front end can call them too.
 *
 * The transcript is handed out in generations of at most `generationSize` items: appending copies only the
 * current generation, so a long session costs O(1) per item, not O(items).
 */
import type { AssistantMessage, ToolResultMessage } from "@arbor/ai-providers";
import type { ContextUsage, HarnessEvent, HarnessPhase, HarnessSession } from "@arbor/harness";
import { clipText, errorText, formatTokens, headLines, singleLine } from "./format.js";
import { contentText } from "./message-text.js";
import {
  assistantBlocks,
  assistantEndNotice,
  itemsOfMessage,
  type NoticeLevel,
  SUMMARY_LINES,
  type ToolCallInfo,
  type TranscriptItem,
  type TranscriptItemInput,
  toolCallsOf,
  toolItem,
  userDisplayText,
  type ViewMessage,
} from "./transcript-items.js";
import { addUsage, EMPTY_TOTALS, sessionUsageTotals, usageOfEntry } from "./usage-totals.js";
import {
  activityOf,
  type FooterView,
  type LiveView,
  lastLine,
  lastTextOf,
  liveBlocks,
  queuedText,
  type TranscriptView,
  toolItemLine,
} from "./view-slices.js";

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

/** Everything the view shows, as one immutable value. */
export interface SessionViewSnapshot {
  readonly transcript: TranscriptView;
  readonly live: LiveView;
  readonly footer: FooterView;
}

type Listener = () => void;

const IDLE_LIVE: LiveView = {
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

/**
 * The view model of a harness session: transcript items, the live and footer slices, usage and cost
 * totals, and queue state, kept in step with the session's events.
 */
export class SessionViewModel {
  private readonly listeners = new Set<Listener>();
  private readonly persistent: boolean;
  private readonly streamFrameMs: number;
  private readonly generationSize: number;
  private readonly replayHint: string | undefined;
  private nextKey = 0;
  private acknowledged = { generation: 0, count: 0 };
  private current: HarnessSession | undefined;
  private unsubscribe: (() => void) | undefined;
  private queuedNotes: { text: string; note: string }[] = [];
  private moveAnnounced = false;
  private frameTimer: ReturnType<typeof setTimeout> | undefined;
  private snapshot: SessionViewSnapshot | undefined;
  private transcriptSlice: TranscriptView = { generation: 0, items: [] };
  private liveSlice: LiveView = IDLE_LIVE;
  private footerSlice: FooterView;
  // Per attached session: the calls waiting for their results, results already shown, queue notes.
  private pendingCalls = new Map<string, ToolCallInfo>();
  private shownResults = new Set<string>();
  private userNotes = new WeakMap<object, string>();
  /** The error notice of a failed reply, held until it is known whether the reply is retried. */
  private failedReply: TranscriptItemInput | undefined;

  constructor(options: SessionViewModelOptions = {}) {
    this.persistent = options.persistent ?? true;
    this.streamFrameMs = options.streamFrameMs ?? STREAM_FRAME_MS;
    this.generationSize = options.generationSize ?? GENERATION_SIZE;
    this.replayHint = options.replayHint;
    this.footerSlice = {
      model: "",
      reasoning: false,
      thinkingLevel: "off",
      totals: EMPTY_TOTALS,
      context: undefined,
      sessionId: "",
      sessionName: undefined,
      persistent: this.persistent,
      lastCompaction: undefined,
    };
  }

  // ------------------------------------------------------------------------------------------ reading

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

  private setTranscript(value: TranscriptView): void {
    this.transcriptSlice = value;
    this.snapshot = undefined;
  }

  private setLive(value: LiveView): void {
    this.liveSlice = value;
    this.snapshot = undefined;
  }

  private setFooter(value: FooterView): void {
    this.footerSlice = value;
    this.snapshot = undefined;
  }

  /**
   * Records that a renderer printed the first `count` items of a generation. A new generation starts only
   * once every item of the current one is printed, so nothing is lost when several appends are batched.
   */
  acknowledgeTranscript(generation: number, count: number): void {
    this.acknowledged = { generation, count };
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
    this.queuedNotes = [];
    this.pendingCalls = new Map();
    this.shownResults = new Set();
    this.userNotes = new WeakMap();
    this.failedReply = undefined;
    this.unsubscribe = session.subscribe((event) => {
      if (session === this.current) this.handle(session, event);
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
    this.setFooter({ ...this.footerSlice, totals, lastCompaction: undefined });
    this.setLive({
      ...this.liveSlice,
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
    if (this.frameTimer !== undefined) clearTimeout(this.frameTimer);
    this.frameTimer = undefined;
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

  // ------------------------------------------------------------------------------------------- writing

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

  /** Adds a notice to the transcript. */
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

  /** Sets (or clears) the hint line. */
  setHint(hint: string | undefined): void {
    if (this.liveSlice.hint === hint) return;
    this.setLive({ ...this.liveSlice, hint });
    this.notify();
  }

  /** Reads busy state, phase, model, thinking level, name and context usage from the session again. */
  refresh(): void {
    const session = this.current;
    if (session === undefined) return;
    const state = session.state;
    this.setFooter({
      ...this.footerSlice,
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

  // ------------------------------------------------------------------------------------------- events

  private handle(session: HarnessSession, event: HarnessEvent): void {
    if (
      this.failedReply !== undefined &&
      event.type !== "turn_end" &&
      event.type !== "agent_end" &&
      event.type !== "save_point"
    ) {
      const failed = this.failedReply;
      this.failedReply = undefined;
      if (event.type !== "retry_scheduled") this.append(failed);
    }
    const phase = session.phase;
    switch (event.type) {
      case "agent_start":
        this.updateLive({ busy: true, phase });
        return;
      case "message_start":
        this.messageStart(event.message, phase);
        return;
      case "message_update":
        this.updateLive({ streaming: liveBlocks(event.message), phase }, true);
        return;
      case "message_end":
        this.messageEnd(session, event.message, phase);
        return;
      case "tool_execution_start": {
        const tool = {
          id: event.toolCallId,
          name: event.toolName,
          argumentLine: toolItemLine(event.args),
          progress: undefined,
        };
        this.updateLive({ tools: [...this.liveSlice.tools, tool] });
        return;
      }
      case "tool_execution_update": {
        const progress = lastLine(lastTextOf(event.partialResult.content));
        if (progress === undefined) return;
        this.updateLive({
          tools: this.liveSlice.tools.map((tool) =>
            tool.id === event.toolCallId ? { ...tool, progress } : tool,
          ),
        });
        return;
      }
      case "tool_execution_end": {
        const call = this.pendingCalls.get(event.toolCallId);
        this.shownResults.add(event.toolCallId);
        this.append(toolItem(event.toolName, call?.args, event.result.content, event.isError));
        this.updateLive({ tools: this.liveSlice.tools.filter((tool) => tool.id !== event.toolCallId) });
        return;
      }
      case "queue_update":
        this.updateLive({
          steering: event.steering.map(queuedText),
          followUp: event.followUp.map(queuedText),
        });
        return;
      case "compaction_start":
        this.updateLive({ busy: true, phase: "compaction" });
        return;
      case "compaction_end":
        this.compactionEnd(session, event);
        return;
      case "branch_summary":
        if (!this.moveAnnounced) {
          this.append({ kind: "branchSummary", summary: headLines(event.summary, SUMMARY_LINES, 200) });
        }
        this.addEntryUsage(session, event.entryId);
        return;
      case "retry_scheduled": {
        const seconds = Math.max(1, Math.round(event.delayMs / 1000));
        const attempt = `attempt ${event.attempt} of ${event.maxRetries}`;
        this.notice(
          "warning",
          `${clipText(singleLine(event.errorMessage), 200)} — retrying in ${seconds}s (${attempt})`,
        );
        this.updateLive({ phase: "retry", retryLabel: `Retrying in ${seconds}s (${attempt})…` });
        return;
      }
      case "retry_attempt":
        this.updateLive({ phase });
        return;
      case "retry_finished":
        if (!event.success && event.aborted !== true) {
          // The harness's message already says it gave up ("gave up after 3 retries: …"): shown once.
          const retries = `${event.attempts} ${event.attempts === 1 ? "retry" : "retries"}`;
          const message = event.errorMessage ?? "";
          this.notice("error", /^gave up\b/.test(message) ? message : `gave up after ${retries}: ${message}`);
        }
        this.updateLive({ phase, retryLabel: undefined });
        return;
      case "hook_error":
        this.notice("warning", `hook ${event.hook} failed: ${errorText(event.error)}`);
        return;
      case "save_error":
        this.notice("warning", `could not save the session (it will be retried): ${errorText(event.error)}`);
        return;
      case "settled":
        this.updateLive({ streaming: undefined, tools: [], retryLabel: undefined });
        this.refresh();
        return;
      default:
        return;
    }
  }

  private messageStart(message: ViewMessage, phase: HarnessPhase): void {
    const role = (message as { role?: unknown }).role;
    if (role === "assistant") {
      this.updateLive({ streaming: [], streamingKey: this.liveSlice.streamingKey + 1, busy: true, phase });
      return;
    }
    if (role === "user") {
      const text = queuedText(message);
      const index = this.queuedNotes.findIndex((queued) => queued.text === text);
      if (index !== -1) this.userNotes.set(message, this.queuedNotes.splice(index, 1)[0]!.note);
    }
  }

  private messageEnd(session: HarnessSession, message: ViewMessage, phase: HarnessPhase): void {
    const role = (message as { role?: unknown }).role;
    if (role === "assistant") {
      const reply = message as AssistantMessage;
      for (const [id, call] of toolCallsOf(reply)) this.pendingCalls.set(id, call);
      const blocks = assistantBlocks(reply);
      if (blocks.length > 0) this.append({ kind: "assistant", blocks });
      const notice = assistantEndNotice(reply);
      // A failed reply may be retried: its error then shows in the retry notice instead (see handle()).
      if (notice !== undefined && reply.stopReason === "error") this.failedReply = notice;
      else if (notice !== undefined) this.append(notice);
      this.updateFooter({ totals: addUsage(this.footerSlice.totals, reply.usage) });
      this.updateContext(session);
      this.updateLive({ streaming: undefined, phase });
      return;
    }
    if (role === "toolResult") {
      const result = message as ToolResultMessage;
      if (!this.shownResults.delete(result.toolCallId)) {
        const call = this.pendingCalls.get(result.toolCallId);
        this.append(toolItem(call?.name ?? result.toolName, call?.args, result.content, result.isError));
      }
      this.pendingCalls.delete(result.toolCallId);
      return;
    }
    if (role === "user") {
      const text = userDisplayText(contentText((message as { content: unknown }).content));
      this.append({ kind: "user", text, note: this.userNotes.get(message) });
      return;
    }
    for (const item of itemsOfMessage(message, this.pendingCalls)) this.append(item);
  }

  private compactionEnd(
    session: HarnessSession,
    event: Extract<HarnessEvent, { type: "compaction_end" }>,
  ): void {
    const { outcome } = event;
    if (outcome.kind === "compacted") {
      const { tokensBefore, tokensAfter } = outcome;
      this.append({ kind: "compaction", tokensBefore, tokensAfter, reason: event.reason });
      this.updateFooter({ lastCompaction: { tokensBefore, tokensAfter } });
      this.addEntryUsage(session, outcome.entryId);
    } else if (outcome.kind === "nothing_to_compact") {
      this.notice(
        "info",
        `nothing to compact: ${outcome.reason} (context ${formatTokens(outcome.tokensBefore)} tokens)`,
      );
    } else if (outcome.kind === "failed") {
      this.notice("error", `compaction failed: ${outcome.message}`);
    } else if (outcome.kind === "cancelled") {
      this.notice("info", "compaction cancelled by a hook");
    } else {
      this.notice("warning", "compaction aborted");
    }
    this.updateContext(session);
    this.updateLive({ phase: session.phase });
  }

  private addEntryUsage(session: HarnessSession, entryId: string): void {
    const usage = usageOfEntry(session.session.getEntry(entryId));
    if (usage === undefined) return;
    this.updateFooter({ totals: addUsage(this.footerSlice.totals, usage) });
  }

  private updateContext(session: HarnessSession): void {
    const context = contextOf(session);
    // Undefined keeps the last known usage.
    if (context !== undefined) this.updateFooter({ context }, false);
  }
}

/** The session's context usage, or undefined when it cannot be computed. */
function contextOf(session: HarnessSession): ContextUsage | undefined {
  try {
    return session.contextUsage();
  } catch {
    return undefined;
  }
}
