import type { AssistantStreamWriter } from "@arbor/ai-providers";

/**
 * Tracks whether streamed JSON text has closed its top-level value (`{...}` or `[...]`), in O(delta):
 * bracket depth outside strings, with escapes.
 */
class JsonCloseTracker {
  private depth = 0;
  private inString = false;
  private escaping = false;
  private started = false;
  /** True once the top-level object or array has been closed. */
  closed = false;

  push(text: string): void {
    if (this.closed) return;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaping) this.escaping = false;
        else if (code === 0x5c) this.escaping = true;
        else if (code === 0x22) this.inString = false;
        continue;
      }
      if (code === 0x22) this.inString = true;
      else if (code === 0x7b || code === 0x5b) {
        this.depth++;
        this.started = true;
      } else if (code === 0x7d || code === 0x5d) {
        this.depth--;
        if (this.started && this.depth === 0) {
          this.closed = true;
          return;
        }
      }
    }
  }
}

interface CallState {
  index: number;
  id: string | undefined;
  name: string | undefined;
  /** Argument pieces received while the call waits its turn. */
  buffered: string[];
  tracker: JsonCloseTracker;
  phase: "pending" | "active" | "closed";
}

/** One `tool_calls[]` entry of a Chat Completions delta. */
export interface ToolCallDeltaPart {
  index: number;
  id?: string | null;
  name?: string | null;
  arguments?: string | null;
}

/**
 * Turns Chat Completions `tool_calls` deltas (keyed by `index`, arguments in pieces) into the writer's
 * sequential block protocol.
 *
 * Servers stream calls one after another: when a new index appears and the open call's arguments are
 * a complete JSON value, the open call ends and the new one starts at once, so every call streams
 * live. When a new index appears while the open call's JSON is still unfinished (calls interleave),
 * the new call is buffered and starts only when the open one completes (or at {@link finish}), so
 * blocks never interleave and no piece is lost. Each piece is looked at once: O(total length).
 */
export class ToolCallSequencer {
  private readonly calls = new Map<number, CallState>();
  private readonly waiting: CallState[] = [];
  private active: CallState | undefined;

  constructor(
    private readonly writer: AssistantStreamWriter,
    private readonly newId: (index: number) => string,
  ) {}

  /** True while a call is open or waiting. */
  get busy(): boolean {
    return this.active !== undefined || this.waiting.length > 0;
  }

  /** Feeds one `tool_calls[]` entry. */
  push(part: ToolCallDeltaPart): void {
    let call = this.calls.get(part.index);
    if (call === undefined) {
      call = {
        index: part.index,
        id: undefined,
        name: undefined,
        buffered: [],
        tracker: new JsonCloseTracker(),
        phase: "pending",
      };
      this.calls.set(part.index, call);
      this.waiting.push(call);
    }
    if (call.phase === "closed") return; // a late piece of a finished call (whitespace at most)
    if (part.id) call.id = part.id;
    if (part.name && call.name === undefined) call.name = part.name;
    const piece = part.arguments ?? "";

    if (call.phase === "pending") {
      if (piece.length > 0) {
        call.buffered.push(piece);
        call.tracker.push(piece);
      }
      if (this.active === undefined || this.active.tracker.closed) this.advance();
      return;
    }
    // The open call.
    if (part.id && part.id !== this.writer.openToolCall?.id) this.writer.updateToolCall({ id: part.id });
    if (part.name && this.writer.openToolCall?.name === "") this.writer.updateToolCall({ name: part.name });
    if (piece.length > 0) {
      this.writer.toolCallDelta(piece);
      call.tracker.push(piece);
    }
    if (call.tracker.closed && this.waiting.length > 0) this.advance();
  }

  /** Ends the open call and streams every waiting call, in the order they appeared. */
  finish(): void {
    this.closeActive();
    while (this.waiting.length > 0) {
      this.open(this.waiting.shift() as CallState);
      this.closeActive();
    }
  }

  /** Closes the open call and opens waiting calls while the one just opened is already complete. */
  private advance(): void {
    this.closeActive();
    while (this.waiting.length > 0) {
      this.open(this.waiting.shift() as CallState);
      if (!(this.active?.tracker.closed && this.waiting.length > 0)) return;
      this.closeActive();
    }
  }

  private open(call: CallState): void {
    call.phase = "active";
    this.active = call;
    this.writer.startToolCall(call.id ?? this.newId(call.index), call.name ?? "");
    for (const piece of call.buffered) this.writer.toolCallDelta(piece);
    call.buffered = [];
  }

  private closeActive(): void {
    const active = this.active;
    if (active === undefined) return;
    active.phase = "closed";
    this.active = undefined;
    if (this.writer.openToolCall !== undefined) this.writer.endBlock();
  }
}
