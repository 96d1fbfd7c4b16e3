/**
 * Edit and re-run: a user message is "edited" by going back to its parent (no branch summary: the old
 * branch stays in the tree, beside the new one) and prompting with the new text there.
 */
import type { HarnessSession } from "@arbor/harness";
import { OperationRefusedError } from "./operation-error.js";
import { assertIdle, entryOf } from "./operation-host.js";

/** What {@link editMessage} started: the new text's parent (`null`: the start of the session). */
export interface EditResult {
  parentId: string | null;
}

/** A result together with the run an operation started (a front end tracks it; its events follow). */
export interface StartedRun<T> {
  result: T;
  /** The run; resolves when it settled. */
  run: Promise<void>;
}

/**
 * Moves the leaf to the user message's parent, then starts a prompt with `text`.
 *
 * Contract: refuses with `not_found` (unknown entry), `invalid` (not a user message) or `busy` before
 * anything changes; the run's failure rejects `run`, not this call.
 */
export async function editMessage(
  session: HarnessSession,
  entryId: string,
  text: string,
): Promise<StartedRun<EditResult>> {
  const entry = entryOf(session.session, entryId);
  if (entry.type !== "message" || (entry.message as { role?: unknown }).role !== "user") {
    throw new OperationRefusedError(
      `Entry ${entryId} is not a user message; only those can be edited.`,
      "invalid",
    );
  }
  assertIdle(session);
  const moved = await session.navigateTree(entry.parentId, { summarize: false });
  if (moved.kind !== "moved") {
    throw new OperationRefusedError(`Could not go back before the message (${moved.kind}).`, "cancelled");
  }
  return { result: { parentId: entry.parentId }, run: session.prompt(text) };
}
