import type { AssistantMessage, ToolResultMessage } from "@arbor/ai-providers";
import type { ContextUsage, HarnessEvent, HarnessPhase, HarnessSession } from "@arbor/harness";
import { clipText, errorText, headLines, singleLine } from "./format.js";
import { contentText } from "./message-text.js";
import {
  assistantBlocks,
  assistantEndNotice,
  assistantNotices,
  itemsOfMessage,
  SUMMARY_LINES,
  type ToolCallInfo,
  type TranscriptItemInput,
  toolCallsOf,
  toolItem,
  userDisplayText,
  type ViewMessage,
} from "./transcript-items.js";
import { addUsage, usageOfEntry } from "./usage-totals.js";
import { lastLine, lastTextOf, liveBlocks, queuedText, toolItemLine } from "./view-slices.js";
import type { ViewStore } from "./view-store.js";

/**
 * How one attached session's events become the view: transcript items, the live slice while a reply
 * streams and tools run, usage and context in the footer. It keeps what spans events — the tool calls
 * waiting for their results, results already shown, the messages the user queued, a failed reply held
 * until it is known whether it is retried. One per attach. Internal to the view model.
 */
export class SessionEventView {
  private readonly pendingCalls = new Map<string, ToolCallInfo>();
  private readonly shownResults = new Set<string>();
  private readonly userNotes = new WeakMap<object, string>();
  private readonly queuedNotes: { text: string; note: string }[] = [];
  /** The error notice of a failed reply, held until it is known whether the reply is retried. */
  private failedReply: TranscriptItemInput | undefined;

  constructor(
    private readonly view: ViewStore,
    private readonly session: HarnessSession,
  ) {}

  /** Remembers that the user queued `text` (steering or follow-up): its message is marked so when taken. */
  queued(text: string, note: "steer" | "follow-up"): void {
    this.queuedNotes.push({ text, note });
  }

  /**
   * Shows one event of the session. Returns true when the view should read the session's state again
   * (the operation settled).
   */
  handle(event: HarnessEvent, moveExpected: boolean): boolean {
    const { session, view } = this;
    if (
      this.failedReply !== undefined &&
      event.type !== "turn_end" &&
      event.type !== "agent_end" &&
      event.type !== "save_point"
    ) {
      const failed = this.failedReply;
      this.failedReply = undefined;
      if (event.type !== "retry_scheduled") view.append(failed);
    }
    const phase = session.phase;
    switch (event.type) {
      case "agent_start":
        view.updateLive({ busy: true, phase });
        return false;
      case "message_start":
        this.messageStart(event.message, phase);
        return false;
      case "message_update":
        view.updateLive({ streaming: liveBlocks(event.message), phase }, true);
        return false;
      case "message_end":
        this.messageEnd(event.message, phase);
        return false;
      case "tool_execution_start": {
        const tool = {
          id: event.toolCallId,
          name: event.toolName,
          argumentLine: toolItemLine(event.args),
          progress: undefined,
        };
        view.updateLive({ tools: [...view.live.tools, tool] });
        return false;
      }
      case "tool_execution_update": {
        const progress = lastLine(lastTextOf(event.partialResult.content));
        if (progress === undefined) return false;
        view.updateLive({
          tools: view.live.tools.map((tool) => (tool.id === event.toolCallId ? { ...tool, progress } : tool)),
        });
        return false;
      }
      case "tool_execution_end": {
        const call = this.pendingCalls.get(event.toolCallId);
        this.shownResults.add(event.toolCallId);
        view.append(toolItem(event.toolName, call?.args, event.result.content, event.isError));
        view.updateLive({ tools: view.live.tools.filter((tool) => tool.id !== event.toolCallId) });
        return false;
      }
      case "queue_update":
        view.updateLive({
          steering: event.steering.map(queuedText),
          followUp: event.followUp.map(queuedText),
        });
        return false;
      case "compaction_start":
        view.updateLive({ busy: true, phase: "compaction" });
        return false;
      case "compaction_end":
        this.compactionEnd(event);
        return false;
      case "prune":
        view.notice("info", event.message);
        return false;
      case "branch_summary":
        if (!moveExpected) {
          view.append({ kind: "branchSummary", summary: headLines(event.summary, SUMMARY_LINES, 200) });
        }
        this.addEntryUsage(event.entryId);
        return false;
      case "retry_scheduled": {
        const seconds = Math.max(1, Math.round(event.delayMs / 1000));
        const attempt = `attempt ${event.attempt} of ${event.maxRetries}`;
        view.notice(
          "warning",
          `${clipText(singleLine(event.errorMessage), 200)} — retrying in ${seconds}s (${attempt})`,
        );
        view.updateLive({ phase: "retry", retryLabel: `Retrying in ${seconds}s (${attempt})…` });
        return false;
      }
      case "retry_attempt":
        view.updateLive({ phase });
        return false;
      case "retry_finished":
        if (!event.success && event.aborted !== true) {
          // The harness's message already says it gave up ("gave up after 3 retries: …"): shown once.
          const retries = `${event.attempts} ${event.attempts === 1 ? "retry" : "retries"}`;
          const message = event.errorMessage ?? "";
          view.notice("error", /^gave up\b/.test(message) ? message : `gave up after ${retries}: ${message}`);
        }
        view.updateLive({ phase, retryLabel: undefined });
        return false;
      case "hook_error":
        view.notice("warning", `hook ${event.hook} failed: ${errorText(event.error)}`);
        return false;
      case "save_retry":
        // Said once per series: the retries themselves show in the phase.
        if (event.attempt === 1) {
          view.notice(
            "warning",
            `the store refused the save (${singleLine(errorText(event.error))}); retrying for up to ${Number((event.timeoutMs / 1000).toFixed(1))} s`,
          );
        }
        return false;
      case "save_error": {
        const attempts =
          event.attempts === undefined || event.attempts < 2 ? "" : ` after ${event.attempts} attempts`;
        view.notice("error", `could not save the session${attempts}: ${singleLine(errorText(event.error))}`);
        return false;
      }
      case "run_stopped":
        view.notice("error", event.message);
        return false;
      case "settled":
        view.updateLive({ streaming: undefined, tools: [], retryLabel: undefined });
        return true;
      default:
        return false;
    }
  }

  private messageStart(message: ViewMessage, phase: HarnessPhase): void {
    const role = (message as { role?: unknown }).role;
    if (role === "assistant") {
      this.view.updateLive({
        streaming: [],
        streamingKey: this.view.live.streamingKey + 1,
        busy: true,
        phase,
      });
      return;
    }
    if (role === "user") {
      const text = queuedText(message);
      const index = this.queuedNotes.findIndex((queued) => queued.text === text);
      if (index !== -1) this.userNotes.set(message, this.queuedNotes.splice(index, 1)[0]!.note);
    }
  }

  private messageEnd(message: ViewMessage, phase: HarnessPhase): void {
    const { view } = this;
    const role = (message as { role?: unknown }).role;
    if (role === "assistant") {
      const reply = message as AssistantMessage;
      for (const [id, call] of toolCallsOf(reply)) this.pendingCalls.set(id, call);
      const blocks = assistantBlocks(reply);
      if (blocks.length > 0) view.append({ kind: "assistant", blocks });
      for (const item of assistantNotices(reply)) view.append(item);
      const notice = assistantEndNotice(reply);
      // A failed reply may be retried: its error then shows in the retry notice instead (see handle()).
      if (notice !== undefined && reply.stopReason === "error") this.failedReply = notice;
      else if (notice !== undefined) view.append(notice);
      view.updateFooter({ totals: addUsage(view.footer.totals, reply.usage) });
      this.updateContext();
      view.updateLive({ streaming: undefined, phase });
      return;
    }
    if (role === "toolResult") {
      const result = message as ToolResultMessage;
      if (!this.shownResults.delete(result.toolCallId)) {
        const call = this.pendingCalls.get(result.toolCallId);
        view.append(toolItem(call?.name ?? result.toolName, call?.args, result.content, result.isError));
      }
      this.pendingCalls.delete(result.toolCallId);
      return;
    }
    if (role === "user") {
      const text = userDisplayText(contentText((message as { content: unknown }).content));
      view.append({ kind: "user", text, note: this.userNotes.get(message) });
      return;
    }
    for (const item of itemsOfMessage(message, this.pendingCalls)) view.append(item);
  }

  private compactionEnd(event: Extract<HarnessEvent, { type: "compaction_end" }>): void {
    const { view } = this;
    const { outcome } = event;
    if (outcome.kind === "compacted") {
      const { tokensBefore, tokensAfter } = outcome;
      view.append({ kind: "compaction", tokensBefore, tokensAfter, reason: event.reason });
      view.updateFooter({ lastCompaction: { tokensBefore, tokensAfter } });
      this.addEntryUsage(outcome.entryId);
    } else {
      // The harness says what happened in plain words.
      const level = outcome.kind === "failed" ? "error" : outcome.kind === "aborted" ? "warning" : "info";
      view.notice(level, outcome.message);
    }
    this.updateContext();
    view.updateLive({ phase: this.session.phase });
  }

  private addEntryUsage(entryId: string): void {
    const { session, view } = this;
    const usage = usageOfEntry(session.session.getEntry(entryId));
    if (usage === undefined) return;
    view.updateFooter({ totals: addUsage(view.footer.totals, usage) });
  }

  private updateContext(): void {
    const context = contextOf(this.session);
    // Undefined keeps the last known usage.
    if (context !== undefined) this.view.updateFooter({ context }, false);
  }
}

/** The session's context usage, or undefined when it cannot be computed. */
export function contextOf(session: HarnessSession): ContextUsage | undefined {
  try {
    return session.contextUsage();
  } catch {
    return undefined;
  }
}
