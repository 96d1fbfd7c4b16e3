/**
 * The compact JSON-lines event schema of `--mode json` and `--mode rpc`: one JSON object per line, each the
 * size of what it reports. A streamed delta carries only its own text (`{"type":"text_delta","i":0,"d":"…"}`),
 * never the message built so far; a whole message is written once, at its `message_end`. Consecutive deltas of
 * one block that arrive within {@link DEFAULT_COALESCE_MS} are merged into one line, so a fast stream costs
 * a few lines, not one per token. The schema is documented in the CLI's README ("JSON event schema").
 */
import type { AgentMessage } from "@arbor/agent-core";
import type { AssistantEvent, AssistantMessage } from "@arbor/ai-providers";
import type { HarnessEvent } from "@arbor/harness";
import type { AppRuntime } from "../app-runtime.js";

/** The version of the event schema, in the `session` line. */
export const JSON_EVENT_SCHEMA_VERSION = 1;

/** Longest time a streamed delta waits to be merged with the next one of its block. */
export const DEFAULT_COALESCE_MS = 25;

/** One line of output (before `JSON.stringify`). */
export type JsonRecord = { type: string } & Record<string, unknown>;

/** Options of {@link JsonEventWriter}. */
export interface JsonEventWriterOptions {
  /** Merge window for deltas in ms (0: one line per delta). */
  coalesceMs?: number;
}

type DeltaType = "text_delta" | "thinking_delta" | "toolcall_delta";

interface PendingDelta {
  type: DeltaType;
  index: number;
  text: string;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The text of a tool update, from its content blocks. */
function updateText(update: { content?: readonly { type: string; text?: string }[] }): string {
  return (update.content ?? []).map((block) => (block.type === "text" ? (block.text ?? "") : "")).join("");
}

/**
 * Turns harness events into JSON lines (see the module comment) and writes them through `write`.
 *
 * Contract: `write` receives complete lines (ending with `\n`), in event order; deltas held for merging are
 * written before any other line and by {@link flush}. Never throws for an event it does not know: it is
 * written as `{"type":<its type>}`.
 */
export class JsonEventWriter {
  private pending: PendingDelta | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The last text of each running tool's updates, to send only what was added. */
  private readonly toolOutput = new Map<string, string>();
  private readonly coalesceMs: number;

  constructor(
    private readonly write: (line: string) => void,
    options: JsonEventWriterOptions = {},
  ) {
    this.coalesceMs = options.coalesceMs ?? DEFAULT_COALESCE_MS;
  }

  /** Writes one record (after any held delta). */
  record(record: JsonRecord): void {
    this.flush();
    this.write(`${JSON.stringify(record)}\n`);
  }

  /** Writes the held delta, if any. */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    this.write(`${JSON.stringify({ type: pending.type, i: pending.index, d: pending.text })}\n`);
  }

  private delta(type: DeltaType, index: number, text: string): void {
    const pending = this.pending;
    if (pending !== undefined && pending.type === type && pending.index === index) {
      pending.text += text;
      return;
    }
    this.flush();
    this.pending = { type, index, text };
    if (this.coalesceMs <= 0) {
      this.flush();
      return;
    }
    this.timer = setTimeout(() => this.flush(), this.coalesceMs);
  }

  /** Writes the lines of one harness event. */
  handle(event: HarnessEvent): void {
    switch (event.type) {
      case "message_update":
        this.assistantEvent(event.assistantMessageEvent);
        return;
      case "message_start":
        if (event.message.role === "assistant") this.record({ type: "message_start", role: "assistant" });
        return;
      case "message_end":
        this.record({ type: "message_end", message: event.message as AgentMessage });
        return;
      case "agent_start":
      case "turn_start":
        this.record({ type: event.type });
        return;
      case "agent_end":
        this.record({ type: "agent_end", messages: event.messages.length });
        return;
      case "turn_end":
        this.record({ type: "turn_end", stopReason: event.message.stopReason });
        return;
      case "tool_execution_start":
        this.toolOutput.set(event.toolCallId, "");
        this.record({ type: "tool_start", id: event.toolCallId, name: event.toolName, args: event.args });
        return;
      case "tool_execution_update": {
        const text = updateText(event.partialResult);
        const before = this.toolOutput.get(event.toolCallId) ?? "";
        this.toolOutput.set(event.toolCallId, text);
        if (text.startsWith(before)) {
          if (text.length > before.length) {
            this.record({ type: "tool_update", id: event.toolCallId, d: text.slice(before.length) });
          }
        } else {
          this.record({ type: "tool_update", id: event.toolCallId, text });
        }
        return;
      }
      case "tool_execution_end":
        this.toolOutput.delete(event.toolCallId);
        this.record({ type: "tool_end", id: event.toolCallId, name: event.toolName, isError: event.isError });
        return;
      case "queue_update":
        this.record({
          type: "queue_update",
          steering: event.steering.length,
          followUp: event.followUp.length,
          nextTurn: event.nextTurn.length,
        });
        return;
      case "save_point":
        this.record({ type: "save_point", reason: event.reason, entryIds: event.entryIds });
        return;
      case "compaction_start":
        this.record({ type: "compaction_start", reason: event.reason, tokensBefore: event.tokensBefore });
        return;
      case "prune":
        this.record({
          type: "prune",
          entryId: event.entryId,
          count: event.count,
          tokensBefore: event.tokensBefore,
          tokensAfter: event.tokensAfter,
          message: event.message,
        });
        return;
      case "compaction_end": {
        const outcome = event.outcome;
        this.record({
          type: "compaction_end",
          reason: event.reason,
          outcome: outcome.kind,
          tokensBefore: event.tokensBefore,
          tokensAfter: event.tokensAfter,
          message: outcome.message,
          ...(outcome.kind === "compacted"
            ? {
                entryId: outcome.entryId,
                firstKeptEntryId: outcome.firstKeptEntryId,
                summary: outcome.summary,
              }
            : {}),
          ...(outcome.kind === "failed" ? { error: outcome.message } : {}),
          ...(outcome.kind === "nothing_to_compact" ? { why: outcome.reason } : {}),
        });
        return;
      }
      case "branch_summary":
        this.record({
          type: "branch_summary",
          entryId: event.entryId,
          fromId: event.fromId,
          summary: event.summary,
        });
        return;
      case "retry_scheduled":
        this.record({
          type: "retry_scheduled",
          attempt: event.attempt,
          maxRetries: event.maxRetries,
          delayMs: event.delayMs,
          error: event.errorMessage,
        });
        return;
      case "retry_attempt":
        this.record({ type: "retry_attempt", attempt: event.attempt });
        return;
      case "retry_finished":
        this.record({
          type: "retry_finished",
          success: event.success,
          attempts: event.attempts,
          ...(event.errorMessage === undefined ? {} : { error: event.errorMessage }),
        });
        return;
      case "hook_error":
        this.record({ type: "hook_error", hook: event.hook, error: errorText(event.error) });
        return;
      case "save_retry":
        this.record({
          type: "save_retry",
          attempt: event.attempt,
          delayMs: event.delayMs,
          timeoutMs: event.timeoutMs,
          error: errorText(event.error),
        });
        return;
      case "save_error":
        this.record({
          type: "save_error",
          error: errorText(event.error),
          ...(event.attempts === undefined ? {} : { attempts: event.attempts }),
          ...(event.entryCount === undefined ? {} : { entryCount: event.entryCount }),
          ...(event.kept === undefined ? {} : { kept: event.kept.location }),
        });
        return;
      case "run_stopped":
        this.record({
          type: "run_stopped",
          reason: event.reason,
          message: event.message,
          ...(event.kept === undefined ? {} : { kept: event.kept.location }),
        });
        return;
      case "settled":
        this.record({ type: "settled", operation: event.operation });
        return;
      default:
        this.record({ type: (event as { type: string }).type });
    }
  }

  private assistantEvent(event: AssistantEvent): void {
    switch (event.type) {
      case "text_delta":
      case "thinking_delta":
      case "toolcall_delta":
        this.delta(event.type, event.contentIndex, event.delta);
        return;
      case "text_start":
      case "thinking_start":
      case "text_end":
      case "thinking_end":
        this.record({ type: event.type, i: event.contentIndex });
        return;
      case "toolcall_start": {
        const block = event.partial.content[event.contentIndex];
        const call = block?.type === "toolCall" ? block : undefined;
        this.record({ type: "toolcall_start", i: event.contentIndex, id: call?.id, name: call?.name });
        return;
      }
      case "toolcall_end":
        this.record({ type: "toolcall_end", i: event.contentIndex });
        return;
      default:
        // start / done / error: message_start and message_end say it.
        return;
    }
  }
}

/** The last assistant message of a transcript, if any. */
export function lastAssistantMessage(messages: readonly AgentMessage[]): AssistantMessage | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as { role?: string };
    if (message.role === "assistant") return message as AssistantMessage;
  }
  return undefined;
}

/** The text blocks of an assistant message, joined. */
export function assistantText(message: AssistantMessage): string {
  return message.content
    .filter((block) => block.type === "text")
    .map((block) => (block as { text: string }).text)
    .join("");
}

/** The `session` record every JSON stream starts with (and `--mode rpc` repeats when the session changes). */
export function sessionRecord(runtime: AppRuntime): JsonRecord {
  const state = runtime.session.state;
  return {
    type: "session",
    v: JSON_EVENT_SCHEMA_VERSION,
    id: runtime.session.id,
    cwd: runtime.cwd,
    ...(runtime.sessionFile === undefined ? {} : { file: runtime.sessionFile }),
    model: `${state.model.provider}/${state.model.id}`,
    thinkingLevel: state.thinkingLevel,
    persistent: runtime.persistent,
  };
}
