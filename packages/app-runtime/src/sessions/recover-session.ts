/**
 * `arbor sessions recover [<id>|<file>] [--discard]` and the offer of `arbor -r`: finding a session's
 * recovery files, applying them in order (`applyRecoveryFile`) and removing each once its entries are in
 * the store, or discarding them; listing every pending file when no session is named.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { SessionStore, SessionWriterLease } from "@arbor/session-store";
import { ArborUserError } from "../errors.js";
import { applyRecoveryFile, recoveryOutcomeLines } from "./apply-recovery.js";
import {
  type FoundRecoveryFile,
  listRecoveryFiles,
  type RecoveryFile,
  readRecoveryFile,
  recoveryDirectory,
  removeRecoveryFile,
} from "./recovery-file.js";

/** What {@link recoverSessions} works on. */
export interface RecoverOptions {
  /** The Arbor home (its `recovery` directory, and the fallback in `$TMPDIR`). */
  home: string;
  /** Where relative file paths resolve. */
  cwd: string;
  /** A session id (or unique prefix of one with recovery files) or a recovery file's path; none: list them. */
  reference?: string;
  /** Remove the files instead of applying them. */
  discard?: boolean;
  /** The store in words, for messages. */
  storeDescription?: string;
}

function count(entries: number): string {
  return `${entries} ${entries === 1 ? "entry" : "entries"}`;
}

/** A line describing a pending recovery file. */
function pendingLine(found: FoundRecoveryFile): string {
  const file = found.file;
  if (file === undefined) return `${found.sessionId}  ${found.path}  (cannot be read: ${found.problem})`;
  const { header } = file;
  return `${header.sessionId}  ${count(file.entries.length)} not saved ${header.failedAt}  ${found.path}  (${header.reason})`;
}

/** The session ids with recovery files that `reference` names: exactly, or as a unique prefix. */
export function recoverySessionsNamed(home: string, reference: string): string[] {
  const ids = [...new Set(listRecoveryFiles(home).map((found) => found.sessionId))];
  if (ids.includes(reference)) return [reference];
  const matching = ids.filter((id) => id.startsWith(reference));
  if (matching.length > 1) {
    throw new ArborUserError(
      "usage",
      `"${reference}" names recovery files of several sessions (${matching.join(", ")}); give more of the id.`,
    );
  }
  return matching;
}

/**
 * The writer lease of a session, when the store has leases and holds the session (a session whose first
 * save failed is created by the recovery, with nothing to lease yet).
 */
async function leaseIfStored(
  store: SessionStore,
  sessionId: string,
): Promise<SessionWriterLease | undefined> {
  try {
    return await store.acquireWriterLease?.(sessionId);
  } catch (error) {
    if ((error as { code?: unknown }).code === "session_not_found") return undefined;
    throw error;
  }
}

/** The files a reference names: one file path, or every file of the session it names (oldest first). */
function filesNamed(options: RecoverOptions, reference: string): RecoveryFile[] {
  const path = resolve(options.cwd, reference);
  if (reference.endsWith(".jsonl") && existsSync(path) && statSync(path).isFile())
    return [readRecoveryFile(path)];
  const [sessionId] = recoverySessionsNamed(options.home, reference);
  const found = sessionId === undefined ? [] : listRecoveryFiles(options.home, sessionId);
  if (found.length === 0) {
    throw new ArborUserError(
      "usage",
      `No recovery file for "${reference}" in ${recoveryDirectory(options.home)} (or the temporary directory).`,
    );
  }
  return found.map((item) => {
    if (item.file === undefined) throw new ArborUserError("recovery_failed", item.problem ?? item.path);
    return item.file;
  });
}

/**
 * Lists, applies or discards recovery files (see the module comment) and returns the report's lines.
 * Applying stops at the first file that fails; the files applied before it are removed.
 *
 * Contract: throws `ArborUserError` (`usage` for a reference that names nothing or several sessions,
 * `recovery_failed` for a file that cannot be read or applied) and the store's errors.
 */
export async function recoverSessions(store: SessionStore, options: RecoverOptions): Promise<string[]> {
  if (options.reference === undefined) {
    const found = listRecoveryFiles(options.home);
    if (found.length === 0) return [`No recovery files (${recoveryDirectory(options.home)}).`];
    return [
      ...found.map(pendingLine),
      "`arbor sessions recover <id>` applies a session's files; `--discard` removes them.",
    ];
  }
  const files = filesNamed(options, options.reference);
  const lines: string[] = [];
  for (const file of files) {
    if (options.discard === true) {
      removeRecoveryFile(file.path);
      lines.push(
        `Discarded ${file.path}: ${count(file.entries.length)} of session ${file.header.sessionId} not saved on ${file.header.failedAt}.`,
      );
      continue;
    }
    // Applied as a writer: refused, naming the holder, while another process writes the session.
    const lease = await leaseIfStored(store, file.header.sessionId);
    let outcome: Awaited<ReturnType<typeof applyRecoveryFile>>;
    try {
      outcome = await applyRecoveryFile(
        store,
        file,
        options.storeDescription === undefined ? {} : { storeDescription: options.storeDescription },
      );
    } finally {
      await lease?.release().catch(() => {});
    }
    lines.push(...recoveryOutcomeLines(file, outcome));
    removeRecoveryFile(file.path);
  }
  return lines;
}

/**
 * What `arbor -r <id>` does first: applies the session's recovery files when the session is still where
 * they left it (nothing else wrote it since: applying stores what the failed save would have stored), says
 * so through `notice`, and removes them.
 *
 * Contract: throws `ArborUserError` (`recovery_pending`, naming the file and the two commands that settle
 * it) when the session moved on since, or a file cannot be read — the run must not start on a session
 * without what ran; the store's errors pass through.
 */
export async function applyPendingRecovery(
  store: SessionStore,
  home: string,
  sessionId: string,
  notice: (message: string) => void,
): Promise<void> {
  for (const found of listRecoveryFiles(home, sessionId)) {
    const file = found.file;
    const outcome =
      file === undefined ? undefined : await applyRecoveryFile(store, file, { onlyIfUnchanged: true });
    if (file !== undefined && outcome !== undefined && outcome.kind !== "moved_on") {
      for (const line of recoveryOutcomeLines(file, outcome)) notice(line);
      removeRecoveryFile(file.path);
      continue;
    }
    const why =
      file === undefined
        ? `cannot be read (${found.problem})`
        : `was not applied: the session moved on since (another writer appended after ${outcome?.kind === "moved_on" ? (outcome.expected ?? "its start") : "it"})`;
    throw new ArborUserError(
      "recovery_pending",
      `Session ${sessionId} has entries that could not be saved, kept in ${found.path}, which ${why}. ` +
        `Apply them as a branch with \`arbor sessions recover ${sessionId}\`, or drop them with ` +
        `\`arbor sessions recover ${sessionId} --discard\`; then resume.`,
    );
  }
}
