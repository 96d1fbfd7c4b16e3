import type { AssistantEvent, AssistantMessage, AssistantStream, Context } from "@arbor/ai-providers";
import { checkStreamProtocol } from "@internal/conformance";
import { expect } from "vitest";

/** Drains a stream, checks the event protocol, and returns the events and the final message. */
export async function drain(
  stream: AssistantStream,
  onEvent?: (event: AssistantEvent) => void,
): Promise<{ events: AssistantEvent[]; result: AssistantMessage }> {
  const events: AssistantEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    onEvent?.(event);
  }
  const result = await stream.result();
  expect(checkStreamProtocol(events, result)).toEqual([]);
  return { events, result };
}

/** A one-message context. */
export function ask(text: string, extra: Partial<Context> = {}): Context {
  return {
    systemPrompt: "You are terse.",
    messages: [{ role: "user", content: text, timestamp: 1 }],
    ...extra,
  };
}

/** Retry settings that keep tests fast (exponential delays of a few milliseconds). */
export const FAST_RETRY = { baseDelayMs: 5, maxDelayMs: 20, jitter: 0 };
