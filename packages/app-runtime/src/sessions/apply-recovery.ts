/**
 * Applying a recovery file (see `recovery-file.ts`) to its session: the entries the store refused are
 * appended with `expectedLastEntryId`, after whatever part of them did reach the store (a save that failed
 * after its commit) is skipped by id.
 *
 * - The session is where the file left it (its last entry is the one the entries follow): they are
 *   appended as the failed save would have, and the session continues from them.
 * - The session moved on (another writer appended meanwhile): the entries still go in — their `parentId`s
 *   make them a branch from the entry they followed — and their last entry becomes the leaf; the branch the
 *   other writer left stays in the tree (its leaf is reported). `onlyIfUnchanged` (what `arbor -r` uses)
 *   refuses this case instead, so that only the user's `arbor sessions recover` makes that choice.
 * - The store never held the session (a new session's first save failed): it is created from the header
 *   the file carries.
 */
import {
  Session,
  SessionConflictError,
  type SessionEntry,
  SessionNotFoundError,
  type SessionStore,
} from "@arbor/session-store";
import { ArborUserError } from "../errors.js";
import { type RecoveryFile, recoveredSessionHeader } from "./recovery-file.js";

/** What applying a recovery file did. */
export type RecoveryOutcome =
  | {
      kind: "applied";
      /** Entries appended (those of the file the store did not hold yet). */
      appended: number;
      /** Entries of the file the store held already (skipped). */
      alreadyStored: number;
      /** True when the session was created from the file's header. */
      created: boolean;
      /** Set when the session had moved on: the entry the recovered branch starts from, and the other leaf. */
      branch?: { from: string | null; otherLeaf: string | null };
      /** The session's leaf now (the last recovered entry, or where a `leaf` entry among them points). */
      leafId: string | null;
    }
  /** Every entry of the file is stored already: nothing was appended. */
  | { kind: "already_stored"; entries: number }
  /** `onlyIfUnchanged` and the session moved on: nothing was appended. */
  | { kind: "moved_on"; expected: string | null; lastEntryId: string | null };

/** Options of {@link applyRecoveryFile}. */
export interface ApplyRecoveryOptions {
  /** Append only when the session's last entry is still the one the entries follow (else `moved_on`). */
  onlyIfUnchanged?: boolean;
  /** The store in words, for the message when the session is not in it. */
  storeDescription?: string;
}

/** The entry the first not-yet-stored entry follows in the file (its predecessor, or the file's expected one). */
function followedEntry(file: RecoveryFile, remaining: readonly SessionEntry[]): string | null {
  const first = remaining[0];
  const index = first === undefined ? -1 : file.entries.indexOf(first);
  return index > 0 ? (file.entries[index - 1] as SessionEntry).id : file.header.expectedLastEntryId;
}

/** Throws when an entry's parent is neither stored nor an earlier entry of the batch. */
function checkParents(
  file: RecoveryFile,
  stored: ReadonlySet<string>,
  remaining: readonly SessionEntry[],
): void {
  const known = new Set(stored);
  for (const entry of remaining) {
    if (entry.parentId !== null && !known.has(entry.parentId)) {
      throw new ArborUserError(
        "recovery_failed",
        `${file.path}: entry ${entry.id} follows ${entry.parentId}, which session ${file.header.sessionId} does not ` +
          "hold. Apply the session's older recovery files first (`arbor sessions recover <id>` applies them in order).",
      );
    }
    known.add(entry.id);
  }
}

/** Reads the stored ids and last entry; creates the session from the file when the store never held it. */
async function storedState(
  store: SessionStore,
  file: RecoveryFile,
  options: ApplyRecoveryOptions,
): Promise<{ ids: Set<string>; last: string | null; created: boolean }> {
  const { header } = file;
  try {
    const stored = await store.readSession(header.sessionId);
    return {
      ids: new Set(stored.entries.map((entry) => entry.id)),
      last: stored.entries.at(-1)?.id ?? null,
      created: false,
    };
  } catch (error) {
    if (
      !(error instanceof SessionNotFoundError || (error as { code?: unknown }).code === "session_not_found")
    )
      throw error;
    if (header.sessionStored) {
      const where = options.storeDescription ?? "this store";
      throw new ArborUserError(
        "recovery_failed",
        `Session ${header.sessionId} is not in ${where}; ${file.path} was written for ${header.store}. ` +
          "Run the command with that store (--store).",
      );
    }
    await store.createSession(recoveredSessionHeader(file));
    return { ids: new Set(), last: null, created: true };
  }
}

/**
 * Applies a recovery file to its session in `store` (see the module comment). Does not remove the file.
 *
 * Contract: appends at most once, atomically (one `appendEntries` with the `expectedLastEntryId` it read;
 * when another writer appends in between, it reads again, up to three times). Throws `ArborUserError`
 * (`recovery_failed`) when the session is not in the store (and the file says it was) or an entry's parent
 * is missing, and the store's errors.
 */
export async function applyRecoveryFile(
  store: SessionStore,
  file: RecoveryFile,
  options: ApplyRecoveryOptions = {},
): Promise<RecoveryOutcome> {
  for (let attempt = 1; ; attempt++) {
    const state = await storedState(store, file, options);
    const remaining = file.entries.filter((entry) => !state.ids.has(entry.id));
    if (remaining.length === 0) return { kind: "already_stored", entries: file.entries.length };
    const follows = followedEntry(file, remaining);
    const unchanged = state.last === follows;
    if (!unchanged && options.onlyIfUnchanged === true) {
      return { kind: "moved_on", expected: follows, lastEntryId: state.last };
    }
    checkParents(file, state.ids, remaining);
    const otherLeaf = unchanged ? null : (await Session.open(store, file.header.sessionId)).leafId;
    try {
      await store.appendEntries(file.header.sessionId, remaining, { expectedLastEntryId: state.last });
    } catch (error) {
      if (error instanceof SessionConflictError && attempt < 3) continue;
      throw error;
    }
    const leafId = (await Session.open(store, file.header.sessionId)).leafId;
    return {
      kind: "applied",
      appended: remaining.length,
      alreadyStored: file.entries.length - remaining.length,
      created: state.created,
      ...(unchanged ? {} : { branch: { from: (remaining[0] as SessionEntry).parentId, otherLeaf } }),
      leafId,
    };
  }
}

function count(entries: number): string {
  return `${entries} ${entries === 1 ? "entry" : "entries"}`;
}

/** What applying a file did, in lines for people. */
export function recoveryOutcomeLines(file: RecoveryFile, outcome: RecoveryOutcome): string[] {
  const { sessionId, failedAt } = file.header;
  if (outcome.kind === "already_stored") {
    return [
      `${file.path}: its ${count(outcome.entries)} are in session ${sessionId} already; nothing to apply.`,
    ];
  }
  if (outcome.kind === "moved_on") {
    return [
      `Session ${sessionId} moved on since the save failed (its last entry is ${outcome.lastEntryId ?? "none"}, ` +
        `not ${outcome.expected ?? "none"}); ${file.path} was not applied.`,
    ];
  }
  const lines = [
    `Applied ${count(outcome.appended)} to session ${sessionId} from ${file.path} (not saved on ${failedAt})` +
      `${outcome.created ? "; the session was created" : ""}` +
      `${outcome.alreadyStored > 0 ? `; ${count(outcome.alreadyStored)} were stored already` : ""}.`,
  ];
  if (outcome.branch !== undefined) {
    lines.push(
      `The session had moved on: the recovered entries form a branch from ${outcome.branch.from ?? "the start"}, ` +
        `which is now the leaf (${outcome.leafId ?? "none"}); the other branch ends at ${outcome.branch.otherLeaf ?? "none"} ` +
        "(/tree or `arbor sessions show --tree` shows both).",
    );
  }
  return lines;
}
