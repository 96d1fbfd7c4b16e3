/**
 * Turns the events of one harness session into changes of the interactive store: user messages, replies
 * (streamed, then printed), tool calls with their results, compactions, branch summaries, retries and
 * failures. One listener per session: switching sessions starts a new one, so nothing of the previous
 * session's runs leaks into the next.
 */
import type { AgentMessage } from "@arbor/agent-core";
import type { AssistantMessage, ToolResultMessage } from "@arbor/ai-providers";
import type { HarnessEvent, HarnessPhase, HarnessSession } from "@arbor/harness";
import { clipText, errorText, formatTokens, headLines, singleLine } from "./format.js";
import {
  assistantBlocks,
  assistantEndNotice,
  contentText,
  itemsOfMessage,
  SUMMARY_LINES,
  type ToolCallInfo,
  type TranscriptItemInput,
  toolCallsOf,
  toolItem,
  userDisplayText,
} from "./transcript-items.js";
import { addUsage, usageOfEntry } from "./usage-totals.js";
import { lastLine, lastTextOf, liveBlocks, queuedText, toolItemLine } from "./view-slices.js";
import type { InteractiveStore } from "./view-store.js";

/** The handler of one session's events. */
export class SessionListener {
  private readonly pendingCalls = new Map<string, ToolCallInfo>();
  private readonly shownResults = new Set<string>();
  private readonly userNotes = new WeakMap<object, string>();
  /** The error notice of a failed reply, held until it is known whether the reply is retried. */
  private failedReply: TranscriptItemInput | undefined;

  constructor(
    private readonly store: InteractiveStore,
    private readonly session: HarnessSession,
  ) {}

  /** Handles one event of the session. */
  handle(event: HarnessEvent): void {
    const { session, store } = this;
    if (
      this.failedReply !== undefined &&
      event.type !== "turn_end" &&
      event.type !== "agent_end" &&
      event.type !== "save_point"
    ) {
      const failed = this.failedReply;
      this.failedReply = undefined;
      if (event.type !== "retry_scheduled") store.append(failed);
    }
    const phase = session.phase;
    switch (event.type) {
      case "agent_start":
        store.updateLive({ busy: true, phase });
        return;
      case "message_start":
        this.messageStart(event.message, phase);
        return;
      case "message_update":
        store.updateLive({ streaming: liveBlocks(event.message), phase }, true);
        return;
      case "message_end":
        this.messageEnd(session, event.message, phase);
        return;
      case "tool_execution_start":
        store.updateLive({
          tools: [
            ...store.liveView.tools,
            {
              id: event.toolCallId,
              name: event.toolName,
              argumentLine: toolItemLine(event.args),
              progress: undefined,
            },
          ],
        });
        return;
      case "tool_execution_update": {
        const progress = lastLine(lastTextOf(event.partialResult.content));
        if (progress === undefined) return;
        store.updateLive({
          tools: store.liveView.tools.map((tool) =>
            tool.id === event.toolCallId ? { ...tool, progress } : tool,
          ),
        });
        return;
      }
      case "tool_execution_end": {
        const call = this.pendingCalls.get(event.toolCallId);
        this.shownResults.add(event.toolCallId);
        store.append(toolItem(event.toolName, call?.args, event.result.content, event.isError));
        store.updateLive({ tools: store.liveView.tools.filter((tool) => tool.id !== event.toolCallId) });
        return;
      }
      case "queue_update":
        store.updateLive({
          steering: event.steering.map(queuedText),
          followUp: event.followUp.map(queuedText),
        });
        return;
      case "compaction_start":
        store.updateLive({ busy: true, phase: "compaction" });
        return;
      case "compaction_end":
        this.compactionEnd(session, event);
        return;
      case "branch_summary":
        if (!store.moveExpected) {
          store.append({ kind: "branchSummary", summary: headLines(event.summary, SUMMARY_LINES, 200) });
        }
        this.addEntryUsage(session, event.entryId);
        return;
      case "retry_scheduled": {
        const seconds = Math.max(1, Math.round(event.delayMs / 1000));
        store.notice(
          "warning",
          `${clipText(singleLine(event.errorMessage), 200)} — retrying in ${seconds}s (attempt ${event.attempt} of ${event.maxRetries})`,
        );
        store.updateLive({
          phase: "retry",
          retryLabel: `Retrying in ${seconds}s (attempt ${event.attempt} of ${event.maxRetries})…`,
        });
        return;
      }
      case "retry_attempt":
        store.updateLive({ phase });
        return;
      case "retry_finished":
        if (!event.success && event.aborted !== true) {
          store.notice(
            "error",
            `gave up after ${event.attempts} retries${event.errorMessage ? `: ${event.errorMessage}` : ""}`,
          );
        }
        store.updateLive({ phase, retryLabel: undefined });
        return;
      case "hook_error":
        store.notice("warning", `hook ${event.hook} failed: ${errorText(event.error)}`);
        return;
      case "save_error":
        store.notice("warning", `could not save the session (it will be retried): ${errorText(event.error)}`);
        return;
      case "settled":
        store.updateLive({ streaming: undefined, tools: [], retryLabel: undefined });
        store.refresh();
        return;
      default:
        return;
    }
  }

  private messageStart(message: AgentMessage, phase: HarnessPhase): void {
    const role = (message as { role?: unknown }).role;
    if (role === "assistant") {
      this.store.updateLive({
        streaming: [],
        streamingKey: this.store.liveView.streamingKey + 1,
        busy: true,
        phase,
      });
      return;
    }
    if (role === "user") {
      const text = queuedText(message);
      const note = this.store.takeQueuedNote(text);
      if (note !== undefined) this.userNotes.set(message, note);
    }
  }

  private messageEnd(session: HarnessSession, message: AgentMessage, phase: HarnessPhase): void {
    const role = (message as { role?: unknown }).role;
    if (role === "assistant") {
      const reply = message as AssistantMessage;
      for (const [id, call] of toolCallsOf(reply)) this.pendingCalls.set(id, call);
      const blocks = assistantBlocks(reply);
      if (blocks.length > 0) this.store.append({ kind: "assistant", blocks });
      const notice = assistantEndNotice(reply);
      // A failed reply may be retried: its error then shows in the retry notice instead (see handle()).
      if (notice !== undefined && reply.stopReason === "error") this.failedReply = notice;
      else if (notice !== undefined) this.store.append(notice);
      this.store.updateFooter({ totals: addUsage(this.store.footerView.totals, reply.usage) });
      this.updateContext(session);
      this.store.updateLive({ streaming: undefined, phase });
      return;
    }
    if (role === "toolResult") {
      const result = message as ToolResultMessage;
      if (!this.shownResults.delete(result.toolCallId)) {
        const call = this.pendingCalls.get(result.toolCallId);
        this.store.append(
          toolItem(call?.name ?? result.toolName, call?.args, result.content, result.isError),
        );
      }
      this.pendingCalls.delete(result.toolCallId);
      return;
    }
    if (role === "user") {
      const text = userDisplayText(contentText((message as { content: unknown }).content));
      this.store.append({ kind: "user", text, note: this.userNotes.get(message) });
      return;
    }
    for (const item of itemsOfMessage(message, this.pendingCalls)) this.store.append(item);
  }

  private compactionEnd(
    session: HarnessSession,
    event: Extract<HarnessEvent, { type: "compaction_end" }>,
  ): void {
    const { outcome } = event;
    if (outcome.kind === "compacted") {
      this.store.append({
        kind: "compaction",
        tokensBefore: outcome.tokensBefore,
        tokensAfter: outcome.tokensAfter,
        reason: event.reason,
      });
      this.store.updateFooter({
        lastCompaction: { tokensBefore: outcome.tokensBefore, tokensAfter: outcome.tokensAfter },
      });
      this.addEntryUsage(session, outcome.entryId);
    } else if (outcome.kind === "nothing_to_compact") {
      this.store.notice(
        "info",
        `nothing to compact: ${outcome.reason} (context ${formatTokens(outcome.tokensBefore)} tokens)`,
      );
    } else if (outcome.kind === "failed") {
      this.store.notice("error", `compaction failed: ${outcome.message}`);
    } else if (outcome.kind === "cancelled") {
      this.store.notice("info", "compaction cancelled by a hook");
    } else {
      this.store.notice("warning", "compaction aborted");
    }
    this.updateContext(session);
    this.store.updateLive({ phase: session.phase });
  }

  private addEntryUsage(session: HarnessSession, entryId: string): void {
    const usage = usageOfEntry(session.session.getEntry(entryId));
    if (usage === undefined) return;
    this.store.updateFooter({ totals: addUsage(this.store.footerView.totals, usage) });
  }

  private updateContext(session: HarnessSession): void {
    try {
      this.store.updateFooter({ context: session.contextUsage() }, false);
    } catch {
      // Keep the last known usage.
    }
  }
}
