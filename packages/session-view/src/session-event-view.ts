import type { AssistantMessage, ToolResultMessage, Usage } from "@arbor/ai-providers";
import { StreamingJsonParser } from "@arbor/ai-providers";
import type { HarnessPhase } from "@arbor/harness";
import { clipText, headLines, singleLine } from "./format.js";
import { contentText } from "./message-text.js";
import type { ProtocolEvent, ProtocolEventOf } from "./protocol-events.js";
import { summaryDisplayText } from "./summary-text.js";
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
import { addToTotals } from "./usage-totals.js";
import { type LiveBlock, lastLine, queuedText, toolItemLine } from "./view-slices.js";
import type { ViewStore } from "./view-store.js";

/** What the event view asks of the view model that owns it. */
export interface EventViewHost {
  /**
   * The session's phase now, when the transport can tell it at once.
   *
   * Contract: synchronous; undefined makes the view follow the phase from the records.
   */
  phase(): HarnessPhase | undefined;
  /**
   * Reads the context usage again (after a reply or a compaction); an unknown usage keeps the last one.
   *
   * Contract: never throws.
   */
  updateContext(): void;
}

type DeltaRecord = ProtocolEventOf<"text_delta" | "thinking_delta" | "toolcall_delta">;

/**
 * How one attached session's event records become the view: transcript items, the live slice while a
 * reply streams (its blocks rebuilt from the deltas) and tools run, usage and context in the footer. It keeps
 * what spans records — the tool calls waiting for their results, results already shown, the messages the user
 * queued, a failed reply held until it is known whether it is retried. One per attach. Internal to the view
 * model.
 */
export class SessionEventView {
  private readonly pendingCalls = new Map<string, ToolCallInfo>();
  private readonly shownResults = new Set<string>();
  private readonly queuedNotes: { text: string; note: string }[] = [];
  /** The error notice of a failed reply, held until it is known whether the reply is retried. */
  private failedReply: TranscriptItemInput | undefined;
  /** The phase as the records tell it (used when the transport cannot tell it at once). */
  private recordPhase: HarnessPhase = "idle";
  private phaseBeforeCompaction: HarnessPhase = "idle";
  /** The blocks of the reply being streamed, and the parsers of its tool calls' arguments by block. */
  private blocks: LiveBlock[] = [];
  private readonly argumentParsers = new Map<number, StreamingJsonParser>();
  /** Each running tool's output so far. */
  private readonly toolOutput = new Map<string, string>();

  constructor(
    private readonly view: ViewStore,
    private readonly host: EventViewHost,
  ) {}

  /** Remembers that the user queued `text` (steering or follow-up): its message is marked so when taken. */
  queued(text: string, note: "steer" | "follow-up"): void {
    this.queuedNotes.push({ text, note });
  }

  /**
   * Shows one record of the session. Returns true when the view should read the session's state again (the
   * operation settled, or the session changed).
   */
  handle(event: ProtocolEvent, moveExpected: boolean): boolean {
    const { view } = this;
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
    this.followPhase(event);
    const phase = this.host.phase() ?? this.recordPhase;
    switch (event.type) {
      case "agent_start":
        view.updateLive({ busy: true, phase });
        return false;
      case "message_start":
        this.blocks = [];
        this.argumentParsers.clear();
        view.updateLive({ streaming: [], streamingKey: view.live.streamingKey + 1, busy: true, phase });
        return false;
      case "text_start":
      case "thinking_start":
      case "toolcall_start":
      case "text_end":
      case "thinking_end":
      case "toolcall_end":
      case "text_delta":
      case "thinking_delta":
      case "toolcall_delta":
        this.streamBlock(event);
        view.updateLive({ streaming: this.blocks, phase }, true);
        return false;
      case "message_end":
        this.messageEnd(event.message, phase);
        return false;
      case "tool_start": {
        this.toolOutput.set(event.toolCallId, "");
        const tool = {
          id: event.toolCallId,
          name: event.name,
          argumentLine: toolItemLine(event.args, event.name),
          progress: undefined,
        };
        view.updateLive({ tools: [...view.live.tools, tool] });
        return false;
      }
      case "tool_update": {
        const output = event.text ?? (this.toolOutput.get(event.toolCallId) ?? "") + (event.delta ?? "");
        this.toolOutput.set(event.toolCallId, output);
        const progress = lastLine(output);
        if (progress === undefined) return false;
        view.updateLive({
          tools: view.live.tools.map((tool) => (tool.id === event.toolCallId ? { ...tool, progress } : tool)),
        });
        return false;
      }
      case "tool_end": {
        const call = this.pendingCalls.get(event.toolCallId);
        this.shownResults.add(event.toolCallId);
        this.toolOutput.delete(event.toolCallId);
        view.append(toolItem(event.name, call?.args, event.content, event.isError, event.details));
        view.updateLive({ tools: view.live.tools.filter((tool) => tool.id !== event.toolCallId) });
        return false;
      }
      case "queue_update":
        view.updateLive({ steering: event.steering, followUp: event.followUp });
        return false;
      case "compaction_start":
        view.updateLive({ busy: true, phase: "compaction" });
        return false;
      case "compaction_end":
        this.compactionEnd(event, phase);
        return false;
      case "prune":
        view.notice("info", event.message);
        return false;
      case "branch_summary":
        if (!moveExpected) {
          view.append({
            kind: "branchSummary",
            summary: headLines(summaryDisplayText(event.summary), SUMMARY_LINES, 200),
          });
        }
        this.addUsage(event.usage);
        return false;
      case "retry_scheduled": {
        const seconds = Math.max(1, Math.round(event.delayMs / 1000));
        const attempt = `attempt ${event.attempt} of ${event.maxRetries}`;
        view.notice(
          "warning",
          `${clipText(singleLine(event.error), 200)} — retrying in ${seconds}s (${attempt})`,
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
          const message = event.error ?? "";
          view.notice("error", /^gave up\b/.test(message) ? message : `gave up after ${retries}: ${message}`);
        }
        view.updateLive({ phase, retryLabel: undefined });
        return false;
      case "hook_error":
        view.notice("warning", `hook ${event.hook} failed: ${event.error}`);
        return false;
      case "save_retry":
        // Said once per series: the retries themselves show in the phase.
        if (event.attempt === 1) {
          view.notice(
            "warning",
            `the store refused the save (${singleLine(event.error)}); retrying for up to ${Number((event.timeoutMs / 1000).toFixed(1))} s`,
          );
        }
        return false;
      case "save_error": {
        const attempts =
          event.attempts === undefined || event.attempts < 2 ? "" : ` after ${event.attempts} attempts`;
        view.notice("error", `could not save the session${attempts}: ${singleLine(event.error)}`);
        return false;
      }
      case "run_stopped":
        view.notice("error", event.message);
        return false;
      case "error":
        view.notice("error", event.error);
        return false;
      case "settled":
        this.blocks = [];
        this.toolOutput.clear();
        view.updateLive({ streaming: undefined, tools: [], retryLabel: undefined });
        return true;
      case "session":
        return true;
      default:
        return false;
    }
  }

  /** Follows the phase through the records (what a remote transport cannot tell at once). */
  private followPhase(event: ProtocolEvent): void {
    switch (event.type) {
      case "agent_start":
      case "message_start":
      case "retry_attempt":
      case "retry_finished":
        this.recordPhase = "turn";
        return;
      case "compaction_start":
        this.phaseBeforeCompaction = this.recordPhase;
        this.recordPhase = "compaction";
        return;
      case "compaction_end":
        // Within a run the turn goes on; a compaction asked for stays the phase until it settles.
        if (this.phaseBeforeCompaction === "turn" || this.phaseBeforeCompaction === "retry") {
          this.recordPhase = "turn";
        }
        return;
      case "retry_scheduled":
        this.recordPhase = "retry";
        return;
      case "settled":
        this.recordPhase = "idle";
        return;
      default:
        return;
    }
  }

  /** Applies a block record to the streamed blocks (a new array, and a new object for the block changed). */
  private streamBlock(
    event:
      | DeltaRecord
      | ProtocolEventOf<"text_start" | "thinking_start" | "text_end" | "thinking_end" | "toolcall_end">
      | ProtocolEventOf<"toolcall_start">,
  ): void {
    const index = event.contentIndex;
    const blocks = [...this.blocks];
    for (let at = blocks.length; at < index; at++) blocks[at] = { kind: "text", text: "" };
    const block = blocks[index];
    switch (event.type) {
      case "text_start":
        blocks[index] = { kind: "text", text: "" };
        break;
      case "thinking_start":
        blocks[index] = { kind: "thinking", text: "" };
        break;
      case "toolcall_start":
        this.argumentParsers.set(index, new StreamingJsonParser());
        blocks[index] = { kind: "toolCall", name: event.name ?? "", args: {} };
        break;
      case "text_delta":
        blocks[index] = { kind: "text", text: (block?.kind === "text" ? block.text : "") + event.delta };
        break;
      case "thinking_delta":
        blocks[index] = {
          kind: "thinking",
          text: (block?.kind === "thinking" ? block.text : "") + event.delta,
        };
        break;
      case "toolcall_delta": {
        const parser = this.argumentParsers.get(index) ?? new StreamingJsonParser();
        this.argumentParsers.set(index, parser);
        parser.push(event.delta);
        const name = block?.kind === "toolCall" ? block.name : "";
        blocks[index] = { kind: "toolCall", name, args: parser.value ?? {} };
        break;
      }
      case "toolcall_end": {
        const parser = this.argumentParsers.get(index);
        if (parser !== undefined && block?.kind === "toolCall") {
          blocks[index] = { ...block, args: parser.finish().value ?? {} };
        }
        break;
      }
      default:
        blocks[index] ??= { kind: "text", text: "" };
    }
    this.blocks = blocks;
  }

  private messageEnd(message: ViewMessage, phase: HarnessPhase): void {
    const { view } = this;
    const role = (message as { role?: unknown }).role;
    if (role === "assistant") {
      const reply = message as AssistantMessage;
      this.blocks = [];
      this.argumentParsers.clear();
      for (const [id, call] of toolCallsOf(reply)) this.pendingCalls.set(id, call);
      const blocks = assistantBlocks(reply);
      if (blocks.length > 0) view.append({ kind: "assistant", blocks });
      for (const item of assistantNotices(reply)) view.append(item);
      const notice = assistantEndNotice(reply);
      // A failed reply may be retried: its error then shows in the retry notice instead (see handle()).
      if (notice !== undefined && reply.stopReason === "error") this.failedReply = notice;
      else if (notice !== undefined) view.append(notice);
      view.updateFooter({ totals: addToTotals(view.footer.totals, reply.usage) });
      this.host.updateContext();
      view.updateLive({ streaming: undefined, phase });
      return;
    }
    if (role === "toolResult") {
      const result = message as ToolResultMessage;
      if (!this.shownResults.delete(result.toolCallId)) {
        const call = this.pendingCalls.get(result.toolCallId);
        view.append(
          toolItem(call?.name ?? result.toolName, call?.args, result.content, result.isError, result.details),
        );
      }
      this.pendingCalls.delete(result.toolCallId);
      return;
    }
    if (role === "user") {
      const content = (message as { content: unknown }).content;
      const queued = queuedText(message);
      const index = this.queuedNotes.findIndex((note) => note.text === queued);
      const note = index === -1 ? undefined : this.queuedNotes.splice(index, 1)[0]!.note;
      view.append({ kind: "user", text: userDisplayText(contentText(content)), note });
      return;
    }
    for (const item of itemsOfMessage(message, this.pendingCalls)) view.append(item);
  }

  private compactionEnd(event: ProtocolEventOf<"compaction_end">, phase: HarnessPhase): void {
    const { view } = this;
    if (event.outcome === "compacted") {
      const { tokensBefore, tokensAfter } = event;
      view.append({ kind: "compaction", tokensBefore, tokensAfter, reason: event.reason });
      view.updateFooter({ lastCompaction: { tokensBefore, tokensAfter } });
      this.addUsage(event.usage);
    } else {
      // The harness says what happened in plain words.
      const level = event.outcome === "failed" ? "error" : event.outcome === "aborted" ? "warning" : "info";
      view.notice(level, event.message);
    }
    this.host.updateContext();
    view.updateLive({ phase });
  }

  private addUsage(usage: Partial<Usage> | undefined): void {
    if (usage === undefined) return;
    this.view.updateFooter({ totals: addToTotals(this.view.footer.totals, usage) });
  }
}
