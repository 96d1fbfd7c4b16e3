/**
 * Which session a run starts in: a new one (default), the newest of the working directory (`-c`), a named
 * one (`-r <id|path>`), a named one created when missing (`--session <id>`), or a fork of one (`--fork
 * <id|path>`: a new session holding its current branch). A file outside the store can be forked but not
 * resumed (resuming would write to a file the store does not own): the message says how to import it.
 * A resumed session's recovery files (what a failed save could not store) are applied before it opens
 * (`applyPendingRecovery`): the run never starts on a session that lacks what ran.
 */
import type { Model } from "@arbor/ai-providers";
import type { AgentHarness, HarnessSession } from "@arbor/harness";
import { Session, type SessionStore, type SessionSummary } from "@arbor/session-store";
import { ArborUserError } from "./errors.js";
import type { StoreFactories } from "./factories.js";
import { looksLikePath, resolveSessionReference, SessionReferenceError } from "./session-reference.js";
import { applyPendingRecovery, recoverySessionsNamed } from "./sessions/recover-session.js";
import { copyBranch, movedSessionNotice, resumableHere, sameDirectory } from "./sessions/resume-here.js";
import { releaseOtherLeases, takeWriterLease } from "./writer-lease.js";

/** How a run chooses its session. */
export type SessionChoice =
  | { kind: "new" }
  /** `-c`, or `-r` without a value: the newest session of the working directory (a new one if none). */
  | { kind: "continue" }
  /** `-r <id|path>`: that session; an error when it does not exist. */
  | { kind: "open"; reference: string }
  /** `--session <id|path>`: that session, created with this id when there is none. */
  | { kind: "open-or-create"; reference: string }
  /** `--fork <id|path>`: a new session holding that session's current branch. */
  | { kind: "fork"; reference: string };

/** What choosing a session needs. */
export interface SessionChoiceInput {
  harness: AgentHarness;
  /** The store the harness writes to. */
  store: SessionStore;
  /** Where `--fork` reads its source from when it is not `store` (with `--no-session`: the default store). */
  sourceStore: SessionStore;
  cwd: string;
  /** The app's store factories (to read a session file outside the store). */
  stores: StoreFactories;
  /** Receives notes for the user (e.g. "no session to continue; starting a new one"). */
  notice: (message: string) => void;
  /** The environment (`$ARBOR_COMMAND` names the command in what a notice tells the user to run). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The Arbor home, whose recovery files of a resumed session are applied before it opens (and name the
   * sessions a store never held). Without it, none are looked for.
   */
  home?: string;
  /**
   * The model the user chose for this run (`--model`, `--provider`): a session opened continues with it; the
   * model its entries record is neither resolved nor warned about.
   */
  model?: Model;
}

/** The harness's options for opening a session: the model the user chose, if any. */
function modelOf(context: SessionChoiceInput): { model?: Model } {
  return context.model === undefined ? {} : { model: context.model };
}

/** The error for a session file outside the store, saying how to use it. */
export function outsideStoreError(path: string): ArborUserError {
  return new ArborUserError(
    "session_outside_store",
    `${path} is not in the session store, so it cannot be continued in place. Import it ` +
      `(\`arbor sessions import ${path}\`) and resume the imported session, or fork it (\`arbor --fork ${path}\`).`,
  );
}

/**
 * Resolves a session reference in the store for resuming.
 *
 * Contract: throws `SessionReferenceError` (not found, ambiguous, not a session file) and
 * {@link outsideStoreError} for a file outside the store; never leaves a temporary store behind.
 */
export async function resolveForResume(
  store: SessionStore,
  reference: string,
  cwd: string,
  stores: StoreFactories,
): Promise<string> {
  const resolved = await resolveSessionReference(store, reference, { cwd, stores });
  if (resolved.external) {
    await resolved.release();
    throw outsideStoreError(resolved.location ?? reference);
  }
  return resolved.sessionId;
}

async function forkSession(context: SessionChoiceInput, reference: string): Promise<HarnessSession> {
  const resolved = await resolveSessionReference(context.sourceStore, reference, {
    cwd: context.cwd,
    stores: context.stores,
  });
  try {
    // A session of this directory forks in the harness; one recorded elsewhere is copied into a session of
    // this directory (where the fork's tools run; sessions/resume-here.ts).
    const here =
      !resolved.external &&
      resolved.store === context.store &&
      sameDirectory((await Session.open(resolved.store, resolved.sessionId)).cwd, context.cwd);
    if (here) {
      const source = await context.harness.openSession(resolved.sessionId, modelOf(context));
      const leafId = source.session.leafId;
      if (leafId === null) {
        await source.close();
        throw new ArborUserError(
          "usage",
          `Session ${resolved.sessionId} is empty: there is nothing to fork.`,
        );
      }
      const fork = await source.fork(leafId, "at");
      await source.close();
      return fork;
    }
    const id = await copyBranch(resolved, context.store, context.cwd);
    return await context.harness.openSession(id, modelOf(context));
  } finally {
    await resolved.release();
  }
}

/**
 * The newest session of `cwd` that holds a message: an empty one (started and quit without a prompt)
 * is never what `--continue` means. Reads listing pages until one is found.
 */
async function newestWithMessages(store: SessionStore, cwd: string): Promise<SessionSummary | undefined> {
  let cursor: string | undefined;
  do {
    const page = await store.listSessions({ cwd, limit: 20, ...(cursor === undefined ? {} : { cursor }) });
    const found = page.sessions.find((summary) => summary.messageCount > 0);
    if (found !== undefined) return found;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return undefined;
}

/**
 * Opens a stored session to resume it, after taking its writer lease and applying its recovery files; a
 * session recorded in another directory continues here as a fork, with a notice (`resume-here.ts`).
 */
async function openResumed(context: SessionChoiceInput, sessionId: string): Promise<HarnessSession> {
  await takeWriterLease(context.store, sessionId);
  if (context.home !== undefined)
    await applyPendingRecovery(context.store, context.home, sessionId, context.notice);
  const here = await resumableHere(context.store, sessionId, context.cwd);
  if (here.moved === undefined) return context.harness.openSession(sessionId, modelOf(context));
  context.notice(movedSessionNotice(here.moved, context.cwd, context.env));
  await takeWriterLease(context.store, here.sessionId);
  void releaseOtherLeases(context.store, here.sessionId);
  return context.harness.openSession(here.sessionId, modelOf(context));
}

/**
 * Resolves a reference to resume; a session the store never held (its first save failed) is found by its
 * recovery files (by id or unique prefix).
 */
async function resolveResumed(context: SessionChoiceInput, reference: string): Promise<string> {
  const { store, cwd, stores } = context;
  try {
    return await resolveForResume(store, reference, cwd, stores);
  } catch (error) {
    const missing = error instanceof SessionReferenceError && error.code === "session_reference_not_found";
    if (!missing || context.home === undefined || looksLikePath(reference)) throw error;
    const [sessionId] = recoverySessionsNamed(context.home, reference);
    if (sessionId === undefined) throw error;
    return sessionId;
  }
}

/**
 * Opens or creates the session a run starts in.
 *
 * Contract: throws `SessionReferenceError` or {@link ArborUserError} with a message for the user when a
 * reference does not resolve, and `SessionLockedError` naming the holder when another process writes the
 * session (its writer lease is taken first); nothing is written to an existing session (a fork writes
 * only the new one).
 */
export async function startSession(
  context: SessionChoiceInput,
  choice: SessionChoice,
): Promise<HarnessSession> {
  const { harness, store, cwd } = context;
  switch (choice.kind) {
    case "new":
      return harness.newSession({ cwd, createOnFirstFlush: true });
    case "continue": {
      // The newest session with a message (empty ones, started and quit without a prompt, are skipped).
      const newest = await newestWithMessages(store, cwd);
      if (newest === undefined) {
        context.notice(`No session to continue in ${cwd}; starting a new one.`);
        return harness.newSession({ cwd, createOnFirstFlush: true });
      }
      return openResumed(context, newest.id);
    }
    case "open":
      return openResumed(context, await resolveResumed(context, choice.reference));
    case "open-or-create": {
      try {
        return await openResumed(context, await resolveResumed(context, choice.reference));
      } catch (error) {
        const missing =
          error instanceof SessionReferenceError && error.code === "session_reference_not_found";
        if (!missing || looksLikePath(choice.reference)) throw error;
        context.notice(`No session "${choice.reference}" yet; starting it.`);
        try {
          const session = await harness.newSession({ cwd, id: choice.reference });
          await takeWriterLease(store, session.id);
          return session;
        } catch (created) {
          // Another process created it meanwhile: open that one (its lease then decides who writes).
          if ((created as { code?: unknown }).code !== "session_exists") throw created;
          await takeWriterLease(store, choice.reference);
          return await harness.openSession(choice.reference, modelOf(context));
        }
      }
    }
    case "fork":
      return forkSession(context, choice.reference);
  }
}
