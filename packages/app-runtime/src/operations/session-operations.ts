/**
 * {@link SessionOperations}: the operations a user can do to a session, one implementation for every
 * front end (the terminal UI's slash commands, `arbor --mode rpc`, the demo server, `arbor sessions …`).
 * `AppRuntime` has them; {@link createSessionOperations} builds them over any {@link OperationHost}.
 * Each operation's logic is in its own file; each has one result type, which the protocol answers with.
 */
import type { HarnessCompactionOutcome, HarnessSession } from "@arbor/harness";
import type { CompactionOutcomeWords } from "@arbor/session-view";
import type { ImportSessionResult } from "../sessions/import-session.js";
import { type BranchDiffResult, diffSessionBranches } from "./diff-branches.js";
import { type EditResult, editMessage, type StartedRun } from "./edit-message.js";
import { type ForkOptions, type ForkResult, forkSession } from "./fork-session.js";
import { type ImportOptions, type ImportSource, importIntoStore } from "./import-session.js";
import { type LabelResult, labelEntry } from "./label-entry.js";
import { listSessionPage, type SessionPage, type SessionPageOptions } from "./list-sessions.js";
import { type MergeOptions, type MergeResult, mergeBranchInto } from "./merge-branch.js";
import { type NavigateOptions, type NavigateResult, navigate } from "./navigate-tree.js";
import type { OperationHost } from "./operation-host.js";

/** What `compact` did: the harness's outcome (`kind` and `message` in plain words). */
export type CompactResult = HarnessCompactionOutcome;

/** What `new_session` and `open_session` answer: the session now current. */
export interface OpenedSessionResult {
  sessionId: string;
}

/** The session operations (see the module comment); all act on the host's current session. */
export interface SessionOperations {
  /**
   * Sets or removes an entry's label.
   *
   * Contract: refuses (`OperationRefusedError`, `not_found`) for an unknown entry.
   */
  label(entryId: string, label: string | null): Promise<LabelResult>;
  /**
   * Edit and re-run: moves to a user message's parent (no summary) and prompts with `text` there.
   *
   * Contract: refuses with `not_found`, `invalid` (not a user message) or `busy` before anything changes;
   * the started run is `run` (its failure rejects it, not this call).
   */
  edit(entryId: string, text: string): Promise<StartedRun<EditResult>>;
  /**
   * Where two branches of the current session (ending at `a` and `b`) diverge and what each holds after.
   *
   * Contract: reads only; refuses with `not_found` for an unknown entry.
   */
  diff(a: string, b: string): BranchDiffResult;
  /**
   * Merges a branch into another as a `branch_summary` entry.
   *
   * Contract: refuses with `not_found`, `invalid` or `busy` before anything changes.
   */
  merge(options: MergeOptions): Promise<MergeResult>;
  /**
   * Moves the leaf to an entry (`null`: the start), optionally summarizing the branch left.
   *
   * Contract: throws the harness's errors (unknown entry, busy) before anything changes.
   */
  navigate(entryId: string | null, options?: NavigateOptions): Promise<NavigateResult>;
  /**
   * Forks the current session at (or before) an entry and makes the fork current.
   *
   * Contract: refuses with `invalid` for an empty session without `entryId`.
   */
  fork(options?: ForkOptions): Promise<ForkResult>;
  /**
   * Compacts the current session now; the outcome is also what {@link lastCompaction} returns after.
   *
   * Contract: never rejects for a refusal the harness reports as an outcome (`nothing_to_compact`, …).
   */
  compact(instructions?: string): Promise<CompactResult>;
  /**
   * A page of the store's sessions, newest activity first (default: those of the cwd; `all`: every cwd).
   *
   * Contract: reads the store only.
   */
  listSessionPage(options?: Omit<SessionPageOptions, "cwd">): Promise<SessionPage>;
  /**
   * Imports a session file (a path or its text) into the store and, unless `open: false`, opens it. A
   * file whose id the store holds is imported as a copy under a new id (`copiedFrom`).
   *
   * Contract: refuses with `busy` when it would open while the current session runs; a failed import
   * stores nothing.
   */
  importSession(source: ImportSource, options?: ImportOptions): Promise<ImportSessionResult>;
  /**
   * How the current session's last compaction (since this runtime followed it) ended, if any.
   *
   * Contract: reads only.
   */
  lastCompaction(): CompactionOutcomeWords | undefined;
}

/**
 * Builds the operations over a host; follows the host's sessions for {@link SessionOperations.lastCompaction}.
 *
 * Contract: subscribes to the host's current session (and each later one) for its `compaction_end` events;
 * the subscription ends with the host's sessions.
 */
export function createSessionOperations(host: OperationHost): SessionOperations {
  const compactions = new Map<string, CompactionOutcomeWords>();
  let stop: () => void = () => undefined;
  const follow = (session: HarnessSession) => {
    stop();
    stop = session.subscribe((event) => {
      if (event.type === "compaction_end") {
        compactions.set(session.id, { kind: event.outcome.kind, message: event.outcome.message });
      }
    });
  };
  follow(host.session);
  host.onSessionChange(follow);
  return {
    label: (entryId, label) => labelEntry(host.session, entryId, label),
    edit: (entryId, text) => editMessage(host.session, entryId, text),
    diff: (a, b) => diffSessionBranches(host.session, a, b),
    merge: (options) => mergeBranchInto(host.session, options),
    navigate: (entryId, options) => navigate(host.session, entryId, options),
    fork: (options) => forkSession(host, options),
    compact: (instructions) => host.session.compact(instructions),
    listSessionPage: (options = {}) => listSessionPage(host.store, { ...options, cwd: host.cwd }),
    importSession: (source, options) => importIntoStore(host, source, options),
    lastCompaction: () => compactions.get(host.session.id),
  };
}
