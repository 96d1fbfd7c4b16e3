/**
 * The JSON-lines writer of `--mode json` and `--mode rpc`: one JSON object per line, each the size of what
 * it reports. The event records are `@arbor/session-view`'s protocol ({@link ProtocolEvent}, encoded by its
 * `EventEncoder`); this module adds the writing: consecutive deltas of one block that arrive within
 * {@link DEFAULT_COALESCE_MS} are merged into one line, so a fast stream costs a few lines, not one per token.
 * The records are documented in the CLI reference ("JSON event schema").
 */
import type { AgentMessage } from "@arbor/agent-core";
import type { AssistantMessage } from "@arbor/ai-providers";
import type { HarnessEvent } from "@arbor/harness";
import {
  EventEncoder,
  isDeltaEvent,
  PROTOCOL_EVENT_VERSION,
  type ProtocolDeltaType,
  type ProtocolEvent,
  type ProtocolEventOf,
} from "@arbor/session-view";
import type { AppRuntime } from "../app-runtime.js";

export {
  PROTOCOL_EVENT_SCHEMAS,
  type ProtocolEvent,
  type ProtocolEventOf,
  ProtocolEventSchema,
  type ProtocolEventType,
} from "@arbor/session-view";

/** The version of the event records, in the `session` line (2: words instead of `i`, `d`, `id`, `v`). */
export const JSON_EVENT_SCHEMA_VERSION = PROTOCOL_EVENT_VERSION;

/** Longest time a streamed delta waits to be merged with the next one of its block. */
export const DEFAULT_COALESCE_MS = 25;

/**
 * Any line of output (before `JSON.stringify`): an event record, or a line of a mode (rpc's `response`,
 * json mode's `result`).
 */
export type JsonRecord = { type: string } & Record<string, unknown>;

/** Options of {@link JsonEventWriter}. */
export interface JsonEventWriterOptions {
  /** Merge window for deltas in ms (0: one line per delta). */
  coalesceMs?: number;
}

/**
 * Turns harness events into JSON lines (see the module comment) and writes them through `write`.
 *
 * Contract: `write` receives complete lines (ending with `\n`), in event order; deltas held for merging are
 * written before any other line and by {@link flush}. Never throws for an event it does not know: it
 * writes no line for it.
 */
export class JsonEventWriter {
  private pending: ProtocolEventOf<ProtocolDeltaType> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly encoder = new EventEncoder();
  private readonly coalesceMs: number;

  constructor(
    private readonly write: (line: string) => void,
    options: JsonEventWriterOptions = {},
  ) {
    this.coalesceMs = options.coalesceMs ?? DEFAULT_COALESCE_MS;
  }

  /** Writes one record (after any held delta). */
  record(record: ProtocolEvent | JsonRecord): void {
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
    this.write(`${JSON.stringify(pending)}\n`);
  }

  private delta(record: ProtocolEventOf<ProtocolDeltaType>): void {
    const pending = this.pending;
    if (
      pending !== undefined &&
      pending.type === record.type &&
      pending.contentIndex === record.contentIndex
    ) {
      pending.delta += record.delta;
      return;
    }
    this.flush();
    this.pending = { ...record };
    if (this.coalesceMs <= 0) {
      this.flush();
      return;
    }
    this.timer = setTimeout(() => this.flush(), this.coalesceMs);
  }

  /** Writes the lines of one harness event. */
  handle(event: HarnessEvent): void {
    for (const record of this.encoder.encode(event)) {
      if (isDeltaEvent(record)) this.delta(record);
      else this.record(record);
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
export function sessionRecord(runtime: AppRuntime): ProtocolEventOf<"session"> {
  const state = runtime.session.state;
  return {
    type: "session",
    version: JSON_EVENT_SCHEMA_VERSION,
    sessionId: runtime.session.id,
    cwd: runtime.cwd,
    ...(runtime.sessionFile === undefined ? {} : { file: runtime.sessionFile }),
    model: `${state.model.provider}/${state.model.id}`,
    thinkingLevel: state.thinkingLevel,
    persistent: runtime.persistent,
  };
}
