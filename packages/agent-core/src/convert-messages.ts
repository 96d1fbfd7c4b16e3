import { InvalidArgumentError, type Message } from "@arbor/ai-providers";
import { isLlmMessage } from "./convert-to-llm.js";
import type { AgentMessage } from "./types.js";

/**
 * Turns one transcript message into the messages the model sees for it (see
 * `AgentLoopConfig.convertMessageToLlm`).
 *
 * Contract: pure — the same message always gives the same result, whatever comes before or after it;
 * must not mutate the message nor change the returned array later; returns an array (often `[message]`
 * or `[]`); synchronous. A throw ends the run with a synthetic assistant error message.
 */
export type MessageToLlmConverter = (message: AgentMessage) => readonly Message[];

/**
 * A whole-transcript converter (the shape of `convertToLlm`) made of a per-message one: the messages
 * each transcript message converts to, in order — what the model sees with `convertMessageToLlm`.
 *
 * Contract: the returned function calls `convert` once per message; it throws what `convert` throws,
 * and `InvalidArgumentError` when `convert` returns something other than an array.
 */
export function convertEachMessage(convert: MessageToLlmConverter): (messages: AgentMessage[]) => Message[] {
  return (messages) => {
    const output: Message[] = [];
    for (const message of messages) pushConverted(output, convert(message), message);
    return output;
  };
}

function pushConverted(output: Message[], converted: unknown, source: AgentMessage): void {
  if (!Array.isArray(converted)) {
    const role = String((source as { role?: unknown }).role);
    throw new InvalidArgumentError(
      `convertMessageToLlm must return an array of messages; for a "${role}" message it returned ${describeValue(converted)}.`,
    );
  }
  for (const message of converted as readonly Message[]) output.push(message);
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : String(value);
}

/**
 * The conversion step of one run: each transcript message converted once with the per-message
 * converter (default: keep `user`, `assistant` and `toolResult` messages, drop custom ones).
 *
 * - {@link appendOnly}: over the run's own transcript, which only grows while it is the same array,
 *   only the messages added since the last call are converted; the result is an internal array that
 *   grows with them (so the preparer can extend its previous output in O(new messages)).
 * - {@link all}: any other list (e.g. what `transformContext` returned) is converted whole, each
 *   message's result reused from earlier calls (cached by message identity, so a converted summary is
 *   the same object on every call).
 *
 * Both equal `convertEachMessage(convert)(messages)`. Internal: one instance per run.
 */
export class LlmMessageConverter {
  /** Results that are not the message itself (`[message]` needs no cache: it costs one call). */
  private readonly cache = new WeakMap<object, readonly Message[]>();
  private transcript: readonly AgentMessage[] | undefined;
  private seen = 0;
  private converted: Message[] = [];

  constructor(private readonly convert: MessageToLlmConverter | undefined) {}

  /**
   * The converted transcript, converting only what was appended since the last call over the same
   * array (a different or shorter array starts over). Returns an internal array: do not change it; it
   * grows with the next call over the same transcript.
   */
  appendOnly(transcript: readonly AgentMessage[]): readonly Message[] {
    if (transcript !== this.transcript || transcript.length < this.seen) {
      this.transcript = transcript;
      this.seen = 0;
      this.converted = [];
    }
    while (this.seen < transcript.length) {
      this.push(this.converted, transcript[this.seen]!);
      this.seen++;
    }
    return this.converted;
  }

  /** The converted list (a new array). */
  all(messages: readonly AgentMessage[]): Message[] {
    const output: Message[] = [];
    for (const message of messages) this.push(output, message);
    return output;
  }

  private push(output: Message[], message: AgentMessage): void {
    const convert = this.convert;
    if (convert === undefined) {
      if (isLlmMessage(message)) output.push(message);
      return;
    }
    const cacheable = typeof message === "object" && message !== null;
    const cached = cacheable ? this.cache.get(message) : undefined;
    if (cached !== undefined) {
      for (const converted of cached) output.push(converted);
      return;
    }
    const result = convert(message);
    pushConverted(output, result, message);
    if (cacheable && !(result.length === 1 && result[0] === message)) this.cache.set(message, result);
  }
}
