/**
 * {@link OperationHost}: what the session operations need of an app runtime — its current session, its
 * store and working directory, and the way it changes the current session. `AppRuntime` is one; a test's
 * hand-made runtime can be another and get the same operations from `createSessionOperations`.
 */
import type { HarnessSession } from "@arbor/harness";
import type { Session, SessionStore } from "@arbor/session-store";
import { OperationRefusedError } from "./operation-error.js";

/** The part of an app runtime the operations drive. */
export interface OperationHost {
  readonly cwd: string;
  readonly store: SessionStore;
  /** The current session. */
  readonly session: HarnessSession;
  /** The current session's file, when the store keeps one per session. */
  readonly sessionFile: string | undefined;
  /**
   * Makes an open session current. Contract: as `AppRuntime.switchTo`.
   */
  switchTo(session: HarnessSession): Promise<void>;
  /**
   * Opens a session of the store and makes it current. Contract: as `AppRuntime.openSession`.
   */
  openSession(reference: string): Promise<HarnessSession>;
  /**
   * Registers a listener of session changes. Contract: as `AppRuntime.onSessionChange`.
   */
  onSessionChange(listener: (session: HarnessSession) => void): () => void;
}

/** The entry `entryId` of `session`; refuses with `not_found` when there is none. */
export function entryOf(session: Session, entryId: string) {
  const entry = session.getEntry(entryId);
  if (entry === undefined)
    throw new OperationRefusedError(`This session has no entry ${entryId}.`, "not_found");
  return entry;
}

/** Refuses with `busy` while the session runs something (a prompt, a compaction, a summary). */
export function assertIdle(session: HarnessSession): void {
  if (session.isBusy) {
    throw new OperationRefusedError(`The session is busy (${session.phase}); wait or abort.`, "busy");
  }
}
