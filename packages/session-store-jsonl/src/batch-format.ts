/**
 * How a batch of entries is laid out in a session file, so that a batch is all-or-nothing on reopen
 * and listing reads only a file's tail.
 *
 * A batch is written with one `write`: every entry line ends with a tab before its newline
 * (`{…}\t\n`, JSON whitespace, invisible to any JSON reader), and the batch ends with one trailer
 * line `{"type":"session","arbor":"batch",…}` that carries the session's running totals. A batch is
 * committed once its trailer line is complete. Lines without the tab (those the pi agent writes) are
 * complete on their own. The pi agent reads these files unchanged: JSON.parse ignores the tab, and
 * its tree skips every `type: "session"` line after the header.
 */
import type { SessionEntry, SessionHeader } from "@arbor/session-store";
import {
  BATCH_LINE_MARK_BYTE,
  BATCH_TRAILER_PREFIX,
  isBatchTrailer,
  isBatchTrailerText,
  NEWLINE,
  NEWLINE_BYTE,
} from "@arbor/session-store/jsonl-format";
import type { AppendBuffer } from "./append-buffer.js";

/** A session's running totals: what listing shows and the next trailer carries. */
export interface SessionTally {
  /** Id of the last entry in append order, `null` when there is none. */
  lastEntryId: string | null;
  /** Timestamp of the last entry, when it has one. */
  updatedAt: string | undefined;
  /** Entries stored (trailers not counted). */
  entryCount: number;
  /** `message` entries stored. */
  messageCount: number;
  /** The latest `session_info` name, trimmed (an empty name clears it). */
  name: string | undefined;
}

/** The totals of a session with no entries. */
export function emptyTally(): SessionTally {
  return { lastEntryId: null, updatedAt: undefined, entryCount: 0, messageCount: 0, name: undefined };
}

/** Adds one entry to a tally (in place). `name` is the entry's name when it is a `session_info`. */
export function countEntry(
  tally: SessionTally,
  type: string,
  id: string,
  timestamp: unknown,
  name: unknown,
): void {
  tally.lastEntryId = id;
  tally.entryCount += 1;
  if (typeof timestamp === "string") tally.updatedAt = timestamp;
  if (type === "message") tally.messageCount += 1;
  else if (type === "session_info" && typeof name === "string") tally.name = name.trim() || undefined;
}

/** The header line: `{"type":"session","version":3,"id","timestamp","cwd",…}` and a newline. */
export function encodeHeader(header: SessionHeader): string {
  const { type: _type, version, id, timestamp, cwd, ...rest } = header;
  return `${JSON.stringify({ type: "session", version: version ?? 3, id, timestamp, cwd, ...rest })}${NEWLINE}`;
}

/** One entry as JSON with `type`, `id`, `parentId`, `timestamp` first (the order pi writes and the scanner reads). */
export function encodeEntry(entry: SessionEntry): string {
  if (hasTreeKeysFirst(entry)) return JSON.stringify(entry);
  const { type, id, parentId, timestamp, ...rest } = entry;
  return JSON.stringify({ type, id, parentId, timestamp, ...rest });
}

/**
 * True when the entry's keys already start with type, id, parentId (then timestamp, if it has one).
 * `for…in` lists own keys first, in the order `JSON.stringify` writes them; stopping after the fourth
 * allocates nothing (`Object.keys` builds an array of every key: ~3% of an append).
 */
function hasTreeKeysFirst(entry: SessionEntry): boolean {
  let index = 0;
  for (const key in entry) {
    if (index === 3) return key === "timestamp" || !Object.hasOwn(entry, "timestamp");
    if (key !== TREE_KEYS[index]) return false;
    index++;
  }
  return index === 3 && !Object.hasOwn(entry, "timestamp");
}

/** The keys every entry line starts with, in order. */
const TREE_KEYS = ["type", "id", "parentId"] as const;

/** The trailer line for the totals after a batch (no newline). */
export function encodeTrailer(tally: SessionTally): string {
  // Written by hand (the same text as stringifying the object): it is made for every batch.
  let text = `${BATCH_TRAILER_PREFIX},"lastEntryId":${JSON.stringify(tally.lastEntryId)}`;
  if (tally.updatedAt !== undefined) text += `,"updatedAt":${JSON.stringify(tally.updatedAt)}`;
  text += `,"entries":${tally.entryCount},"messages":${tally.messageCount}`;
  if (tally.name !== undefined) text += `,"name":${JSON.stringify(tally.name)}`;
  return `${text}}`;
}

/** Reads a trailer line's totals; undefined when the text is not a trailer. */
export function decodeTrailer(text: string): SessionTally | undefined {
  if (!isBatchTrailerText(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return tallyOfTrailer(value);
}

/** The totals of a parsed trailer object; undefined when it is not one. */
export function tallyOfTrailer(value: unknown): SessionTally | undefined {
  if (!isBatchTrailer(value)) return undefined;
  const trailer = value as Record<string, unknown>;
  return {
    lastEntryId: typeof trailer.lastEntryId === "string" ? trailer.lastEntryId : null,
    updatedAt: typeof trailer.updatedAt === "string" ? trailer.updatedAt : undefined,
    entryCount: typeof trailer.entries === "number" ? trailer.entries : 0,
    messageCount: typeof trailer.messages === "number" ? trailer.messages : 0,
    name: typeof trailer.name === "string" ? trailer.name : undefined,
  };
}

/** A batch encoded into an {@link AppendBuffer}: its size in bytes and the totals once it is stored. */
export interface EncodedBatch {
  byteLength: number;
  tally: SessionTally;
}

/**
 * Encodes entries as one batch (entry lines marked with a tab, then the trailer) after `before`, at
 * the end of `out`. Each entry's JSON is encoded into `out` as soon as it is serialized.
 *
 * Contract: throws (leaving `out` as it was) when an entry is not JSON data.
 */
export function encodeBatch(
  out: AppendBuffer,
  entries: readonly SessionEntry[],
  before: SessionTally,
): EncodedBatch {
  const start = out.length;
  const tally = { ...before };
  try {
    for (const entry of entries) {
      const json = encodeEntry(entry);
      if (typeof json !== "string") throw new TypeError(`entry "${entry.id}" serializes to nothing`);
      out.text(json);
      out.pair(BATCH_LINE_MARK_BYTE, NEWLINE_BYTE);
      // `name` is read only where it counts: looking up a property most entries lack costs ~6% of an append.
      const name = entry.type === "session_info" ? (entry as { name?: unknown }).name : undefined;
      countEntry(tally, entry.type, entry.id, entry.timestamp, name);
    }
    out.text(`${encodeTrailer(tally)}${NEWLINE}`);
  } catch (error) {
    out.truncate(start);
    throw error;
  }
  return { byteLength: out.length - start, tally };
}
