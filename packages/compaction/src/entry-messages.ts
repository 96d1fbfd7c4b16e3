import {
  compactionSummaryMessage,
  entryMessage,
  type SessionEntry,
  type SessionMessage,
} from "@arbor/session-store";

export { compactionSummaryMessage, entryMessage };

/**
 * How compaction sees a session's entries: which ones put a message into the model's context (the same
 * rule as `Session.buildContext`), and which of those may start the kept part of a compaction.
 */

/** Roles that open a turn: the user (or the application on the user's behalf) speaks. */
const TURN_START_ROLES: ReadonlySet<string> = new Set(["user", "bashExecution", "custom"]);

/**
 * Whether an entry starts a turn: a user, `bashExecution` or `custom` message, a `custom_message` or a
 * `branch_summary` entry. Cutting there keeps whole turns.
 */
export function isTurnStart(entry: SessionEntry): boolean {
  if (entry.type === "custom_message" || entry.type === "branch_summary") return true;
  if (entry.type !== "message") return false;
  return TURN_START_ROLES.has((entry.message as { role: string }).role);
}

/**
 * Whether the kept part of a compaction may start at this entry (docs/reference/compaction.md): a `message` entry
 * of any role but `toolResult` (user, assistant, custom, bashExecution, an application's own role), a
 * `custom_message` or a `branch_summary`. A tool result never starts it: it stays with its call. (Whether a
 * call's result lies beyond the entry is checked separately, by `findCutPoint`.)
 */
export function isCutCandidate(entry: SessionEntry): boolean {
  if (entry.type === "custom_message" || entry.type === "branch_summary") return true;
  if (entry.type !== "message") return false;
  return (entry.message as { role: string }).role !== "toolResult";
}

/** The ids of the tool calls of an assistant message entry (none for any other entry). */
export function toolCallIdsOf(entry: SessionEntry): string[] {
  if (entry.type !== "message") return [];
  const message = entry.message as SessionMessage;
  if (message.role !== "assistant" || !Array.isArray(message.content)) return [];
  const ids: string[] = [];
  for (const block of message.content) if (block.type === "toolCall") ids.push(block.id);
  return ids;
}

/** The `toolCallId` of a tool result entry; undefined for any other entry. */
export function toolResultIdOf(entry: SessionEntry): string | undefined {
  if (entry.type !== "message") return undefined;
  const message = entry.message as SessionMessage;
  return message.role === "toolResult" ? message.toolCallId : undefined;
}
