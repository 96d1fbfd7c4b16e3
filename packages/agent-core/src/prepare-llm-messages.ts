import { type AssistantMessage, type Message, type Model, transformMessages } from "@arbor/ai-providers";

function isSkippedResponse(message: Message): boolean {
  return message.role === "assistant" && (message.stopReason === "error" || message.stopReason === "aborted");
}

function sameTarget(a: Model, b: Model): boolean {
  return (
    a === b ||
    (a.provider === b.provider &&
      a.api === b.api &&
      a.id === b.id &&
      a.input.includes("image") === b.input.includes("image"))
  );
}

function fromModel(message: AssistantMessage, model: Model): boolean {
  return message.provider === model.provider && message.api === model.api && message.model === model.id;
}

/**
 * Prepares the messages of each model call of one run: the converted transcript passed through
 * `transformMessages()` for the target model — incrementally. A run appends to its transcript, so
 * between two calls only the new messages need transforming; the result is exactly what
 * `transformMessages()` over the whole conversation returns (see the conditions below), at a cost of
 * O(new messages) plus one pointer copy of the list per call instead of a copy of every message.
 *
 * The previous output is extended when (1) the target model is the same, (2) the previous input is
 * an unchanged prefix of the new input (same objects: known without a look when `appendOnly` says
 * the input is the `LlmMessageConverter`'s only-growing array, else checked by reference), (3) the
 * first new message closes the previous turn as a full transform would (a `user` message or a kept
 * assistant message), (4) every new kept assistant message comes from the target model itself (its
 * ids are kept verbatim), and (5) none of its tool-call ids is already in the output or repeated among
 * the new messages (a full transform would rename the repeat, with a suffix chosen against the whole
 * output). Otherwise the whole conversation is transformed again.
 *
 * Internal: one instance per run.
 */
export class LlmMessagePreparer {
  private model: Model | undefined;
  private inputs: readonly Message[] = [];
  private inputLength = 0;
  private output: Message[] = [];
  private readonly outputIds = new Set<string>();

  /**
   * The messages to send: `transformMessages(converted, model)`, computed incrementally when possible.
   * Returns a new array each call (the caller may keep it); its messages may be shared between calls.
   */
  prepare(converted: readonly Message[], model: Model, appendOnly: boolean): Message[] {
    if (!this.extend(converted, model, appendOnly)) this.rebuild(converted, model, appendOnly);
    return this.output.slice();
  }

  private extend(converted: readonly Message[], model: Model, appendOnly: boolean): boolean {
    const previous = this.model;
    if (previous === undefined || !sameTarget(previous, model) || converted.length < this.inputLength)
      return false;
    if (appendOnly) {
      if (converted !== this.inputs) return false;
    } else {
      for (let index = 0; index < this.inputLength; index++) {
        if (converted[index] !== this.inputs[index]) return false;
      }
    }
    if (converted.length === this.inputLength) return true;
    const first = converted[this.inputLength]!;
    if (first.role === "toolResult" || isSkippedResponse(first)) return false;
    const suffix = converted.slice(this.inputLength);
    const newIds = new Set<string>();
    for (const message of suffix) {
      if (message.role !== "assistant" || isSkippedResponse(message)) continue;
      if (!fromModel(message, model)) return false;
      for (const block of message.content) {
        if (block.type !== "toolCall") continue;
        // An id already in the output, or repeated among the new calls: a full transform renames the
        // repeat with a suffix that must not collide with any id of the output.
        if (this.outputIds.has(block.id) || newIds.has(block.id)) return false;
        newIds.add(block.id);
      }
    }
    for (const message of transformMessages(suffix, model)) this.output.push(message);
    for (const id of newIds) this.outputIds.add(id);
    this.remember(converted, model, appendOnly);
    return true;
  }

  private rebuild(converted: readonly Message[], model: Model, appendOnly: boolean): void {
    this.output = transformMessages(converted, model);
    this.outputIds.clear();
    for (const message of this.output) {
      if (message.role !== "assistant") continue;
      for (const block of message.content) if (block.type === "toolCall") this.outputIds.add(block.id);
    }
    this.remember(converted, model, appendOnly);
  }

  private remember(converted: readonly Message[], model: Model, appendOnly: boolean): void {
    this.model = model;
    // The LlmMessageConverter's array only grows; any other array is copied, since nothing stops its
    // owner from changing it later.
    this.inputs = appendOnly ? converted : converted.slice();
    this.inputLength = converted.length;
  }
}
