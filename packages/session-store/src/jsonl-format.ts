/**
 * @arbor/session-store/jsonl-format — the bytes of the JSONL session format (docs/session-format.md):
 * one JSON object per line, each line ending with a newline; line 1 is the header. The JSONL store
 * frames a batch of entries (docs/decisions/0005-jsonl-batch-trailer.md): every entry line of the batch
 * ends with a tab before its newline (`{…}\t\n`, JSON whitespace, invisible to any JSON reader), and the
 * batch ends with one trailer line `{"type":"session","arbor":"batch",…}` carrying the session's running
 * totals. A trailer is framing, never an entry: every reader of the format (the store, import, export)
 * recognizes it by the names here.
 *
 * Browser-safe: no Node built-in (session-view's exporter uses it).
 */

/** The end of every line (text). */
export const NEWLINE = "\n";

/** The end of every line (byte). */
export const NEWLINE_BYTE = 0x0a;

/** A carriage return: a line may end with one before its newline (a file edited with CRLF line ends). */
export const CARRIAGE_RETURN_BYTE = 0x0d;

/** The byte before the newline that marks a line as part of a batch whose trailer follows (a tab). */
export const BATCH_LINE_MARK_BYTE = 0x09;

/** What marks a trailer line: the fields it starts with, in this order. */
export const BATCH_TRAILER_TAG = { type: "session", arbor: "batch" } as const;

/** The first characters of every trailer line: `{"type":"session","arbor":"batch"`. */
export const BATCH_TRAILER_PREFIX: string = JSON.stringify(BATCH_TRAILER_TAG).slice(0, -1);

/** {@link BATCH_TRAILER_PREFIX} as UTF-8 bytes. */
export const BATCH_TRAILER_PREFIX_BYTES: Uint8Array = new TextEncoder().encode(BATCH_TRAILER_PREFIX);

/** True when a parsed line is a batch trailer (`type` "session" and `arbor` "batch"). */
export function isBatchTrailer(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const line = value as Record<string, unknown>;
  return line.type === BATCH_TRAILER_TAG.type && line.arbor === BATCH_TRAILER_TAG.arbor;
}

/** True when a line's text starts as a trailer does (it is not parsed). */
export function isBatchTrailerText(text: string): boolean {
  return text.startsWith(BATCH_TRAILER_PREFIX);
}

/**
 * True when the line `bytes[start, end)` (its content, without the newline) starts as a trailer does
 * and is longer than the prefix (it is not parsed: opening a file never parses a trailer).
 */
export function isBatchTrailerBytes(bytes: Uint8Array, start: number, end: number): boolean {
  const prefix = BATCH_TRAILER_PREFIX_BYTES;
  // Byte 9 is the first letter of the type: "s" for "session", something else for almost every entry.
  if (end - start <= prefix.length || bytes[start + 9] !== prefix[9]) return false;
  for (let index = 0; index < prefix.length; index++) {
    if (bytes[start + index] !== prefix[index]) return false;
  }
  return true;
}

/**
 * True when a parsed line after the header has `type` "session": a batch trailer (or a second header),
 * framing and never an entry. The pi agent's tree skips these lines too.
 */
export function isSessionLine(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<string, unknown>).type === BATCH_TRAILER_TAG.type
  );
}
