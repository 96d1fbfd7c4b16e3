/**
 * Incremental JSON parser for tool-call arguments that arrive in pieces.
 *
 * Each character is examined once, so feeding an argument of length L in any number of deltas costs
 * O(L) in total (re-parsing the accumulated text on every delta, as the pi agent does, is O(L²)).
 * The value is built in place while it streams: `value` is always the partial object parsed so far —
 * strings in progress included, keys whose value has not started and unfinished literals left out.
 *
 * The parser is lenient where models are sloppy: raw control characters inside strings (a literal
 * newline instead of `\n`) are kept as the characters they are, which is the repair JSON.parse would
 * need.
 */

enum State {
  Value = 0,
  ArrayFirst = 1,
  ObjectFirst = 2,
  ObjectKey = 3,
  Key = 4,
  Colon = 5,
  AfterValue = 6,
  String = 7,
  Number = 8,
  Literal = 9,
  Done = 10,
  Error = 11,
}

interface ObjectFrame {
  kind: "object";
  value: Record<string, unknown>;
  key: string;
}

interface ArrayFrame {
  kind: "array";
  value: unknown[];
  /** Index of the element in progress. */
  slot: number;
}

type Frame = ObjectFrame | ArrayFrame;

/** The outcome of {@link StreamingJsonParser.finish}. */
export interface JsonParseResult {
  /** The parsed value; for incomplete or invalid input, the best partial value (or `undefined`). */
  value: unknown;
  /** True when the input was one complete JSON value. */
  complete: boolean;
  /** True when the value needed a repair (raw control characters, missing closing brackets, …). */
  repaired: boolean;
  /** Why the input is not valid JSON, when it is not. */
  error?: string;
}

/** The value of a complete literal, or `undefined` while it is not one. */
function literalValue(text: string): boolean | null | undefined {
  if (text === "true") return true;
  if (text === "false") return false;
  if (text === "null") return null;
  return undefined;
}

const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function isNumberChar(code: number): boolean {
  // 0-9 - + . e E
  return (
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2d ||
    code === 0x2b ||
    code === 0x2e ||
    code === 0x65 ||
    code === 0x45
  );
}

const NUMBER_PATTERN = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** Feeds JSON text in pieces and exposes the value parsed so far. See the module comment. */
export class StreamingJsonParser {
  private readonly chunks: string[] = [];
  private readonly stack: Frame[] = [];
  private state: State = State.Value;
  private root: unknown = undefined;
  private hasRoot = false;
  private errorMessage: string | undefined;
  /** Characters fed before the current delta (for error positions). */
  private offset = 0;

  // Token in progress.
  private buffer = "";
  private escaping = false;
  private unicodeHex: string | undefined;

  /** The value parsed so far (updated in place as deltas arrive). `undefined` before any value starts. */
  get value(): unknown {
    return this.root;
  }

  /** All text fed so far. */
  get text(): string {
    if (this.chunks.length > 1) {
      const joined = this.chunks.join("");
      this.chunks.length = 0;
      this.chunks.push(joined);
    }
    return this.chunks[0] ?? "";
  }

  /** True when the text so far is not a prefix of valid JSON (lenient about raw control characters). */
  get failed(): boolean {
    return this.state === State.Error;
  }

  /** Feeds the next piece of text. Costs O(delta.length). */
  push(delta: string): void {
    if (delta.length === 0) return;
    this.chunks.push(delta);
    if (this.state !== State.Error) this.consume(delta);
    this.offset += delta.length;
    // Expose the scalar in progress.
    if (this.state === State.String) {
      this.setValue(this.buffer);
    } else if (this.state === State.Number) {
      const numeric = Number(this.buffer);
      if (this.buffer !== "-" && Number.isFinite(numeric)) this.setValue(numeric);
    }
  }

  /**
   * Ends the input and returns the exact value. When the incremental parse completed cleanly its value
   * equals `JSON.parse(text)`; otherwise JSON.parse is tried, then a repair of raw control characters,
   * and finally the partial value is returned with `complete: false`.
   */
  finish(): JsonParseResult {
    if (this.state === State.Number && this.stack.length === 0) this.endNumber(0);
    if (this.state === State.Done) return { value: this.root, complete: true, repaired: false };
    const text = this.text;
    if (text.trim() === "")
      return { value: undefined, complete: false, repaired: false, error: "empty input" };
    try {
      return { value: JSON.parse(text), complete: true, repaired: false };
    } catch {
      // fall through to repairs
    }
    const escaped = escapeControlCharactersInStrings(text);
    if (escaped !== text) {
      try {
        return { value: JSON.parse(escaped), complete: true, repaired: true };
      } catch {
        // fall through
      }
    }
    const error =
      this.state === State.Error ? this.errorMessage : "unexpected end of input (the JSON is incomplete)";
    return { value: this.root, complete: false, repaired: this.hasRoot, error };
  }

  private consume(delta: string): void {
    const length = delta.length;
    let i = 0;
    while (i < length) {
      const state = this.state;
      if (state === State.String || state === State.Key) {
        i = this.readString(delta, i);
        continue;
      }
      const code = delta.charCodeAt(i);
      if (state === State.Number) {
        if (isNumberChar(code)) {
          this.buffer += delta[i];
          i++;
        } else if (!this.endNumber(i)) {
          return;
        }
        continue; // the delimiter is examined again in the AfterValue state
      }
      if (state === State.Literal) {
        if (code < 0x61 || code > 0x7a) {
          this.fail(`invalid literal "${this.buffer}"`, i);
          return;
        }
        this.buffer += delta[i];
        i++;
        const literal = literalValue(this.buffer);
        if (literal !== undefined) {
          this.setValue(literal);
          this.afterValue();
        } else if (this.buffer.length >= 5) {
          this.fail(`invalid literal "${this.buffer}"`, i);
          return;
        }
        continue;
      }
      if (isWhitespace(code)) {
        i++;
        continue;
      }
      const ch = delta[i]!;
      switch (state) {
        case State.ArrayFirst:
          if (ch === "]") {
            this.closeContainer("array", i);
            break;
          }
          this.startValue(ch, i);
          break;
        case State.Value:
          this.startValue(ch, i);
          break;
        case State.ObjectFirst:
        case State.ObjectKey:
          if (ch === '"') {
            this.state = State.Key;
            this.buffer = "";
          } else if (state === State.ObjectFirst && ch === "}") {
            this.closeContainer("object", i);
          } else {
            this.fail(`expected a key, found "${ch}"`, i);
            return;
          }
          break;
        case State.Colon:
          if (ch !== ":") {
            this.fail(`expected ":", found "${ch}"`, i);
            return;
          }
          this.state = State.Value;
          break;
        case State.AfterValue: {
          const top = this.stack[this.stack.length - 1]!;
          if (ch === ",") {
            this.state = top.kind === "object" ? State.ObjectKey : State.Value;
          } else if (ch === "}" || ch === "]") {
            this.closeContainer(ch === "}" ? "object" : "array", i);
          } else {
            this.fail(`unexpected "${ch}"`, i);
            return;
          }
          break;
        }
        default: {
          this.fail(`unexpected "${ch}" after the value`, i);
          return;
        }
      }
      if (this.state === State.Error) return;
      i++;
    }
  }

  /** Reads string characters from `start`; returns the index after what it consumed. */
  private readString(delta: string, start: number): number {
    const length = delta.length;
    let i = start;
    let runStart = i;
    while (i < length) {
      if (this.unicodeHex !== undefined) {
        this.unicodeHex += delta[i];
        i++;
        runStart = i;
        if (this.unicodeHex.length < 4) continue;
        if (!HEX4.test(this.unicodeHex)) {
          this.fail(`invalid unicode escape "\\u${this.unicodeHex}"`, i);
          return length;
        }
        this.buffer += String.fromCharCode(Number.parseInt(this.unicodeHex, 16));
        this.unicodeHex = undefined;
        continue;
      }
      if (this.escaping) {
        const ch = delta[i]!;
        i++;
        runStart = i;
        this.escaping = false;
        if (ch === "u") {
          this.unicodeHex = "";
          continue;
        }
        const decoded = ESCAPES[ch];
        if (decoded === undefined) {
          this.fail(`invalid escape "\\${ch}"`, i);
          return length;
        }
        this.buffer += decoded;
        continue;
      }
      const code = delta.charCodeAt(i);
      if (code === 0x22 /* " */) {
        if (i > runStart) this.buffer += delta.slice(runStart, i);
        this.endString();
        return i + 1;
      }
      if (code === 0x5c /* \ */) {
        if (i > runStart) this.buffer += delta.slice(runStart, i);
        this.escaping = true;
        runStart = i + 1;
      }
      i++;
    }
    if (i > runStart) this.buffer += delta.slice(runStart, i);
    return i;
  }

  private endString(): void {
    const text = this.buffer;
    this.buffer = "";
    if (this.state === State.Key) {
      (this.stack[this.stack.length - 1] as ObjectFrame).key = text;
      this.state = State.Colon;
      return;
    }
    this.setValue(text);
    this.afterValue();
  }

  private endNumber(index: number): boolean {
    if (!NUMBER_PATTERN.test(this.buffer)) {
      this.fail(`invalid number "${this.buffer}"`, index);
      return false;
    }
    this.setValue(Number(this.buffer));
    this.buffer = "";
    this.afterValue();
    return true;
  }

  private startValue(ch: string, index: number): void {
    const top = this.stack[this.stack.length - 1];
    if (top?.kind === "array") top.slot = top.value.length;
    if (ch === "{") {
      const value: Record<string, unknown> = {};
      this.setValue(value);
      this.stack.push({ kind: "object", value, key: "" });
      this.state = State.ObjectFirst;
    } else if (ch === "[") {
      const value: unknown[] = [];
      this.setValue(value);
      this.stack.push({ kind: "array", value, slot: 0 });
      this.state = State.ArrayFirst;
    } else if (ch === '"') {
      this.buffer = "";
      this.state = State.String;
      this.setValue("");
    } else if (ch === "-" || (ch >= "0" && ch <= "9")) {
      this.buffer = ch;
      this.state = State.Number;
    } else if (ch === "t" || ch === "f" || ch === "n") {
      this.buffer = ch;
      this.state = State.Literal;
    } else {
      this.fail(`unexpected "${ch}" where a value should start`, index);
    }
  }

  private setValue(value: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) {
      this.root = value;
      this.hasRoot = true;
    } else if (top.kind === "array") {
      top.value[top.slot] = value;
    } else if (top.key === "__proto__") {
      Object.defineProperty(top.value, "__proto__", {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      top.value[top.key] = value;
    }
  }

  private afterValue(): void {
    this.state = this.stack.length === 0 ? State.Done : State.AfterValue;
  }

  private closeContainer(kind: "object" | "array", index: number): void {
    const frame = this.stack[this.stack.length - 1];
    if (frame?.kind !== kind) {
      this.fail(`unexpected "${kind === "object" ? "}" : "]"}"`, index);
      return;
    }
    this.stack.pop();
    this.afterValue();
  }

  private fail(message: string, index: number): void {
    this.state = State.Error;
    this.errorMessage = `${message} at character ${this.offset + index}`;
  }
}

const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * Escapes raw control characters (U+0000–U+001F) that appear inside JSON strings, leaving the rest of
 * the text untouched. Costs O(text.length).
 */
export function escapeControlCharactersInStrings(text: string): string {
  let out = "";
  let runStart = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) {
        i++;
        continue;
      }
      if (code === 0x22) {
        inString = false;
      } else if (code < 0x20) {
        out += text.slice(runStart, i) + controlEscape(code);
        runStart = i + 1;
      }
    } else if (code === 0x22) {
      inString = true;
    }
  }
  return runStart === 0 ? text : out + text.slice(runStart);
}

function controlEscape(code: number): string {
  switch (code) {
    case 0x0a:
      return "\\n";
    case 0x0d:
      return "\\r";
    case 0x09:
      return "\\t";
    case 0x08:
      return "\\b";
    case 0x0c:
      return "\\f";
    default:
      return `\\u${code.toString(16).padStart(4, "0")}`;
  }
}

/**
 * Parses possibly incomplete JSON in one call and returns the best value: the exact value for
 * complete input, the partial value otherwise. Convenience for one-off use; streaming code should keep
 * a {@link StreamingJsonParser} and feed it deltas.
 */
export function parsePartialJson(text: string): JsonParseResult {
  const parser = new StreamingJsonParser();
  parser.push(text);
  return parser.finish();
}
