import type { SessionEntry } from "@arbor/session-store";
import { entryMessage } from "./entry-messages.js";
import { FileOperationTracker, formatFileOperations } from "./file-operations.js";
import { truncateMiddle } from "./serialize.js";

/**
 * The text of a merge: a branch's conclusion folded into another branch as a `branch_summary` entry (the
 * harness's `mergeBranch()`). Beside the compaction fallback, the merge has a summary of its own that needs
 * no model: the branch's last assistant text and its file operations.
 */

/** Longest last-assistant text kept in a deterministic merge summary. */
const MAX_MERGE_DIGEST_CHARS = 6_000;

/** The file operations of a branch's entries (failed tool calls skipped; earlier summaries' lists kept). */
function branchFiles(entries: readonly SessionEntry[]): string {
  const failed = new Set<string>();
  for (const entry of entries) {
    const message = entryMessage(entry);
    if (message?.role === "toolResult" && message.isError) failed.add(message.toolCallId);
  }
  const files = new FileOperationTracker();
  for (const entry of entries) {
    if (entry.type === "branch_summary" || entry.type === "compaction") files.addDetails(entry.details);
    const message = entryMessage(entry);
    if (message !== undefined) files.addMessage(message, failed);
  }
  return formatFileOperations(files.result());
}

/**
 * The merge summary without a model: a marker line, the branch's last assistant text (cut in the middle to
 * 6,000 characters), and its file operations.
 *
 * Contract: pure; deterministic; never throws.
 */
export function deterministicMergeSummary(entries: readonly SessionEntry[], sourceLeafId: string): string {
  let last: string | undefined;
  for (let index = entries.length - 1; index >= 0 && last === undefined; index--) {
    const message = entryMessage(entries[index]!);
    if (message?.role !== "assistant") continue;
    const text = message.content
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("\n")
      .trim();
    if (text !== "") last = text;
  }
  const count = `${entries.length} ${entries.length === 1 ? "entry" : "entries"}`;
  return (
    [
      `[Merged without a model: the last assistant message of branch ${sourceLeafId} and its file operations. ` +
        `The branch's ${count} are still in the session log.]`,
      "",
      "## Last assistant message",
      last === undefined
        ? "(none: the branch holds no assistant text)"
        : truncateMiddle(last, MAX_MERGE_DIGEST_CHARS),
    ].join("\n") + branchFiles(entries)
  );
}

/** What {@link formatMergeSummary} puts together. */
export interface MergeSummaryParts {
  /** The last entry of the merged branch. */
  sourceLeafId: string;
  /** Where the merged branch left the target's (`null`: at the start). */
  commonAncestorId: string | null;
  /** A note put first, like a merge commit's message (left out when empty). */
  message?: string | undefined;
  /** The summary of the merged branch (a model's, a hook's, or {@link deterministicMergeSummary}). */
  body: string;
}

/**
 * The text of a merge's `branch_summary` entry: a heading naming the merged branch and where it left, the
 * note, then the body — separated by blank lines.
 *
 * Contract: pure; never throws.
 */
export function formatMergeSummary(parts: MergeSummaryParts): string {
  const heading =
    `Merged from branch ${parts.sourceLeafId}, which left this conversation ` +
    `${parts.commonAncestorId === null ? "at its start" : `after ${parts.commonAncestorId}`}.`;
  const note = parts.message === undefined || parts.message.trim() === "" ? [] : [parts.message.trim()];
  return [heading, ...note, parts.body].join("\n\n");
}
