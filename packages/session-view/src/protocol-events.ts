/**
 * The event records of Arbor's protocol: what `--mode json`, `--mode rpc` and the demo server's event stream
 * write, one JSON object per line, and what a view model reads back. One TypeBox schema per record `type`
 * ({@link PROTOCOL_EVENT_SCHEMAS}), their union {@link ProtocolEventSchema}, and the static types
 * {@link ProtocolEvent} and {@link ProtocolEventOf}. Fields are words (`contentIndex`, `delta`, `toolCallId`,
 * `sessionId`, `version`), never abbreviations.
 *
 * Each record is the size of what it reports: a streamed delta carries only its own text, never the message
 * built so far; a whole message is written once, at its `message_end`. Browser-safe (no Node built-in).
 */
import type { Static, ToolResultMessage, TSchema, Usage } from "@arbor/ai-providers";
import { Type } from "@arbor/ai-providers";
import type { ViewMessage } from "./transcript-items.js";

/**
 * The version of the event records, in the `session` record. 2: the records use words (`contentIndex`,
 * `delta`, `toolCallId`, `sessionId`, `version`) where version 1 used `i`, `d`, `id` and `v`.
 */
export const PROTOCOL_EVENT_VERSION = 2;

function record<T extends string, P extends Record<string, TSchema>>(
  type: T,
  properties: P,
  description: string,
) {
  return Type.Object({ type: Type.Literal(type), ...properties }, { description });
}

const ContentIndex = Type.Integer({ minimum: 0, description: "the block's index in the message" });
const Delta = Type.String({ description: "the text added since the last record of this block" });
const ToolCallId = Type.String({ description: "the id of the tool call" });
const ErrorText = Type.String({ description: "what went wrong, in words" });
const CompactionReason = Type.Union([
  Type.Literal("threshold"),
  Type.Literal("overflow"),
  Type.Literal("manual"),
]);
/** Usage of a summarization call (a compaction or a branch summary), when the writer knows it. */
const SummaryUsage = Type.Optional(
  Type.Unsafe<Partial<Usage>>(
    Type.Object({}, { additionalProperties: true, description: "token usage and cost" }),
  ),
);
/** A whole message of the transcript (user, assistant, toolResult, summaries, custom). */
const Message = Type.Unsafe<ViewMessage>(
  Type.Object({ role: Type.String() }, { additionalProperties: true, description: "a whole message" }),
);
/** A tool result's content blocks. */
const ResultContent = Type.Unsafe<ToolResultMessage["content"]>(
  Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }), {
    description: "the result's content blocks",
  }),
);

function blockRecord<T extends string>(type: T, description: string) {
  return record(type, { contentIndex: ContentIndex }, description);
}

function deltaRecord<T extends string>(type: T, description: string) {
  return record(type, { contentIndex: ContentIndex, delta: Delta }, description);
}

/** The schema of each event record, by `type`. */
export const PROTOCOL_EVENT_SCHEMAS = {
  session: record(
    "session",
    {
      version: Type.Integer({ description: "the version of the event records (PROTOCOL_EVENT_VERSION)" }),
      sessionId: Type.String(),
      cwd: Type.String(),
      file: Type.Optional(Type.String({ description: "the session file, when the session is saved to one" })),
      model: Type.String({ description: "provider/id" }),
      thinkingLevel: Type.String(),
      persistent: Type.Boolean(),
    },
    "the first record, and again whenever the session changes",
  ),
  agent_start: record("agent_start", {}, "a run starts"),
  agent_end: record(
    "agent_end",
    { messages: Type.Integer({ minimum: 0, description: "how many messages the run added" }) },
    "a run ends",
  ),
  turn_start: record("turn_start", {}, "a turn (one model call and its tools) starts"),
  turn_end: record("turn_end", { stopReason: Type.String() }, "a turn ends"),
  message_start: record(
    "message_start",
    { role: Type.Literal("assistant") },
    "the reply starts streaming (its blocks follow)",
  ),
  message_end: record("message_end", { message: Message }, "a message is complete: the whole message, once"),
  text_start: blockRecord("text_start", "a text block starts"),
  text_delta: deltaRecord("text_delta", "text added to a text block"),
  text_end: blockRecord("text_end", "a text block is complete"),
  thinking_start: blockRecord("thinking_start", "a thinking block starts"),
  thinking_delta: deltaRecord("thinking_delta", "text added to a thinking block"),
  thinking_end: blockRecord("thinking_end", "a thinking block is complete"),
  toolcall_start: record(
    "toolcall_start",
    {
      contentIndex: ContentIndex,
      toolCallId: Type.Optional(ToolCallId),
      name: Type.Optional(Type.String({ description: "the tool called" })),
    },
    "a tool call starts streaming",
  ),
  toolcall_delta: deltaRecord("toolcall_delta", "a piece of a tool call's arguments (JSON text)"),
  toolcall_end: blockRecord("toolcall_end", "a tool call's arguments are complete"),
  tool_start: record(
    "tool_start",
    {
      toolCallId: ToolCallId,
      name: Type.String(),
      args: Type.Unknown({ description: "the call's arguments" }),
    },
    "a tool starts executing",
  ),
  tool_update: record(
    "tool_update",
    {
      toolCallId: ToolCallId,
      delta: Type.Optional(Type.String({ description: "output added since the last update" })),
      text: Type.Optional(Type.String({ description: "the whole visible output, when its start was cut" })),
    },
    "a running tool reported output (`delta` or `text`)",
  ),
  tool_end: record(
    "tool_end",
    {
      toolCallId: ToolCallId,
      name: Type.String(),
      isError: Type.Boolean(),
      content: ResultContent,
      details: Type.Optional(
        Type.Unknown({ description: "the result's details, when it has any (an edit's diff, a write's)" }),
      ),
    },
    "a tool finished: its result's content and details (the toolResult message that follows repeats them)",
  ),
  queue_update: record(
    "queue_update",
    {
      steering: Type.Array(Type.String(), { description: "the texts of the steering messages waiting" }),
      followUp: Type.Array(Type.String(), { description: "the texts of the follow-up messages waiting" }),
      nextTurn: Type.Array(Type.String(), {
        description: "the texts of the messages held for the next turn",
      }),
    },
    "the queues of messages waiting changed",
  ),
  save_point: record(
    "save_point",
    {
      reason: Type.Union([
        Type.Literal("tool_calls"),
        Type.Literal("turn_end"),
        Type.Literal("agent_end"),
        Type.Literal("operation"),
      ]),
      entryIds: Type.Array(Type.String(), { description: "the entries written to the store, in order" }),
    },
    "entries were written to the store",
  ),
  compaction_start: record(
    "compaction_start",
    { reason: CompactionReason, tokensBefore: Type.Number() },
    "a compaction starts summarizing",
  ),
  prune: record(
    "prune",
    {
      entryId: Type.String(),
      count: Type.Integer({ minimum: 0, description: "tool results now shown as stubs" }),
      tokensBefore: Type.Number(),
      tokensAfter: Type.Number(),
      message: Type.String({ description: "what happened, in words" }),
    },
    "old tool results were pruned to recallable stubs",
  ),
  compaction_end: record(
    "compaction_end",
    {
      reason: CompactionReason,
      outcome: Type.Union([
        Type.Literal("compacted"),
        Type.Literal("nothing_to_compact"),
        Type.Literal("cancelled"),
        Type.Literal("aborted"),
        Type.Literal("failed"),
      ]),
      message: Type.String({ description: "what happened, in words" }),
      tokensBefore: Type.Number(),
      tokensAfter: Type.Number(),
      entryId: Type.Optional(Type.String()),
      firstKeptEntryId: Type.Optional(Type.String()),
      summary: Type.Optional(Type.String()),
      error: Type.Optional(ErrorText),
      why: Type.Optional(Type.String({ description: "why there was nothing to compact" })),
      usage: SummaryUsage,
    },
    "a compaction ended",
  ),
  branch_summary: record(
    "branch_summary",
    {
      entryId: Type.String(),
      fromId: Type.String(),
      summary: Type.String(),
      usage: SummaryUsage,
    },
    "a branch summary was written",
  ),
  retry_scheduled: record(
    "retry_scheduled",
    { attempt: Type.Integer(), maxRetries: Type.Integer(), delayMs: Type.Number(), error: ErrorText },
    "a failed model call will be retried",
  ),
  retry_attempt: record("retry_attempt", { attempt: Type.Integer() }, "a retry starts"),
  retry_finished: record(
    "retry_finished",
    {
      success: Type.Boolean(),
      attempts: Type.Integer(),
      error: Type.Optional(ErrorText),
      aborted: Type.Optional(Type.Boolean()),
    },
    "a series of retries ended",
  ),
  hook_error: record("hook_error", { hook: Type.String(), error: ErrorText }, "a hook failed"),
  save_retry: record(
    "save_retry",
    { attempt: Type.Integer(), delayMs: Type.Number(), timeoutMs: Type.Number(), error: ErrorText },
    "the store refused a save; it is tried again",
  ),
  save_error: record(
    "save_error",
    {
      error: ErrorText,
      attempts: Type.Optional(Type.Integer()),
      entryCount: Type.Optional(Type.Integer()),
      kept: Type.Optional(Type.String({ description: "where what was not stored is kept" })),
    },
    "a save failed",
  ),
  run_stopped: record(
    "run_stopped",
    {
      reason: Type.Literal("save_failed"),
      message: Type.String({ description: "what was kept and where, in words" }),
      kept: Type.Optional(Type.String()),
    },
    "a run ended early",
  ),
  settled: record(
    "settled",
    {
      operation: Type.Union([
        Type.Literal("prompt"),
        Type.Literal("continue"),
        Type.Literal("compact"),
        Type.Literal("navigateTree"),
        Type.Literal("mergeBranch"),
        Type.Literal("fork"),
      ]),
    },
    "an operation finished and the session is idle",
  ),
  notice: record(
    "notice",
    {
      level: Type.Union([Type.Literal("info"), Type.Literal("warning"), Type.Literal("error")]),
      message: Type.String(),
      source: Type.String({
        description: "who sent it: an extension's file, or `/name` for a slash command",
      }),
    },
    "a notice of an extension or of a slash command typed as a prompt",
  ),
  permission_request: record(
    "permission_request",
    {
      requestId: Type.String({ description: "answer it with the permission_reply command" }),
      toolCallId: ToolCallId,
      toolName: Type.String(),
      summary: Type.String({ description: "the command, path or arguments, in a few words" }),
      suggestedRule: Type.String({ description: 'the rule "for this session" adds, e.g. bash(npm test)' }),
      mode: Type.String({ description: "the permission mode: auto, ask, edits or plan" }),
    },
    "a tool call waits for the user's permission (see docs/permissions.md)",
  ),
  permission_decision: record(
    "permission_decision",
    {
      requestId: Type.Optional(Type.String({ description: "the request it answers, when one was asked" })),
      toolCallId: ToolCallId,
      toolName: Type.String(),
      summary: Type.String(),
      decision: Type.Union([Type.Literal("allowed"), Type.Literal("denied")]),
      by: Type.Union([
        Type.Literal("user"),
        Type.Literal("session"),
        Type.Literal("rule"),
        Type.Literal("mode"),
      ]),
      scope: Type.Optional(Type.Union([Type.Literal("once"), Type.Literal("session")])),
      rule: Type.Optional(Type.String({ description: "the rule that decided, or the one the answer added" })),
      mode: Type.String(),
      reason: Type.Optional(
        Type.String({ description: "why the call was refused (what the model was told)" }),
      ),
    },
    "a permission decision was recorded in the session",
  ),
  error: record(
    "error",
    {
      command: Type.Optional(Type.String({ description: "the command whose run failed" })),
      id: Type.Optional(Type.Union([Type.String(), Type.Number()], { description: "the command's id" })),
      error: ErrorText,
    },
    "a run failed after its command was answered",
  ),
} as const;

/** The `type` of an event record. */
export type ProtocolEventType = keyof typeof PROTOCOL_EVENT_SCHEMAS;

/** The union of every event record's schema. */
export const ProtocolEventSchema = Type.Union(Object.values(PROTOCOL_EVENT_SCHEMAS));

/** One event record. */
export type ProtocolEvent = Static<typeof ProtocolEventSchema>;

/** The event record of one `type`. */
export type ProtocolEventOf<K extends ProtocolEventType> = Static<(typeof PROTOCOL_EVENT_SCHEMAS)[K]>;

/** The record types that carry a streamed piece of a block. */
export type ProtocolDeltaType = "text_delta" | "thinking_delta" | "toolcall_delta";

/** Whether a record is a streamed delta (the records a writer may merge). */
export function isDeltaEvent(event: ProtocolEvent): event is ProtocolEventOf<ProtocolDeltaType> {
  return event.type === "text_delta" || event.type === "thinking_delta" || event.type === "toolcall_delta";
}
