/**
 * The input editor's text, cursor and history as plain data with pure operations, so every key of the
 * editor is a function from one state to the next (and is tested without a terminal). The text may hold
 * several lines; the cursor is an offset into it.
 */

/** The editor's state. */
export interface EditorBuffer {
  readonly text: string;
  /** Offset of the cursor in `text` (0 … text.length). */
  readonly cursor: number;
  /** Submitted texts, oldest first. */
  readonly history: readonly string[];
  /** The history entry shown, or undefined while editing a new text. */
  readonly historyIndex: number | undefined;
  /** The text being edited when history browsing started (restored when browsing past the newest entry). */
  readonly draft: string;
  /** Large pastes shown as `[paste #n +L lines]` markers: paste n is `pastes[n - 1]` ({@link expandPastes}). */
  readonly pastes?: readonly string[];
}

/** A paste of more lines than this (or more characters than {@link PASTE_COLLAPSE_CHARS}) collapses. */
export const PASTE_COLLAPSE_LINES = 10;

/** A paste of more characters than this collapses to a marker. */
export const PASTE_COLLAPSE_CHARS = 1_000;

const PASTE_MARKER = /\[paste #(\d+) \+\d+ lines\]/g;

/** Entries kept in the history. */
export const HISTORY_LIMIT = 200;

/** An empty editor with a history (oldest first). */
export function createEditorBuffer(history: readonly string[] = []): EditorBuffer {
  return { text: "", cursor: 0, history: history.slice(-HISTORY_LIMIT), historyIndex: undefined, draft: "" };
}

function withText(buffer: EditorBuffer, text: string, cursor: number): EditorBuffer {
  return { ...buffer, text, cursor: Math.max(0, Math.min(cursor, text.length)), historyIndex: undefined };
}

/**
 * Inserts typed or pasted text at the cursor. Carriage returns become newlines; other control characters
 * (except tab) are dropped. A large paste (over {@link PASTE_COLLAPSE_LINES} lines or
 * {@link PASTE_COLLAPSE_CHARS} characters) is kept aside and shown as a marker, `[paste #1 +42 lines]`.
 *
 * Contract: pure.
 */
export function insertText(buffer: EditorBuffer, input: string): EditorBuffer {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
  const clean = input.replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "");
  if (clean === "") return buffer;
  const lines = clean.split("\n").length;
  let inserted = clean;
  let pastes = buffer.pastes;
  if (lines > PASTE_COLLAPSE_LINES || clean.length > PASTE_COLLAPSE_CHARS) {
    pastes = [...(pastes ?? []), clean];
    inserted = `[paste #${pastes.length} +${lines} lines]`;
  }
  const text = buffer.text.slice(0, buffer.cursor) + inserted + buffer.text.slice(buffer.cursor);
  return { ...withText(buffer, text, buffer.cursor + inserted.length), ...(pastes ? { pastes } : {}) };
}

/**
 * The buffer's text with each paste marker replaced by what was pasted (what is sent); a marker the
 * buffer holds no paste for stays as typed.
 *
 * Contract: pure.
 */
export function expandPastes(buffer: EditorBuffer): string {
  const pastes = buffer.pastes;
  if (pastes === undefined || pastes.length === 0) return buffer.text;
  return buffer.text.replace(PASTE_MARKER, (marker, number: string) => pastes[Number(number) - 1] ?? marker);
}

/** Deletes the character before the cursor. */
export function deleteBackward(buffer: EditorBuffer): EditorBuffer {
  if (buffer.cursor === 0) return buffer;
  const text = buffer.text.slice(0, buffer.cursor - 1) + buffer.text.slice(buffer.cursor);
  return withText(buffer, text, buffer.cursor - 1);
}

/** Deletes the character under the cursor. */
export function deleteForward(buffer: EditorBuffer): EditorBuffer {
  if (buffer.cursor >= buffer.text.length) return buffer;
  const text = buffer.text.slice(0, buffer.cursor) + buffer.text.slice(buffer.cursor + 1);
  return withText(buffer, text, buffer.cursor);
}

/** Deletes the word before the cursor (and the spaces after it). */
export function deleteWordBackward(buffer: EditorBuffer): EditorBuffer {
  const before = buffer.text.slice(0, buffer.cursor);
  const start = before.replace(/\S+\s*$|\s+$/, "").length;
  return withText(buffer, before.slice(0, start) + buffer.text.slice(buffer.cursor), start);
}

function lineStartOf(text: string, cursor: number): number {
  return text.lastIndexOf("\n", cursor - 1) + 1;
}

function lineEndOf(text: string, cursor: number): number {
  const end = text.indexOf("\n", cursor);
  return end === -1 ? text.length : end;
}

/** Deletes from the start of the cursor's line to the cursor. */
export function deleteToLineStart(buffer: EditorBuffer): EditorBuffer {
  const start = lineStartOf(buffer.text, buffer.cursor);
  return withText(buffer, buffer.text.slice(0, start) + buffer.text.slice(buffer.cursor), start);
}

/** Deletes from the cursor to the end of its line. */
export function deleteToLineEnd(buffer: EditorBuffer): EditorBuffer {
  const end = lineEndOf(buffer.text, buffer.cursor);
  return withText(buffer, buffer.text.slice(0, buffer.cursor) + buffer.text.slice(end), buffer.cursor);
}

/** Moves the cursor by `delta` characters. */
export function moveCursor(buffer: EditorBuffer, delta: number): EditorBuffer {
  const cursor = Math.max(0, Math.min(buffer.cursor + delta, buffer.text.length));
  return cursor === buffer.cursor ? buffer : { ...buffer, cursor };
}

/** Moves the cursor to the start of its line. */
export function moveToLineStart(buffer: EditorBuffer): EditorBuffer {
  return { ...buffer, cursor: lineStartOf(buffer.text, buffer.cursor) };
}

/** Moves the cursor to the end of its line. */
export function moveToLineEnd(buffer: EditorBuffer): EditorBuffer {
  return { ...buffer, cursor: lineEndOf(buffer.text, buffer.cursor) };
}

/**
 * Moves the cursor one line up (`-1`) or down (`1`), keeping its column where the line is long enough.
 * Returns undefined when there is no such line (the caller then browses the history).
 *
 * Contract: pure.
 */
export function moveLine(buffer: EditorBuffer, direction: -1 | 1): EditorBuffer | undefined {
  const { text, cursor } = buffer;
  const start = lineStartOf(text, cursor);
  const column = cursor - start;
  if (direction === -1) {
    if (start === 0) return undefined;
    const previousStart = lineStartOf(text, start - 1);
    return { ...buffer, cursor: Math.min(previousStart + column, start - 1) };
  }
  const end = lineEndOf(text, cursor);
  if (end === text.length) return undefined;
  const nextStart = end + 1;
  return { ...buffer, cursor: Math.min(nextStart + column, lineEndOf(text, nextStart)) };
}

/**
 * Shows the previous (`-1`, older) or next (`1`, newer) history entry; past the newest, the draft comes
 * back. Unchanged when there is nothing that way.
 *
 * Contract: pure.
 */
export function browseHistory(buffer: EditorBuffer, direction: -1 | 1): EditorBuffer {
  const { history } = buffer;
  if (buffer.historyIndex === undefined) {
    if (direction === 1 || history.length === 0) return buffer;
    const index = history.length - 1;
    const text = history[index]!;
    return { ...buffer, text, cursor: text.length, historyIndex: index, draft: buffer.text };
  }
  const index = buffer.historyIndex + direction;
  if (index < 0) return buffer;
  if (index >= history.length) {
    return { ...buffer, text: buffer.draft, cursor: buffer.draft.length, historyIndex: undefined, draft: "" };
  }
  const text = history[index]!;
  return { ...buffer, text, cursor: text.length, historyIndex: index };
}

/**
 * Empties the editor and records `submitted` in the history (unless it repeats the newest entry).
 *
 * Contract: pure; the history keeps the newest {@link HISTORY_LIMIT} entries.
 */
export function submitted(buffer: EditorBuffer, text: string): EditorBuffer {
  const history =
    text.trim() === "" || buffer.history[buffer.history.length - 1] === text
      ? buffer.history
      : [...buffer.history, text].slice(-HISTORY_LIMIT);
  return { text: "", cursor: 0, history, historyIndex: undefined, draft: "" };
}

/** Replaces the text (cursor at its end), e.g. after a completion. */
export function replaceText(buffer: EditorBuffer, text: string): EditorBuffer {
  return withText(buffer, text, text.length);
}

/** The cursor as a line and a column (both from 0). */
export function cursorPosition(buffer: EditorBuffer): { line: number; column: number } {
  const before = buffer.text.slice(0, buffer.cursor);
  let line = 0;
  for (let index = before.indexOf("\n"); index !== -1; index = before.indexOf("\n", index + 1)) line++;
  return { line, column: buffer.cursor - lineStartOf(buffer.text, buffer.cursor) };
}
