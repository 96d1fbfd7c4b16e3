/**
 * For backends that store entries as JSON text: a batch turned into rows before anything is written —
 * each entry's tree fields and JSON text, and what the batch changes in the session's listing summary
 * (message count, name, last activity).
 */
import { InvalidArgumentError } from "@arbor/ai-providers";
import type { SessionEntry } from "./entries.js";

/** One entry ready to be stored. */
export interface EncodedEntry {
  type: string;
  id: string;
  parentId: string | null;
  body: string;
}

/** A batch ready to be stored, with its effect on the session summary. */
export interface EncodedEntryBatch {
  rows: EncodedEntry[];
  /** `message` entries in the batch. */
  messages: number;
  /** The latest `session_info` name: a string (trimmed, `null` when cleared), or undefined when unchanged. */
  name: string | null | undefined;
  /** The last string `timestamp` of the batch, if any. */
  updatedAt: string | undefined;
}

/**
 * Validates and serializes a batch.
 *
 * Contract: throws `InvalidArgumentError` (code `invalid_argument`) for an entry without a string
 * `type` and `id` and a `parentId` (string or null), or that is not JSON data; nothing is written then.
 */
export function encodeEntryBatch(sessionId: string, entries: readonly SessionEntry[]): EncodedEntryBatch {
  const batch: EncodedEntryBatch = { rows: [], messages: 0, name: undefined, updatedAt: undefined };
  for (const [index, entry] of entries.entries()) {
    const { type, id, parentId, timestamp, name } = (entry ?? {}) as Record<string, unknown>;
    if (
      typeof type !== "string" ||
      typeof id !== "string" ||
      (parentId !== null && typeof parentId !== "string")
    ) {
      throw new InvalidArgumentError(
        `appendEntries: entry ${index} of the batch for "${sessionId}" lacks a string "type" and "id" or a ` +
          `"parentId" (string or null).`,
      );
    }
    batch.rows.push({ type, id, parentId, body: entryJson(entry, `appendEntries: entry "${id}"`) });
    if (type === "message") batch.messages += 1;
    if (type === "session_info" && typeof name === "string") batch.name = name.trim() || null;
    if (typeof timestamp === "string") batch.updatedAt = timestamp;
  }
  return batch;
}

/**
 * `JSON.stringify` that reports what is not JSON data.
 *
 * Contract: throws `InvalidArgumentError` naming `what`.
 */
export function entryJson(value: unknown, what: string): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new InvalidArgumentError(`${what} is not JSON data: ${(error as Error).message}`);
  }
  if (json === undefined) throw new InvalidArgumentError(`${what} is not JSON data.`);
  return json;
}
