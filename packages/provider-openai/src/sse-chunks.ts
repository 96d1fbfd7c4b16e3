/**
 * Keeps the SDK's SSE decoding linear in the size of a network chunk.
 *
 * The openai SDK (6.x) joins each network chunk to its buffer and then, for every event in it, copies
 * the rest of the buffer (`data = data.slice(index)`): a chunk holding k events costs O(k × chunk
 * size). A 64 KB chunk of small deltas holds hundreds of events, so a fast server (or a burst after a
 * stall) makes the client copy megabytes per chunk. Handing the SDK one event per chunk — views into
 * the network chunk, no copies — makes that cost O(chunk size).
 */

const NEWLINE = 0x0a;

/** A transform that splits byte chunks after every `\n\n` (views, not copies). */
export function splitAfterEvents(): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let start = 0;
      const last = chunk.length - 1;
      for (let index = chunk.indexOf(NEWLINE); index !== -1 && index < last; ) {
        if (chunk[index + 1] === NEWLINE) {
          controller.enqueue(chunk.subarray(start, index + 2));
          start = index + 2;
        }
        index = chunk.indexOf(NEWLINE, index + 1);
      }
      if (start < chunk.length) controller.enqueue(start === 0 ? chunk : chunk.subarray(start));
    },
  });
}

/**
 * A `fetch` for the SDK client: event-stream responses get their body split after every event by
 * {@link splitAfterEvents}; every other response passes through untouched.
 */
export function eventSplittingFetch(base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const type = response.headers.get("content-type") ?? "";
    if (response.body === null || !type.includes("text/event-stream")) return response;
    return new Response(response.body.pipeThrough(splitAfterEvents()), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
