/**
 * Opening a session file: one pass over its bytes that reads only what the tree needs from each line
 * (type, id, parentId, where the line is) and leaves the bodies for {@link JsonlStoredEntry.entry}.
 */
import { SessionCorruptError, type SessionEntry, type SessionHeader } from "@arbor/session-store";
import { parseEntryText } from "@arbor/session-store/backend";
import {
  BATCH_LINE_MARK_BYTE,
  CARRIAGE_RETURN_BYTE,
  isBatchTrailer,
  isBatchTrailerBytes,
  isSessionLine,
  NEWLINE_BYTE,
} from "@arbor/session-store/jsonl-format";
import { countEntry, emptyTally, type SessionTally } from "./batch-format.js";
import { createLineHead, readLineHead } from "./line-head.js";
import { BufferEntrySource, type EntrySource, JsonlStoredEntry } from "./stored-entry.js";

const SPACE = 0x20;

/** The header line of a session file and where the entries start. */
export interface ParsedHeader {
  header: SessionHeader;
  /** Byte offset just after the header's newline. */
  headerEnd: number;
}

/**
 * Parses line 1 of a session file.
 *
 * Contract: throws `SessionCorruptError` when line 1 is missing, incomplete (no newline), not JSON, or
 * not a `{"type":"session","id":…}` object.
 */
export function parseHeaderLine(sessionId: string, buffer: Buffer): ParsedHeader {
  const newline = buffer.indexOf(NEWLINE_BYTE);
  if (newline < 0) {
    throw new SessionCorruptError(
      sessionId,
      buffer.length === 0 ? "the file is empty" : "the header line is incomplete",
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(buffer.toString("utf8", 0, newline));
  } catch (error) {
    throw new SessionCorruptError(sessionId, "line 1 (the header) is not valid JSON", { cause: error });
  }
  const header = value as SessionHeader;
  if (
    typeof value !== "object" ||
    value === null ||
    header.type !== "session" ||
    typeof header.id !== "string"
  ) {
    throw new SessionCorruptError(sessionId, 'line 1 is not a session header ({"type":"session","id":…})');
  }
  return { header, headerEnd: newline + 1 };
}

/**
 * Where the committed part of a file ends: before a last line with no newline (torn) and before a
 * run of batch lines at the end whose trailer never made it to disk. Never before `floor`.
 */
export function findCommittedEnd(buffer: Buffer, floor: number): number {
  let end = buffer.length;
  if (end > floor && buffer[end - 1] !== NEWLINE_BYTE)
    end = Math.max(floor, buffer.lastIndexOf(NEWLINE_BYTE, end - 1) + 1);
  while (end > floor) {
    const mark = buffer[end - 2] === CARRIAGE_RETURN_BYTE ? buffer[end - 3] : buffer[end - 2];
    if (mark !== BATCH_LINE_MARK_BYTE) break;
    end = end >= 2 ? Math.max(floor, buffer.lastIndexOf(NEWLINE_BYTE, end - 2) + 1) : floor;
  }
  return end;
}

/** Number of lines (complete or not) in `buffer[start, end)`. */
export function countLines(buffer: Buffer, start: number, end: number): number {
  let lines = 0;
  for (let position = start; position < end; lines++) {
    const newline = buffer.indexOf(NEWLINE_BYTE, position);
    position = newline < 0 || newline >= end ? end : newline + 1;
  }
  return lines;
}

/** A session file read into memory. */
export interface ReadFile {
  buffer: Buffer;
  header: SessionHeader;
  headerEnd: number;
  /** End of the committed bytes: what follows is a torn line or a batch without its trailer. */
  committedEnd: number;
}

/** Parses a session file's bytes: its header (which must name `sessionId`) and committed end. */
export function parseFile(sessionId: string, buffer: Buffer): ReadFile {
  const { header, headerEnd } = parseHeaderLine(sessionId, buffer);
  if (header.id !== sessionId) {
    throw new SessionCorruptError(
      sessionId,
      `the header names session "${header.id}" (the file was renamed?)`,
    );
  }
  return { buffer, header, headerEnd, committedEnd: findCommittedEnd(buffer, headerEnd) };
}

/** `the last 120 bytes (line 7: a torn write)`: what lies after the committed end. */
export function describeTail(read: ReadFile): string {
  const { buffer, committedEnd } = read;
  const firstLine = countLines(buffer, 0, committedEnd) + 1;
  const lines = countLines(buffer, committedEnd, buffer.length);
  const where = lines === 1 ? `line ${firstLine}` : `lines ${firstLine}-${firstLine + lines - 1}`;
  const what = buffer[buffer.length - 1] === NEWLINE_BYTE ? "a batch without its trailer" : "a torn write";
  return `the last ${buffer.length - committedEnd} bytes (${where}: ${what})`;
}

/** What {@link scanEntries} found. */
export interface ScanResult {
  entries: JsonlStoredEntry[];
  warnings: string[];
  tally: SessionTally;
}

/**
 * Scans the entry lines of a session file from `headerEnd` on, window by window: {@link scanWindow} reads
 * the complete lines of a window of the file (a buffer holding the file's bytes from some offset on),
 * {@link finish} closes the scan. The windows may reuse one buffer: no entry keeps a reference to it
 * (bodies are read back through the {@link EntrySource}).
 *
 * Contract: never throws for damaged lines. A line that is not JSON (or not an entry) is skipped with
 * a warning naming its line number; the entries of a batch whose trailer is missing (a write cut
 * short, followed by lines of another writer) are skipped with a warning; blank lines and trailers
 * are not entries. Only `session_info` lines and lines the fast path cannot read are parsed here.
 */
export class EntryScanner {
  private readonly entries: JsonlStoredEntry[] = [];
  private readonly warnings: string[] = [];
  private readonly head = createLineHead();
  private tally = emptyTally();
  private pendingIndex = -1;
  private pendingTally = emptyTally();
  private pendingFirstLine = 0;
  private lineNumber = 1;
  /** File offset of the next line to scan. */
  private position: number;

  constructor(
    private readonly source: EntrySource,
    headerEnd: number,
  ) {
    this.position = headerEnd;
  }

  /** File offset of the next line to scan (just after the last newline scanned). */
  get scanned(): number {
    return this.position;
  }

  /** True when the lines scanned so far end inside a batch whose trailer has not been seen. */
  get inBatch(): boolean {
    return this.pendingIndex >= 0;
  }

  /**
   * Scans the lines from the current position up to the file offset `end` (just after a newline, or the
   * end of the data), read from `buffer`, whose byte 0 is the file's byte `base`.
   */
  scanWindow(buffer: Buffer, base: number, end: number): void {
    const { entries, head } = this;
    const sessionId = this.source.sessionId;
    head.idBuffer = undefined; // The window's bytes may have moved since the last call.
    let position = this.position - base;
    const stop = end - base;
    while (position < stop) {
      let newline = buffer.indexOf(NEWLINE_BYTE, position);
      if (newline < 0 || newline >= stop) newline = stop;
      const lineNumber = ++this.lineNumber;
      const lineStart = position;
      position = newline + 1;
      const marked = buffer[newline - 1] === BATCH_LINE_MARK_BYTE;
      let contentEnd = newline;
      while (contentEnd > lineStart && isWhitespace(buffer[contentEnd - 1]!)) contentEnd--;
      if (contentEnd === lineStart) continue;
      if (isBatchTrailerBytes(buffer, lineStart, contentEnd)) {
        this.pendingIndex = -1; // The batch is committed.
        continue;
      }

      let type: string;
      let id: string;
      let parentId: string | null;
      let timestamp: unknown;
      let parsed: SessionEntry | undefined;
      if (readLineHead(buffer, lineStart, contentEnd, head, false) && head.type !== "session") {
        type = head.type;
        id = head.id;
        parentId = head.parentId;
        timestamp = undefined; // Only the last entry's is needed: read by finish().
      } else {
        let value: unknown;
        try {
          value = JSON.parse(buffer.toString(undefined, lineStart, contentEnd));
        } catch {
          if (this.pendingIndex >= 0 && !marked) this.dropPending(lineNumber - 1);
          this.warnings.push(`line ${lineNumber}: not valid JSON; skipped (the file is left as it is)`);
          continue;
        }
        const record = value as Record<string, unknown>;
        if (isSessionLine(value)) {
          if (isBatchTrailer(value)) {
            this.pendingIndex = -1;
          } else {
            this.warnings.push(`line ${lineNumber}: a second session header; skipped`);
          }
          continue;
        }
        if (
          typeof value !== "object" ||
          value === null ||
          typeof record.type !== "string" ||
          typeof record.id !== "string"
        ) {
          if (this.pendingIndex >= 0 && !marked) this.dropPending(lineNumber - 1);
          this.warnings.push(
            `line ${lineNumber}: not an entry (an object with a string type and id); skipped`,
          );
          continue;
        }
        type = record.type;
        id = record.id;
        parentId = typeof record.parentId === "string" ? record.parentId : null;
        timestamp = record.timestamp;
        parsed = value as SessionEntry;
      }

      if (marked) {
        if (this.pendingIndex < 0) {
          this.pendingIndex = entries.length;
          this.pendingTally = { ...this.tally };
          this.pendingFirstLine = lineNumber;
        }
      } else if (this.pendingIndex >= 0) {
        this.dropPending(lineNumber - 1);
      }
      let name: unknown;
      if (type === "session_info") {
        try {
          parsed ??= parseEntryText(
            sessionId,
            buffer.toString(undefined, lineStart, contentEnd),
            { type, id, parentId },
            `line ${lineNumber}`,
          );
          name = (parsed as { name?: unknown }).name;
        } catch (error) {
          this.warnings.push(`line ${lineNumber}: ${(error as Error).message}; skipped`);
          continue;
        }
      }
      entries.push(
        new JsonlStoredEntry(
          type,
          id,
          parentId,
          this.source,
          base + lineStart,
          base + contentEnd,
          lineNumber,
          parsed,
        ),
      );
      countEntry(this.tally, type, id, timestamp, name);
    }
    this.position = base + position;
  }

  /** Ends the scan (a batch still open at the end lost its trailer) and returns what it found. */
  finish(): ScanResult {
    if (this.pendingIndex >= 0) this.dropPending(this.lineNumber);
    this.tally.updatedAt = lastTimestamp(this.source, this.entries) ?? this.tally.updatedAt;
    return { entries: this.entries, warnings: this.warnings, tally: this.tally };
  }

  private dropPending(lastLine: number): void {
    const dropped = this.entries.length - this.pendingIndex;
    this.warnings.push(
      `lines ${this.pendingFirstLine}-${lastLine}: a batch without its trailer (a write cut short); its ` +
        `${dropped} entries are skipped (the file is left as it is)`,
    );
    this.entries.length = this.pendingIndex;
    this.tally = this.pendingTally;
    this.pendingIndex = -1;
  }
}

/**
 * Scans the entry lines in `buffer[headerEnd, end)` (`end` at a line boundary) in one go; see
 * {@link EntryScanner} for what is read and how damage is handled.
 */
export function scanEntries(sessionId: string, buffer: Buffer, headerEnd: number, end: number): ScanResult {
  const scanner = new EntryScanner(new BufferEntrySource(sessionId, buffer), headerEnd);
  scanner.scanWindow(buffer, 0, end);
  return scanner.finish();
}

/** The tree fields and timestamp at the start of a line, as this store and the pi agent write them. */
const LEADING_TIMESTAMP =
  /^\{"type":"[^"\\]*","id":"[^"\\]*","parentId":(?:null|"[^"\\]*"),"timestamp":"([^"\\]*)"/;

/** The timestamp of the last entry that has one (looking back at most 16 entries). */
function lastTimestamp(source: EntrySource, entries: readonly JsonlStoredEntry[]): string | undefined {
  for (let index = entries.length - 1; index >= 0 && index >= entries.length - 16; index--) {
    const entry = entries[index]!;
    try {
      const found = LEADING_TIMESTAMP.exec(source.text(entry.start, Math.min(entry.end, entry.start + 1024)));
      if (found !== null) return found[1];
      const timestamp = entry.entry().timestamp;
      if (typeof timestamp === "string") return timestamp;
    } catch {
      // A damaged line: look further back.
    }
  }
  return undefined;
}

/** JSON whitespace a line may end with before its newline: the batch mark (a tab), a carriage return, a space. */
function isWhitespace(byte: number): boolean {
  return byte === BATCH_LINE_MARK_BYTE || byte === CARRIAGE_RETURN_BYTE || byte === SPACE;
}
