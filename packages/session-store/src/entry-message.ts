import type {
  BranchSummaryMessage,
  CompactionSummaryMessage,
  CustomMessage,
  SessionMessage,
} from "./context-messages.js";
import { epochMilliseconds } from "./context-messages.js";
import type { CompactionEntry, SessionEntry } from "./entries.js";

/**
 * The context message of one entry, as `Session.buildContext()` puts it in the model's context: a
 * `message` entry's message, a `custom_message` as a `custom` message, a non-empty `branch_summary` as
 * a `branchSummary` message; `undefined` for every other entry (settings, labels, leaf moves, `custom`,
 * compactions — see {@link compactionSummaryMessage}). Compaction uses the same rule to plan.
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

/** The `compactionSummary` message that stands in the context for a compaction entry. */
export function compactionSummaryMessage(
  entry: Pick<CompactionEntry, "summary" | "tokensBefore" | "timestamp">,
): CompactionSummaryMessage {
  return {
    role: "compactionSummary",
    summary: entry.summary,
    tokensBefore: entry.tokensBefore,
    timestamp: epochMilliseconds(entry.timestamp),
  };
}
