import type {
  BranchSummaryMessage,
  CompactionSummaryMessage,
  CustomMessage,
  SessionEntry,
  SessionMessage,
} from "@arbor/session-store";

/**
 * How compaction sees a session's entries: which ones put a message into the model's context (the same
 * rule as `Session.buildContext`), and which of those may start the kept part of a compaction.
 */

/** Epoch milliseconds of an ISO timestamp; 0 when it cannot be read. */
export function epochMilliseconds(timestamp: string): number {
  const value = Date.parse(timestamp);
  return Number.isNaN(value) ? 0 : value;
}

/**
 * The context message of an entry, as `Session.buildContext` would produce it: a `message` entry's
 * message, a `custom_message` as a `custom` message, a non-empty `branch_summary` as a `branchSummary`
 * message; undefined for every other entry (settings, labels, leaf moves, `custom`, compactions).
 */
export function entryMessage(entry: SessionEntry): SessionMessage | undefined {
  switch (entry.type) {
    case "message":
      return entry.message as SessionMessage;
    case "custom_message": {
      const message: CustomMessage = {
        role: "custom",
        customType: entry.customType,
        content: entry.content,
        display: entry.display,
        timestamp: epochMilliseconds(entry.timestamp),
      };
      if (entry.details !== undefined) message.details = entry.details;
      return message;
    }
    case "branch_summary": {
      if (entry.summary === "") return undefined;
      const message: BranchSummaryMessage = {
        role: "branchSummary",
        summary: entry.summary,
        fromId: entry.fromId,
        timestamp: epochMilliseconds(entry.timestamp),
      };
      return message;
    }
    default:
      return undefined;
  }
}

/** The `compactionSummary` message of a compaction entry (what the model sees in its place). */
export function compactionSummaryMessage(entry: {
  summary: string;
  tokensBefore: number;
  timestamp: string;
}): CompactionSummaryMessage {
  return {
    role: "compactionSummary",
    summary: entry.summary,
    tokensBefore: entry.tokensBefore,
    timestamp: epochMilliseconds(entry.timestamp),
  };
}

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
 * Whether the kept part of a compaction may start at this entry (seed 000, section 5.2): a `message` entry
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
