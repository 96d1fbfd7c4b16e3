/**
 * The fast path of the scanner: reads the tree fields of a line written as
 * `{"type":"…","id":"…","parentId":null|"…","timestamp":"…",…` (the order the pi agent and this store
 * write) straight from the bytes, without JSON.parse. Any other spelling (another key order,
 * whitespace, escapes in these strings) returns false and the caller parses the line instead.
 */
import { KNOWN_ENTRY_TYPES } from "@arbor/session-store";

/** The tree fields of one line; filled in place by {@link readLineHead}. */
export interface LineHead {
  type: string;
  id: string;
  parentId: string | null;
  /** Only read when asked for; undefined when absent or not spelled as expected. */
  timestamp: string | undefined;
  /** Where `id`'s bytes are (in `idBuffer`): a next line whose parentId has the same bytes reuses it. */
  idBuffer: Buffer | undefined;
  idStart: number;
  idEnd: number;
}

/** A new, empty {@link LineHead} to reuse across lines. */
export function createLineHead(): LineHead {
  return {
    type: "",
    id: "",
    parentId: null,
    timestamp: undefined,
    idBuffer: undefined,
    idStart: 0,
    idEnd: 0,
  };
}

const OPEN_TYPE = bytes('{"type":"');
const ID_KEY = bytes(',"id":"');
const PARENT_KEY = bytes(',"parentId":');
const TIMESTAMP_KEY = bytes(',"timestamp":"');
const NULL = bytes("null");

/** Longest string the fast path reads; ids and types are far shorter. */
const MAX_STRING = 512;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;

/**
 * Reads the tree fields of the line `buffer[start, end)` (without its newline) into `head`.
 *
 * Returns false when the line does not start the expected way, or does not end with `}` (a cheap
 * check that catches most damaged lines); the caller then falls back to JSON.parse.
 */
export function readLineHead(
  buffer: Buffer,
  start: number,
  end: number,
  head: LineHead,
  withTimestamp: boolean,
): boolean {
  if (buffer[end - 1] !== CLOSE_BRACE || !matches(buffer, start, end, OPEN_TYPE)) return false;
  let position = start + OPEN_TYPE.length;
  let close = findQuote(buffer, position, end);
  if (close < 0) return false;
  const type = internType(buffer, position, close);
  position = close + 1;
  if (!matches(buffer, position, end, ID_KEY)) return false;
  position += ID_KEY.length;
  close = findQuote(buffer, position, end);
  if (close < 0) return false;
  const idStart = position;
  const idEnd = close;
  position = close + 1;
  if (!matches(buffer, position, end, PARENT_KEY)) return false;
  position += PARENT_KEY.length;
  let parentId: string | null;
  if (matches(buffer, position, end, NULL)) {
    parentId = null;
    position += NULL.length;
  } else if (buffer[position] === QUOTE) {
    close = findQuote(buffer, position + 1, end);
    if (close < 0) return false;
    // In a linear stretch the parent is the previous line: its id string is reused, not decoded again.
    parentId = sameBytes(buffer, position + 1, close, head) ? head.id : decode(buffer, position + 1, close);
    position = close + 1;
  } else {
    return false;
  }
  const next = buffer[position];
  if (next !== 0x2c && next !== CLOSE_BRACE) return false;
  head.type = type;
  head.id = decode(buffer, idStart, idEnd);
  head.idBuffer = buffer;
  head.idStart = idStart;
  head.idEnd = idEnd;
  head.parentId = parentId;
  head.timestamp = undefined;
  if (withTimestamp && matches(buffer, position, end, TIMESTAMP_KEY)) {
    position += TIMESTAMP_KEY.length;
    close = findQuote(buffer, position, end);
    if (close >= 0) head.timestamp = decode(buffer, position, close);
  }
  return true;
}

/** True when `buffer[start, end)` holds the bytes of the id `head` read last (from the same buffer). */
function sameBytes(buffer: Buffer, start: number, end: number, head: LineHead): boolean {
  const length = end - start;
  if (head.idBuffer !== buffer || head.idEnd - head.idStart !== length) return false;
  for (let index = 0; index < length; index++) {
    if (buffer[start + index] !== buffer[head.idStart + index]) return false;
  }
  return true;
}

function matches(buffer: Buffer, position: number, end: number, expected: Uint8Array): boolean {
  if (position + expected.length > end) return false;
  for (let index = 0; index < expected.length; index++) {
    if (buffer[position + index] !== expected[index]) return false;
  }
  return true;
}

/** Index of the closing quote of a string starting at `position`; -1 on an escape or when too long. */
function findQuote(buffer: Buffer, position: number, end: number): number {
  const limit = Math.min(end, position + MAX_STRING);
  for (let index = position; index < limit; index++) {
    const byte = buffer[index];
    if (byte === QUOTE) return index;
    if (byte === BACKSLASH || byte! < 0x20) return -1;
  }
  return -1;
}

/** The entry types pi and Arbor write, so the scanner does not build a new string for each line's type. */
const KNOWN_TYPES = KNOWN_ENTRY_TYPES.map((type) => ({ type, bytes: bytes(type) }));

function internType(buffer: Buffer, start: number, end: number): string {
  const length = end - start;
  for (const known of KNOWN_TYPES) {
    if (known.bytes.length === length && matches(buffer, start, end, known.bytes)) return known.type;
  }
  return decode(buffer, start, end);
}

function decode(buffer: Buffer, start: number, end: number): string {
  // No encoding: Buffer#toString goes straight to its UTF-8 decoder.
  return buffer.toString(undefined, start, end);
}

function bytes(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, "utf8"));
}
