/**
 * A session as a plain version-3 JSONL file (`arbor sessions export --format jsonl`): the header, then
 * every entry in append order, one JSON object per line — the whole tree, every branch.
 *
 * What "as stored" means here: the entries are exactly the store's (unknown fields and entry types kept,
 * keys in their order), but the JSONL store's batch framing is dropped — the tab before each batched
 * line's newline and the batch trailer lines (`@arbor/session-store/jsonl-format`). The output is what the pi
 * agent writes, so it opens in pi and in `arbor sessions import`; a version 1 or 2 file comes out migrated
 * to version 3, and a torn tail is left out.
 */
import type { SessionStore } from "@arbor/session-store";
import { NEWLINE } from "@arbor/session-store/jsonl-format";

/** What {@link exportJsonl} produced. */
export interface JsonlExport {
  /** The file's text: one line per object, each ending with a newline. */
  text: string;
  /** Entries written. */
  entryCount: number;
  /** Entries left out because their stored bytes could not be read, and the store's own warnings. */
  warnings: string[];
}

/**
 * Reads a session from its store and writes it as JSONL.
 *
 * Contract: one `readSession`; O(entries); every entry is parsed once and serialized once. An entry whose
 * stored line is not valid JSON is left out and reported in `warnings` (never a failure). Throws the store's
 * errors (`SessionNotFoundError`, …).
 */
export async function exportJsonl(store: SessionStore, sessionId: string): Promise<JsonlExport> {
  const stored = await store.readSession(sessionId);
  const warnings = [...stored.warnings];
  const lines = [JSON.stringify(stored.header)];
  for (const entry of stored.entries) {
    try {
      lines.push(JSON.stringify(entry.entry()));
    } catch (error) {
      warnings.push(`entry "${entry.id}" left out: ${(error as Error).message}`);
    }
  }
  return { text: `${lines.join(NEWLINE)}${NEWLINE}`, entryCount: lines.length - 1, warnings };
}
