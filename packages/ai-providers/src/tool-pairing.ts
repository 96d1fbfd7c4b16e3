import type { ToolResultMessage } from "./types.js";

/** Text of the synthetic tool result added for a tool call that got no result. */
export const MISSING_TOOL_RESULT_TEXT =
  "No result provided: the tool call was interrupted before it returned.";

/** A tool call of the open turn of a {@link ToolPairing}. */
export interface PairedToolCall {
  /** The id results name it by (as stored, before any rename). */
  readonly id: string;
  /** The id it goes out under; its result is given this id too. */
  readonly outId: string;
  readonly name: string;
}

/** Where {@link ToolPairing} writes its output and reports what it changed. */
export interface ToolPairingHooks<M, P> {
  /**
   * Appends a message to the output, with the provenance it came with (a synthetic result carries its
   * assistant's provenance).
   *
   * Contract: called in output order, once per output message; must not call back into the pairing.
   */
  emit(message: M | ToolResultMessage, provenance: P): void;
  /**
   * The form in which a kept result goes out, given the output id of the call it answers. Defaults to
   * the result itself, or a copy with `toolCallId: outId` when the ids differ.
   *
   * Contract: called once per kept result, when it is emitted; never for a dropped one; must not mutate
   * `result`.
   */
  answer?(result: ToolResultMessage, outId: string): ToolResultMessage;
  /**
   * A result answered no open call (no call, a closed turn, or a second result for one call): dropped.
   *
   * Contract: called once per dropped result, when it is passed in.
   */
  orphan?(result: ToolResultMessage, provenance: P): void;
  /**
   * A call got no result: a synthetic error result was emitted for it.
   *
   * Contract: called once per such call, right after its synthetic result is emitted; `provenance` is
   * the assistant message's; `call` is reused for later turns, so copy the fields you keep.
   */
  missing?(call: PairedToolCall, provenance: P): void;
  /**
   * A message held while calls were open was emitted after a result that came later than it.
   *
   * Contract: called once per moved message, right after it is emitted.
   */
  moved?(message: M, provenance: P): void;
}

/** Options of {@link ToolPairing}. */
export interface ToolPairingOptions<M, P> extends ToolPairingHooks<M, P> {
  /**
   * How the results of a turn follow its assistant message. `"calls"` (the default): in the order of the
   * calls, a synthetic result in its call's place. `"arrival"`: in the order they came, the synthetic
   * results after them.
   */
  order?: "calls" | "arrival";
  /**
   * The `timestamp` of a synthetic result: the assistant message's (`"assistant"`, the default) or that
   * of the message emitted just before it (`"previous"`). Either keeps the output deterministic.
   */
  syntheticTimestamp?: "assistant" | "previous";
}

/** A call of the open turn; reused across turns. */
interface Slot<P> extends PairedToolCall {
  id: string;
  outId: string;
  name: string;
  result: ToolResultMessage | undefined;
  /** The result's provenance. */
  from: P | undefined;
}

/** The default `answer`: the result itself, or a copy under the call's output id. */
function renamed(result: ToolResultMessage, outId: string): ToolResultMessage {
  return result.toolCallId === outId ? result : { ...result, toolCallId: outId };
}

function ignore(): void {}

/** Calls of one turn above which results are matched through a map rather than a scan. */
const SCAN_LIMIT = 16;

/**
 * The pairing rule of tool calls and results, shared by `transformMessages` and the session context:
 * the caller feeds messages in order and the pairing emits them so that every tool call of an assistant
 * message is followed by exactly one result before the next non-result message.
 *
 * - {@link ToolPairing.call} then {@link ToolPairing.open}: an assistant message and its calls start a
 *   turn (closing the open one).
 * - {@link ToolPairing.result}: a result answers the first unanswered call of the open turn with its id;
 *   it is kept (and renamed to the call's `outId`) or dropped as an orphan. The turn closes as soon as
 *   every call is answered.
 * - {@link ToolPairing.message}: any other message is emitted, or held while a turn is open and emitted
 *   after its results (a caller that wants a message to end the turn instead calls `close` first).
 * - {@link ToolPairing.close}: emits the turn's results, a synthetic error result
 *   ({@link MISSING_TOOL_RESULT_TEXT}, `isError: true`) for each unanswered call, then the held messages.
 *   Call it once more at the end of the input.
 *
 * Contract: never mutates a message it is given (renamed results are copies, or what `answer` returns);
 * keeps the relative order of everything it does not move; each method is O(1) amortized per message
 * and call (results of turns above 16 calls are matched through a map), and its working arrays are
 * reused across turns, so a whole context is linear with no allocation per message beyond the output.
 */
export class ToolPairing<M extends { timestamp: number }, P> {
  /** Calls of the open turn (the first `count`); reused across turns. */
  private slots: Slot<P>[] = [];
  private count = 0;
  /** Calls declared for the next `open` (the first `declared`); swapped with `slots` by it. */
  private next: Slot<P>[] = [];
  private declared = 0;
  private unanswered = 0;
  private turnProvenance: P | undefined;
  private turnTimestamp = 0;
  private lastTimestamp = 0;
  private byId: Map<string, Slot<P>[]> | undefined;
  private readonly arrival: Slot<P>[] = [];
  private readonly heldMessages: M[] = [];
  private readonly heldProvenance: P[] = [];
  /** How many of the held messages a later result was moved ahead of. */
  private overtaken = 0;
  private readonly byCalls: boolean;
  private readonly assistantTimestamp: boolean;

  // The hooks are held as fields with no-op defaults, so every pairing has one shape (one fast path).
  private readonly emitHook: (message: M | ToolResultMessage, provenance: P) => void;
  private readonly answerHook: (result: ToolResultMessage, outId: string) => ToolResultMessage;
  private readonly orphanHook: (result: ToolResultMessage, provenance: P) => void;
  private readonly missingHook: (call: PairedToolCall, provenance: P) => void;
  private readonly movedHook: ((message: M, provenance: P) => void) | undefined;

  constructor(options: ToolPairingOptions<M, P>) {
    this.byCalls = options.order !== "arrival";
    this.assistantTimestamp = options.syntheticTimestamp !== "previous";
    this.emitHook = options.emit;
    this.answerHook = options.answer ?? renamed;
    this.orphanHook = options.orphan ?? ignore;
    this.missingHook = options.missing ?? ignore;
    this.movedHook = options.moved;
  }

  /**
   * Declares a tool call of the assistant message passed to the next {@link ToolPairing.open}.
   *
   * Contract: call it for each call of that message, in order, before `open`; `id` is the id results
   * name, `outId` the id the call has in the message passed to `open`.
   */
  call(id: string, outId: string, name: string): void {
    const slot = this.next[this.declared];
    if (slot === undefined) this.next.push({ id, outId, name, result: undefined, from: undefined });
    else {
      slot.id = id;
      slot.outId = outId;
      slot.name = name;
      slot.result = undefined;
      slot.from = undefined;
    }
    this.declared += 1;
  }

  /**
   * Closes the open turn, emits an assistant message and opens a turn for the calls declared with
   * {@link ToolPairing.call} (none: no turn).
   *
   * Contract: `message` is emitted as given.
   */
  open(message: M, provenance: P): void {
    this.closeTurn();
    this.emit(message, provenance);
    const declared = this.declared;
    if (declared === 0) return;
    const slots = this.next;
    this.next = this.slots;
    this.slots = slots;
    this.declared = 0;
    this.count = declared;
    this.unanswered = declared;
    this.turnProvenance = provenance;
    this.turnTimestamp = message.timestamp;
    if (declared > SCAN_LIMIT) {
      const byId = new Map<string, Slot<P>[]>();
      for (let index = 0; index < declared; index++) {
        const slot = slots[index] as Slot<P>;
        const same = byId.get(slot.id);
        if (same === undefined) byId.set(slot.id, [slot]);
        else same.push(slot);
      }
      this.byId = byId;
    }
  }

  /**
   * Passes a tool result: kept for the first unanswered call of the open turn with its `toolCallId`,
   * else dropped (`orphan`). Returns whether it was kept.
   *
   * Contract: the result is emitted (through `answer`) when the turn closes, which is at once when it
   * answers the turn's last unanswered call.
   */
  result(message: ToolResultMessage, provenance: P): boolean {
    const slot = this.count > 0 ? this.find(message.toolCallId) : undefined;
    if (slot === undefined) {
      this.orphanHook(message, provenance);
      return false;
    }
    slot.result = message;
    slot.from = provenance;
    if (!this.byCalls) this.arrival.push(slot);
    this.unanswered -= 1;
    this.overtaken = this.heldMessages.length;
    if (this.unanswered === 0) this.close();
    return true;
  }

  /**
   * Passes any message that is neither an assistant message with calls nor a tool result.
   *
   * Contract: emitted at once when no turn is open; else held and emitted after the turn's results.
   */
  message(message: M, provenance: P): void {
    if (this.count === 0) {
      this.emit(message, provenance);
      return;
    }
    this.heldMessages.push(message);
    this.heldProvenance.push(provenance);
  }

  /**
   * Closes the open turn, if any: emits its results, synthetic ones for unanswered calls, then the held
   * messages.
   *
   * Contract: idempotent; call it at the end of the input (an unanswered call at the end gets a
   * synthetic result too: no provider accepts a conversation ending on one). Calls declared for the
   * next `open` stay declared.
   */
  close(): void {
    this.closeTurn();
  }

  private closeTurn(): void {
    if (this.count === 0) return;
    const provenance = this.turnProvenance as P;
    const { slots, count } = this;
    if (this.byCalls) {
      for (let index = 0; index < count; index++) this.emitCall(slots[index] as Slot<P>, provenance);
    } else {
      for (const slot of this.arrival) this.emitCall(slot, provenance);
      this.arrival.length = 0;
      for (let index = 0; index < count; index++) {
        const slot = slots[index] as Slot<P>;
        if (slot.result === undefined) this.emitCall(slot, provenance);
      }
    }
    const held = this.heldMessages;
    if (held.length > 0) {
      const moved = this.movedHook;
      for (let index = 0; index < held.length; index++) {
        const message = held[index] as M;
        const from = this.heldProvenance[index] as P;
        this.emit(message, from);
        if (index < this.overtaken) moved?.(message, from);
      }
      held.length = 0;
      this.heldProvenance.length = 0;
    }
    this.overtaken = 0;
    this.count = 0;
    this.unanswered = 0;
    this.byId = undefined;
    this.turnProvenance = undefined;
  }

  private emitCall(slot: Slot<P>, provenance: P): void {
    const result = slot.result;
    if (result !== undefined) {
      this.emit(this.answerHook(result, slot.outId), slot.from as P);
      return;
    }
    const synthetic: ToolResultMessage = {
      role: "toolResult",
      toolCallId: slot.outId,
      toolName: slot.name,
      content: [{ type: "text", text: MISSING_TOOL_RESULT_TEXT }],
      isError: true,
      timestamp: this.assistantTimestamp ? this.turnTimestamp : this.lastTimestamp,
    };
    this.emit(synthetic, provenance);
    this.missingHook(slot, provenance);
  }

  private emit(message: M | ToolResultMessage, provenance: P): void {
    this.lastTimestamp = message.timestamp;
    this.emitHook(message, provenance);
  }

  private find(id: string): Slot<P> | undefined {
    if (this.byId !== undefined) return this.byId.get(id)?.shift();
    for (let index = 0; index < this.count; index++) {
      const slot = this.slots[index] as Slot<P>;
      if (slot.result === undefined && slot.id === id) return slot;
    }
    return undefined;
  }
}
