/** Labelling an entry of the current session (a bookmark shown in the tree; `null` or blank removes it). */
import type { HarnessSession } from "@arbor/harness";
import { entryOf } from "./operation-host.js";

/** What {@link labelEntry} did: the entry and its label now (`null`: none). */
export interface LabelResult {
  entryId: string;
  label: string | null;
}

/**
 * Sets or removes an entry's label (trimmed; empty or `null` removes it) through the harness session.
 *
 * Contract: refuses with `not_found` for an unknown entry before writing anything.
 */
export async function labelEntry(
  session: HarnessSession,
  entryId: string,
  label: string | null,
): Promise<LabelResult> {
  entryOf(session.session, entryId);
  const text = label === null || label.trim() === "" ? undefined : label.trim();
  await session.label(entryId, text);
  return { entryId, label: text ?? null };
}
