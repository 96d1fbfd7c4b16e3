import type { Provider, StreamFn, StreamOptions } from "./provider.js";
import type { AssistantMessage, Context, Model } from "./types.js";

/**
 * Streams one response through a {@link StreamFn} or a provider (or registry) and returns only the
 * final message, draining the events.
 *
 * Contract: never rejects for provider failures — check `stopReason` (`error` / `aborted`) and
 * `errorMessage` on the result.
 */
export async function complete(
  source: StreamFn | Pick<Provider, "stream">,
  model: Model,
  context: Context,
  options?: StreamOptions,
): Promise<AssistantMessage> {
  const events =
    typeof source === "function" ? source(model, context, options) : source.stream(model, context, options);
  for await (const _event of events) {
    // draining: the final message arrives through result()
  }
  return events.result();
}
