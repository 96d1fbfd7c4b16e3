/**
 * Keys out of what the terminal sends. A terminal (tmux, SSH, mosh, an editor's terminal, key repeat under
 * load) often sends several keys in one chunk: `abc` then two Backspaces arrive as `"abc\x7f\x7f"`. ink
 * already splits escape sequences (arrows, Alt+key) out of a chunk, but hands the rest — plain text with
 * Backspace, Enter, Ctrl-letters in it — to `useInput` as one "key". Here each such chunk becomes the keys
 * it holds, in order: a run of printable text stays one text key, and each control character is its own key
 * with the flags ink gives that character alone ({@link controlKey}).
 *
 * Pastes: with bracketed paste on ({@link BRACKETED_PASTE_ON}), everything between `ESC[200~` and `ESC[201~`
 * is one paste key, line breaks and tabs included. A terminal without bracketed paste sends a paste as a
 * plain chunk; one of printable text (tabs allowed) with two or more line breaks is taken as a paste.
 */
import type { Key } from "ink";

/** One key: what ink's `useInput` gives for it alone, or text that was pasted. */
export interface TerminalKey {
  /** As ink gives it: the text typed, a Ctrl key's letter, or "" for a named key. */
  readonly input: string;
  readonly key: Key;
  /** Pasted text (line breaks and tabs are text, never Enter or Tab). */
  readonly paste?: true;
}

/** Turns bracketed paste on: the terminal then wraps what is pasted in {@link PASTE_START} … {@link PASTE_END}. */
export const BRACKETED_PASTE_ON = "\u001b[?2004h";
/** Turns bracketed paste off (the terminal's default). */
export const BRACKETED_PASTE_OFF = "\u001b[?2004l";
/** What a terminal sends before pasted text, with bracketed paste on. */
export const PASTE_START = "\u001b[200~";
/** What a terminal sends after pasted text, with bracketed paste on. */
export const PASTE_END = "\u001b[201~";

const ESCAPE = "\u001b";

/** A key with every flag off. */
export function plainKey(overrides: Partial<Key> = {}): Key {
  return {
    upArrow: false,
    downArrow: false,
    leftArrow: false,
    rightArrow: false,
    pageDown: false,
    pageUp: false,
    home: false,
    end: false,
    return: false,
    escape: false,
    ctrl: false,
    shift: false,
    tab: false,
    backspace: false,
    delete: false,
    meta: false,
    super: false,
    hyper: false,
    capsLock: false,
    numLock: false,
    ...overrides,
  };
}

/** Whether `code` is a C0 control character or DEL. */
function isControl(code: number): boolean {
  return code < 0x20 || code === 0x7f;
}

/**
 * The key one control character (U+0000–U+001F but ESC, or DEL) is, as ink's `useInput` gives it when the
 * character arrives alone: `\r` Enter, `\t` Tab, `\b` Backspace, DEL Delete (ink's name for the Backspace
 * key of most terminals), `\n` a line feed (Ctrl-J: the editor's new line), `\x01`–`\x1a` Ctrl and a letter.
 *
 * Contract: pure; `character` is one control character other than ESC.
 */
export function controlKey(character: string): TerminalKey {
  const code = character.charCodeAt(0);
  if (character === "\r") return { input: "\r", key: plainKey({ return: true }) };
  if (character === "\n") return { input: "\n", key: plainKey() };
  if (character === "\t") return { input: "", key: plainKey({ tab: true }) };
  if (character === "\b") return { input: "", key: plainKey({ backspace: true }) };
  if (code === 0x7f) return { input: "", key: plainKey({ delete: true }) };
  if (code <= 0x1a) return { input: String.fromCharCode(code + 0x60), key: plainKey({ ctrl: true }) };
  return { input: character, key: plainKey() };
}

function textKey(text: string): TerminalKey {
  return { input: text, key: plainKey({ shift: /^[A-Z]$/.test(text) }) };
}

/** The line breaks of `text` (`\r\n` counts once); undefined when it holds another control character. */
function lineBreaksOfPlainText(text: string): number | undefined {
  let breaks = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x0d) {
      breaks++;
      if (text.charCodeAt(index + 1) === 0x0a) index++;
    } else if (code === 0x0a) breaks++;
    else if (code !== 0x09 && isControl(code)) return undefined;
  }
  return breaks;
}

/**
 * The keys of a chunk that holds no escape sequence (ink splits those out): a run of printable text is one
 * key, each control character is its own ({@link controlKey}). A chunk of printable text and tabs with two
 * or more line breaks is a paste (what a terminal without bracketed paste sends): one paste key.
 *
 * Contract: pure; the keys' text, joined, is the chunk without its control characters.
 */
export function splitChunk(chunk: string): TerminalKey[] {
  const breaks = lineBreaksOfPlainText(chunk);
  if (breaks !== undefined && breaks >= 2) return [{ input: chunk, key: plainKey(), paste: true }];
  const keys: TerminalKey[] = [];
  let textStart = 0;
  for (let index = 0; index < chunk.length; index++) {
    if (!isControl(chunk.charCodeAt(index))) continue;
    if (index > textStart) keys.push(textKey(chunk.slice(textStart, index)));
    keys.push(controlKey(chunk[index]!));
    textStart = index + 1;
  }
  if (textStart < chunk.length) keys.push(textKey(chunk.slice(textStart)));
  return keys;
}

/**
 * Reads the terminal's input events, in order, into keys; it remembers whether a bracketed paste is open
 * (a paste may arrive over several events).
 */
export class KeyReader {
  private pasted: string | undefined;

  /**
   * The keys of one input event: `raw` is the event as ink's input parser cut it from the stream (plain
   * text and control characters, or one escape sequence), `input` and `key` what ink's `useInput` made of
   * it (used for escape sequences: arrows, Alt+key, a lone Esc).
   *
   * Contract: never throws; returns no key while a bracketed paste is open, then the paste as one key at
   * its end (none for an empty paste).
   */
  read(raw: string, input: string, key: Key): TerminalKey[] {
    if (this.pasted !== undefined) {
      if (raw !== PASTE_END) {
        this.pasted += raw;
        return [];
      }
      const text = this.pasted;
      this.pasted = undefined;
      return text === "" ? [] : [{ input: text, key: plainKey(), paste: true }];
    }
    if (raw === PASTE_START) {
      this.pasted = "";
      return [];
    }
    if (raw === PASTE_END) return [];
    if (raw.startsWith(ESCAPE) || raw.length <= 1) return [{ input, key }];
    return splitChunk(raw);
  }
}
