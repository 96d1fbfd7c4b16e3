import { StreamAlreadyIteratedError, StreamProtocolError } from "./errors.js";
import { type AssistantEvent, isTerminalEvent } from "./events.js";
import type { AssistantMessage } from "./types.js";

/**
 * An asynchronous stream of {@link AssistantEvent}s that ends with exactly one `done` or `error`
 * event, plus `result()` for the final message.
 */
export interface AssistantStream extends AsyncIterable<AssistantEvent> {
  /**
   * The final assistant message: the `done` event's `message` or the `error` event's `error`.
   *
   * Contract: never rejects. It resolves once the terminal event has been pushed, whether or not
   * anyone iterates the events.
   */
  result(): Promise<AssistantMessage>;
}

/** The producing side of an {@link AssistantStream}, returned by {@link createAssistantStream}. */
export interface AssistantStreamController extends AssistantStream {
  /**
   * Delivers one event to the consumer.
   *
   * Contract: events after the terminal event are a protocol violation and throw
   * `StreamProtocolError`.
   */
  push(event: AssistantEvent): void;
  /** True once the terminal event has been pushed. */
  readonly ended: boolean;
}

/**
 * Creates a push-based assistant stream. Events are buffered until read, so a producer may push
 * before the consumer starts iterating. The events can be iterated once; `result()` any number of
 * times.
 *
 * Most providers should not push events by hand: {@link createAssistantStreamWriter} builds the
 * partial message and emits a protocol-correct event sequence.
 */
export function createAssistantStream(): AssistantStreamController {
  const queue: AssistantEvent[] = [];
  let head = 0;
  let ended = false;
  let iterated = false;
  let wake: (() => void) | undefined;
  let resolveResult!: (message: AssistantMessage) => void;
  const resultPromise = new Promise<AssistantMessage>((resolve) => {
    resolveResult = resolve;
  });

  return {
    get ended() {
      return ended;
    },
    push(event) {
      if (ended) {
        throw new StreamProtocolError(`Event "${event.type}" pushed after the stream ended.`);
      }
      queue.push(event);
      if (isTerminalEvent(event)) {
        ended = true;
        resolveResult(event.type === "done" ? event.message : event.error);
      }
      const w = wake;
      wake = undefined;
      w?.();
    },
    result() {
      return resultPromise;
    },
    [Symbol.asyncIterator](): AsyncIterator<AssistantEvent> {
      if (iterated) throw new StreamAlreadyIteratedError();
      iterated = true;
      return {
        async next(): Promise<IteratorResult<AssistantEvent>> {
          while (head >= queue.length) {
            if (ended) return { done: true, value: undefined };
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          }
          const value = queue[head]!;
          queue[head] = undefined as unknown as AssistantEvent; // release for GC
          head++;
          if (head > 1024 && head * 2 > queue.length) {
            queue.splice(0, head);
            head = 0;
          }
          return { done: false, value };
        },
        async return(): Promise<IteratorResult<AssistantEvent>> {
          return { done: true, value: undefined };
        },
      };
    },
  };
}
