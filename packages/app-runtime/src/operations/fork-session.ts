/** Forking the current session at (or before) an entry into a new session, which becomes current. */
import { OperationRefusedError } from "./operation-error.js";
import type { OperationHost } from "./operation-host.js";

/** What {@link forkSession} did. */
export interface ForkResult {
  /** The new session (now current). */
  sessionId: string;
  /** The session it was forked from. */
  parentSession: string;
  /** The new session's file, when the store keeps one per session. */
  file?: string;
  leafId: string | null;
}

/** Options of {@link forkSession}. */
export interface ForkOptions {
  /** The entry to fork at; default the leaf. */
  entryId?: string;
  /** `at` (default): the fork ends with the entry; `before`: with its parent (to re-ask a question). */
  position?: "at" | "before";
}

/**
 * Forks the host's current session and switches to the fork.
 *
 * Contract: refuses with `invalid` for an empty session with no `entryId`; throws the harness's errors (an
 * unknown entry, a busy session) before anything changes.
 */
export async function forkSession(host: OperationHost, options: ForkOptions = {}): Promise<ForkResult> {
  const source = host.session;
  const entryId = options.entryId ?? source.session.leafId;
  if (entryId === null)
    throw new OperationRefusedError('"fork" needs "entryId" (the session is empty).', "invalid");
  const fork = await source.fork(entryId, options.position ?? "at");
  await host.switchTo(fork);
  const file = host.sessionFile;
  return {
    sessionId: fork.id,
    parentSession: source.id,
    ...(file === undefined ? {} : { file }),
    leafId: fork.session.leafId,
  };
}
