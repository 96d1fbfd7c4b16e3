/** The parameters of the append statement (`StoreQueries.append`) for one encoded batch. */
import type { SessionEntry } from "@arbor/session-store";
import { type EncodedEntryBatch, listingTime, storedMessageText } from "@arbor/session-store/backend";
import { PREPARED_APPEND_ROWS } from "./queries.js";

/**
 * The text the listing shows for the batch's first user message (`''` when it has none), or null when
 * the batch holds no user message. Parses that one entry's JSON text, nothing else.
 */
function firstUserText(entries: readonly SessionEntry[], batch: EncodedEntryBatch): string | null {
  for (const [index, entry] of entries.entries()) {
    if (entry.type !== "message") continue;
    if ((entry as { message?: { role?: unknown } }).message?.role !== "user") continue;
    return storedMessageText(batch.rows[index]?.body) ?? "";
  }
  return null;
}

/**
 * The values of the append of `batch` (encoded from `entries`): twelve fixed ones (session, size, last
 * id, summary changes, the expected last entry, the first user message, the channel), then four per row
 * — as four arrays for a batch over `PREPARED_APPEND_ROWS`.
 */
export function appendValues(
  sessionId: string,
  entries: readonly SessionEntry[],
  batch: EncodedEntryBatch,
  expected: string | null | undefined,
  channel: string,
): unknown[] {
  const values: unknown[] = [
    sessionId,
    batch.rows.length,
    batch.rows.at(-1)?.id,
    batch.messages,
    batch.name !== undefined,
    batch.name ?? null,
    batch.updatedAt ?? null,
    batch.updatedAt === undefined ? null : listingTime(batch.updatedAt),
    expected !== undefined,
    expected ?? null,
    firstUserText(entries, batch),
    channel,
  ];
  if (batch.rows.length > PREPARED_APPEND_ROWS) {
    values.push(
      batch.rows.map((row) => row.id),
      batch.rows.map((row) => row.parentId),
      batch.rows.map((row) => row.type),
      batch.rows.map((row) => row.body),
    );
    return values;
  }
  for (const row of batch.rows) values.push(row.id, row.parentId, row.type, row.body);
  return values;
}
