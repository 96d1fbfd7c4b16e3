/**
 * The one encoder from harness events to protocol event records ({@link ProtocolEvent}): what `--mode json`,
 * `--mode rpc`, the demo server and the in-process view transport all send. A streamed delta becomes a record
 * with only its own text; a running tool's output is diffed, so each `tool_update` carries only what was added.
 */
import type { AssistantEvent, Usage } from "@arbor/ai-providers";
import type { HarnessEvent } from "@arbor/harness";
import { errorText } from "./format.js";
import { contentText } from "./message-text.js";
import type { ProtocolEvent } from "./protocol-events.js";

/** Options of an {@link EventEncoder}. */
export interface EventEncoderOptions {
  /**
   * The usage of a `compaction` or `branch_summary` entry (its summarization call), added to the
   * `compaction_end` and `branch_summary` records when known.
   *
   * Contract: must not throw for an id it does not know (return undefined).
   */
  entryUsage?: (entryId: string) => Partial<Usage> | undefined;
}

/** The text of a tool update, from its content blocks. */
function updateText(update: { content?: readonly { type: string; text?: string }[] }): string {
  return (update.content ?? []).map((block) => (block.type === "text" ? (block.text ?? "") : "")).join("");
}

function textsOf(messages: readonly unknown[]): string[] {
  return messages.map((message) => contentText((message as { content?: unknown }).content));
}

/**
 * Turns harness events into protocol event records. Holds the last output of each running tool, so one
 * encoder serves one stream of events (one session).
 *
 * Contract: {@link encode} never throws; an event it does not know becomes no record.
 */
export class EventEncoder {
  /** The last text of each running tool's updates, to send only what was added. */
  private readonly toolOutput = new Map<string, string>();

  constructor(private readonly options: EventEncoderOptions = {}) {}

  /** The records of one harness event, in order (none for an event no reader needs). */
  encode(event: HarnessEvent): ProtocolEvent[] {
    switch (event.type) {
      case "message_update":
        return this.assistantEvent(event.assistantMessageEvent);
      case "message_start":
        return event.message.role === "assistant" ? [{ type: "message_start", role: "assistant" }] : [];
      case "message_end":
        return [{ type: "message_end", message: event.message }];
      case "agent_start":
      case "turn_start":
        return [{ type: event.type }];
      case "agent_end":
        return [{ type: "agent_end", messages: event.messages.length }];
      case "turn_end":
        return [{ type: "turn_end", stopReason: event.message.stopReason }];
      case "tool_execution_start":
        this.toolOutput.set(event.toolCallId, "");
        return [{ type: "tool_start", toolCallId: event.toolCallId, name: event.toolName, args: event.args }];
      case "tool_execution_update": {
        const text = updateText(event.partialResult);
        const before = this.toolOutput.get(event.toolCallId) ?? "";
        this.toolOutput.set(event.toolCallId, text);
        if (!text.startsWith(before)) return [{ type: "tool_update", toolCallId: event.toolCallId, text }];
        if (text.length === before.length) return [];
        return [{ type: "tool_update", toolCallId: event.toolCallId, delta: text.slice(before.length) }];
      }
      case "tool_execution_end":
        this.toolOutput.delete(event.toolCallId);
        return [
          {
            type: "tool_end",
            toolCallId: event.toolCallId,
            name: event.toolName,
            isError: event.isError,
            content: event.result.content,
            ...(event.result.details === undefined ? {} : { details: event.result.details }),
          },
        ];
      case "queue_update":
        return [
          {
            type: "queue_update",
            steering: textsOf(event.steering),
            followUp: textsOf(event.followUp),
            nextTurn: textsOf(event.nextTurn),
          },
        ];
      case "save_point":
        return [{ type: "save_point", reason: event.reason, entryIds: [...event.entryIds] }];
      case "compaction_start":
        return [{ type: "compaction_start", reason: event.reason, tokensBefore: event.tokensBefore }];
      case "prune":
        return [
          {
            type: "prune",
            entryId: event.entryId,
            count: event.count,
            tokensBefore: event.tokensBefore,
            tokensAfter: event.tokensAfter,
            message: event.message,
          },
        ];
      case "compaction_end":
        return [this.compactionEnd(event)];
      case "branch_summary": {
        const usage = this.usageOf(event.entryId);
        return [
          {
            type: "branch_summary",
            entryId: event.entryId,
            fromId: event.fromId,
            summary: event.summary,
            ...(usage === undefined ? {} : { usage }),
          },
        ];
      }
      case "retry_scheduled":
        return [
          {
            type: "retry_scheduled",
            attempt: event.attempt,
            maxRetries: event.maxRetries,
            delayMs: event.delayMs,
            error: event.errorMessage,
          },
        ];
      case "retry_attempt":
        return [{ type: "retry_attempt", attempt: event.attempt }];
      case "retry_finished":
        return [
          {
            type: "retry_finished",
            success: event.success,
            attempts: event.attempts,
            ...(event.errorMessage === undefined ? {} : { error: event.errorMessage }),
            ...(event.aborted === undefined ? {} : { aborted: event.aborted }),
          },
        ];
      case "hook_error":
        return [{ type: "hook_error", hook: event.hook, error: errorText(event.error) }];
      case "save_retry":
        return [
          {
            type: "save_retry",
            attempt: event.attempt,
            delayMs: event.delayMs,
            timeoutMs: event.timeoutMs,
            error: errorText(event.error),
          },
        ];
      case "save_error":
        return [
          {
            type: "save_error",
            error: errorText(event.error),
            ...(event.attempts === undefined ? {} : { attempts: event.attempts }),
            ...(event.entryCount === undefined ? {} : { entryCount: event.entryCount }),
            ...(event.kept === undefined ? {} : { kept: event.kept.location }),
          },
        ];
      case "run_stopped":
        return [
          {
            type: "run_stopped",
            reason: event.reason,
            message: event.message,
            ...(event.kept === undefined ? {} : { kept: event.kept.location }),
          },
        ];
      case "settled":
        return [{ type: "settled", operation: event.operation }];
      default:
        return [];
    }
  }

  private usageOf(entryId: string): Partial<Usage> | undefined {
    try {
      return this.options.entryUsage?.(entryId);
    } catch {
      return undefined;
    }
  }

  private compactionEnd(event: Extract<HarnessEvent, { type: "compaction_end" }>): ProtocolEvent {
    const { outcome } = event;
    const usage = outcome.kind === "compacted" ? this.usageOf(outcome.entryId) : undefined;
    return {
      type: "compaction_end",
      reason: event.reason,
      outcome: outcome.kind,
      message: outcome.message,
      tokensBefore: event.tokensBefore,
      tokensAfter: event.tokensAfter,
      ...(outcome.kind === "compacted"
        ? { entryId: outcome.entryId, firstKeptEntryId: outcome.firstKeptEntryId, summary: outcome.summary }
        : {}),
      ...(outcome.kind === "failed" ? { error: outcome.message } : {}),
      ...(outcome.kind === "nothing_to_compact" ? { why: outcome.reason } : {}),
      ...(usage === undefined ? {} : { usage }),
    };
  }

  private assistantEvent(event: AssistantEvent): ProtocolEvent[] {
    switch (event.type) {
      case "text_delta":
      case "thinking_delta":
      case "toolcall_delta":
        return [{ type: event.type, contentIndex: event.contentIndex, delta: event.delta }];
      case "text_start":
      case "thinking_start":
      case "text_end":
      case "thinking_end":
      case "toolcall_end":
        return [{ type: event.type, contentIndex: event.contentIndex }];
      case "toolcall_start": {
        const block = event.partial.content[event.contentIndex];
        const call = block?.type === "toolCall" ? block : undefined;
        return [
          {
            type: "toolcall_start",
            contentIndex: event.contentIndex,
            ...(call === undefined ? {} : { toolCallId: call.id, name: call.name }),
          },
        ];
      }
      default:
        // start / done / error: message_start and message_end say it.
        return [];
    }
  }
}
