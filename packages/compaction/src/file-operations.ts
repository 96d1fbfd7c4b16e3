import type { SessionMessage } from "@arbor/session-store";

/**
 * File-operation tracking: which files the summarized history read and which it changed, taken from the
 * tool calls of assistant messages and carried over from earlier summaries' `details`, so that the lists
 * stay complete across any number of compactions.
 */

/** Files read and files modified. A file that was read and modified is listed as modified only. */
export interface FileOperations {
  /** Files only read, sorted. */
  readFiles: string[];
  /** Files written or edited, sorted. */
  modifiedFiles: string[];
}

/** Tool names (lower case) whose `path` argument is a file read. */
const READ_TOOLS: ReadonlySet<string> = new Set(["read", "read_file"]);

/** Tool names (lower case) whose `path` argument is a file written or edited. */
const MODIFY_TOOLS: ReadonlySet<string> = new Set([
  "write",
  "edit",
  "multiedit",
  "multi_edit",
  "write_file",
  "edit_file",
]);

/** Longest file list written into a summary's text; the details keep every file. */
const MAX_LISTED_FILES = 100;

/** The file a tool call's arguments name: `path`, `file_path` or `filePath` (a non-empty string). */
function pathArgument(args: unknown): string | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const record = args as Record<string, unknown>;
  for (const key of ["path", "file_path", "filePath"]) {
    const value = record[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** Collects file operations; {@link FileOperationTracker.result} gives the lists. */
export class FileOperationTracker {
  private readonly read = new Set<string>();
  private readonly modified = new Set<string>();

  /**
   * Adds the `readFiles` / `modifiedFiles` of an earlier compaction's or branch summary's `details` (any
   * shape is accepted; what is not an array of strings is ignored).
   */
  addDetails(details: unknown): void {
    if (typeof details !== "object" || details === null) return;
    const record = details as Record<string, unknown>;
    for (const file of stringArray(record.readFiles)) this.read.add(file);
    for (const file of stringArray(record.modifiedFiles)) this.modified.add(file);
  }

  /**
   * Adds the file operations of an assistant message's tool calls: `read` / `read_file` read a file;
   * `write`, `edit`, `multi_edit` (and `*_file` spellings) change one — names compared case-insensitively,
   * the file taken from `path`, `file_path` or `filePath`. Calls whose id is in `failedCallIds` (their
   * result was an error) are skipped: a failed edit changed nothing.
   */
  addMessage(message: SessionMessage, failedCallIds?: ReadonlySet<string>): void {
    if (message.role !== "assistant" || !Array.isArray(message.content)) return;
    for (const block of message.content) {
      if (block.type !== "toolCall" || failedCallIds?.has(block.id) === true) continue;
      const path = pathArgument(block.arguments);
      if (path === undefined) continue;
      const name = typeof block.name === "string" ? block.name.toLowerCase() : "";
      if (READ_TOOLS.has(name)) this.read.add(path);
      else if (MODIFY_TOOLS.has(name)) this.modified.add(path);
    }
  }

  /** The lists: modified files, and files read but not modified, each sorted. */
  result(): FileOperations {
    const modifiedFiles = [...this.modified].sort();
    const readFiles = [...this.read].filter((file) => !this.modified.has(file)).sort();
    return { readFiles, modifiedFiles };
  }
}

/**
 * The file lists as appended to a summary (docs/reference/compaction.md): a blank line, then
 * `Files read: a, b` and `Files modified: c` (each line only when its list is not empty; at most 100 files
 * per line, then `(+N more)`). Empty when both lists are empty.
 */
export function formatFileOperations(operations: FileOperations): string {
  const lines: string[] = [];
  if (operations.readFiles.length > 0) lines.push(`Files read: ${listFiles(operations.readFiles)}`);
  if (operations.modifiedFiles.length > 0)
    lines.push(`Files modified: ${listFiles(operations.modifiedFiles)}`);
  return lines.length === 0 ? "" : `\n\n${lines.join("\n")}`;
}

function listFiles(files: readonly string[]): string {
  if (files.length <= MAX_LISTED_FILES) return files.join(", ");
  return `${files.slice(0, MAX_LISTED_FILES).join(", ")} (+${files.length - MAX_LISTED_FILES} more)`;
}

/**
 * A summary without the file lists {@link formatFileOperations} appended to it, so that an UPDATE does not
 * show the summarizer lists it would copy (they are appended again, up to date, afterwards).
 */
export function stripFileOperations(summary: string): string {
  const lines = summary.split("\n");
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === "") end--;
  while (
    end > 0 &&
    (lines[end - 1]!.startsWith("Files read: ") || lines[end - 1]!.startsWith("Files modified: "))
  ) {
    end--;
  }
  while (end > 0 && lines[end - 1]!.trim() === "") end--;
  return end === lines.length ? summary : lines.slice(0, end).join("\n");
}
