/**
 * The writer lease of the sessions a runtime writes (docs/decisions/0015-writer-lease.md): taken when a
 * stored session is opened for writing — before anything is written to it and before any model call — so
 * a second writer (another `arbor -r`, a demo server) is refused at once with one line naming the holder
 * (`SessionLockedError`), instead of at its first save point after its turn ran. A new session is leased
 * once it is stored (its first save point). Released when the runtime moves to another session, and with
 * the store (`close()`) or the process. Readers never take it.
 */
import type { HarnessSession } from "@arbor/harness";
import type { SessionStore, SessionWriterLease } from "@arbor/session-store";

/** The leases each store holds for this process's runtimes, by session id. */
const held = new WeakMap<SessionStore, Map<string, SessionWriterLease>>();

/**
 * Takes the writer lease of `sessionId` when the store has leases (once per session and store).
 *
 * Contract: throws the store's `SessionLockedError` (another process writes the session) and its
 * unavailable errors; a session the store does not hold yet (created by its first save) needs none.
 */
export async function takeWriterLease(store: SessionStore, sessionId: string): Promise<void> {
  if (store.acquireWriterLease === undefined) return;
  let leases = held.get(store);
  if (leases === undefined) {
    leases = new Map();
    held.set(store, leases);
  }
  if (leases.has(sessionId)) return;
  try {
    leases.set(sessionId, await store.acquireWriterLease(sessionId));
  } catch (error) {
    if ((error as { code?: unknown }).code !== "session_not_found") throw error;
  }
}

/**
 * Gives up every lease of `store` but the one of `keep` (the session now current).
 *
 * Contract: never throws.
 */
export async function releaseOtherLeases(store: SessionStore, keep: string): Promise<void> {
  const leases = held.get(store);
  if (leases === undefined) return;
  const others = [...leases].filter(([sessionId]) => sessionId !== keep);
  for (const [sessionId] of others) leases.delete(sessionId);
  await Promise.all(others.map(([, lease]) => lease.release().catch(() => {})));
}

/**
 * Leases `session` at its save points until it holds the lease: a new session is stored with its first
 * entry, and from then on another process opening it must be refused too.
 *
 * Contract: a lease refused there (another process opened the new session meanwhile) is reported as the
 * harness reports a failing listener; returns the function that stops it.
 */
export function leaseWhenStored(store: SessionStore, session: HarnessSession): () => void {
  if (store.acquireWriterLease === undefined) return () => {};
  return session.subscribe(async (event) => {
    if (event.type === "save_point" && held.get(store)?.has(session.id) !== true)
      await takeWriterLease(store, session.id);
  });
}
