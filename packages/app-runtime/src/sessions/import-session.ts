/**
 * Storing a session file read for import (`arbor sessions import`, the protocol's `import_session`, the
 * demo's Import button) and the report of it: what was stored, the context a continuation would send (so
 * that a conversation lost on the way shows at once), and the file's warnings and notes, one line per kind.
 *
 * The one policy for a file whose session id the store already holds (or an id that cannot name a
 * session): the file is imported as a copy under a new id, and the result says so (`copiedFrom`). An
 * import never opens, changes or continues the session already stored — that one may have been continued
 * since, and a user importing a file means the file's conversation.
 */
import {
  countSessionNotices,
  generateSessionId,
  MemorySessionStore,
  Session,
  type SessionContext,
  SessionExistsError,
  type SessionHeader,
  type SessionNotice,
  type SessionStore,
  summarizeSessionNotices,
} from "@arbor/session-store";
import { jsonlPathOf } from "../session-reference.js";
import type { ImportedFile } from "./import-file.js";
import { treeStats } from "./tree-stats.js";

/** What an import did (or, in a dry run, would do). */
export interface ImportSessionResult {
  /** The stored session (in a dry run: the id it would get). */
  sessionId: string;
  /**
   * The id in the file, when the store already holds a session of that id (or the id cannot name a
   * session) and the import is a copy under a new id; absent when the file's id was kept.
   */
  copiedFrom?: string;
  fromVersion: number;
  entries: number;
  messages: number;
  branches: number;
  leafId: string | null;
  /** The stored file (a JSONL store; never in a dry run). */
  location: string | undefined;
  /**
   * The context of the leaf, as a continuation sends it: its messages but failed or aborted responses (no
   * provider is sent those), its tool calls, and how many of those had no result (they get an error result).
   */
  context: { messages: number; toolCalls: number; missingResults: number };
  /** The file's warnings and notes (see `ImportedFile.notices`). */
  notices: SessionNotice[];
  /** The warnings of `notices`, one line per kind (`summarizeSessionNotices`). */
  warnings: string[];
}

/** Ids a session may have: a letter or digit, then letters, digits, `_` and `-` (at most 128). */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * Creates the session (a new id when the file's is taken) and appends every entry in one atomic batch;
 * removes the half-made session when the append fails.
 */
async function storeImported(
  target: SessionStore,
  file: ImportedFile,
): Promise<{ header: SessionHeader; copiedFrom?: string }> {
  let header = file.header;
  let copiedFrom: string | undefined;
  const copy = async () => {
    copiedFrom = header.id;
    header = { ...header, id: generateSessionId() };
    await target.createSession(header);
  };
  if (!SESSION_ID.test(header.id)) await copy();
  else {
    try {
      await target.createSession(header);
    } catch (error) {
      if (!(error instanceof SessionExistsError)) throw error;
      await copy();
    }
  }
  try {
    if (file.entries.length > 0)
      await target.appendEntries(header.id, file.entries, { expectedLastEntryId: null });
  } catch (error) {
    await target.deleteSession(header.id).catch(() => undefined);
    throw error;
  }
  return { header, ...(copiedFrom === undefined ? {} : { copiedFrom }) };
}

/**
 * Stores an imported file in `target` — or, with `dryRun`, in memory only, so that the report says exactly
 * what a real import would hold — and reports on it.
 *
 * Contract: throws the store's errors; a failed append leaves no half-made session behind.
 */
export async function importSessionFile(
  target: SessionStore,
  file: ImportedFile,
  options: { dryRun?: boolean } = {},
): Promise<ImportSessionResult> {
  const dryRun = options.dryRun === true;
  const destination = dryRun ? new MemorySessionStore() : target;
  const stored = await storeImported(destination, file);
  let copiedFrom = stored.copiedFrom;
  if (dryRun && jsonlPathOf(target, file.header.id) !== undefined) copiedFrom = file.header.id;
  const session = await Session.open(destination, stored.header.id);
  const stats = treeStats(session.getTree());
  const context = contextCounts(session.buildContext());
  return {
    sessionId: dryRun ? file.header.id : session.id,
    ...(copiedFrom === undefined ? {} : { copiedFrom }),
    fromVersion: file.fromVersion,
    entries: session.entryCount,
    messages: stats.messages,
    branches: stats.leaves,
    leafId: session.leafId,
    location: dryRun ? undefined : jsonlPathOf(target, session.id),
    context,
    notices: file.notices,
    warnings: summarizeSessionNotices(file.notices, "warning"),
  };
}

/** The counts of {@link ImportSessionResult.context}. */
function contextCounts(context: SessionContext): ImportSessionResult["context"] {
  // A failed or aborted response is never sent, nor the results the repair gave its calls.
  const failed = new Set<string>();
  context.messages.forEach((message, index) => {
    if (message.role === "assistant" && (message.stopReason === "error" || message.stopReason === "aborted"))
      failed.add(context.entryIds[index] as string);
  });
  const counts = { messages: 0, toolCalls: 0, missingResults: 0 };
  context.messages.forEach((message, index) => {
    if (failed.has(context.entryIds[index] as string)) return;
    counts.messages++;
    if (message.role !== "assistant") return;
    for (const block of message.content) if (block.type === "toolCall") counts.toolCalls++;
  });
  for (const repair of context.repairs) {
    if (repair.kind === "missing_tool_result" && !failed.has(repair.entryId)) counts.missingResults++;
  }
  return counts;
}

function count(value: number, one: string, many = `${one}s`): string {
  return `${value.toLocaleString("en-US")} ${value === 1 ? one : many}`;
}

/** The report of an import as lines of text (`source`: the file as the user named it). */
export function importReportLines(source: string, report: ImportSessionResult, dryRun: boolean): string[] {
  const version =
    report.fromVersion === 3 ? "format version 3" : `format version ${report.fromVersion}, migrated to 3`;
  const lines = [
    dryRun
      ? `Checked ${source} (${version}); nothing was written (--dry-run).`
      : `Imported ${source} (${version}) as session ${report.sessionId}.`,
  ];
  if (report.copiedFrom !== undefined) {
    lines.push(
      `  The store already holds a session with the file's id ${report.copiedFrom}; ` +
        (dryRun ? "an import would give this copy a new id." : "this copy got a new id."),
    );
  }
  lines.push(
    `  ${count(report.entries, "entry", "entries")}, ${count(report.messages, "message")}, ` +
      `${count(report.branches, "branch", "branches")}, leaf ${report.leafId ?? "(none)"}`,
  );
  const { context } = report;
  const missing =
    context.missingResults === 0
      ? ""
      : ` (${count(context.missingResults, "call")} without one ${context.missingResults === 1 ? "gets" : "get"} an error result)`;
  lines.push(
    `  context of the leaf: ${count(context.messages, "message")}, ${count(context.toolCalls, "tool call")} with their results${missing}`,
  );
  if (report.location !== undefined) lines.push(`  stored in ${report.location}`);
  const warnings = countSessionNotices(report.notices, "warning");
  if (warnings === 0) lines.push("  no warnings");
  else {
    lines.push(`  ${count(warnings, "warning")}:`);
    for (const line of summarizeSessionNotices(report.notices, "warning")) lines.push(`    - ${line}`);
  }
  const notes = countSessionNotices(report.notices, "note");
  if (notes > 0) {
    const copy = dryRun ? "an import writes them into its copy" : "the copy holds them";
    lines.push(`  ${count(notes, "field")} the file lacks, filled in (${copy}; the file is unchanged):`);
    for (const line of summarizeSessionNotices(report.notices, "note")) lines.push(`    - ${line}`);
  }
  if (!dryRun) lines.push(`Show it: arbor sessions show ${report.sessionId}`);
  return lines;
}
