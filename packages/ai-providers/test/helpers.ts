import type { AssistantStream } from "../src/assistant-stream.js";
import type { AssistantEvent } from "../src/events.js";
import type { Model } from "../src/types.js";

/** A small model for tests. */
export function testModel(overrides: Partial<Model> = {}): Model {
  return {
    id: "test-model",
    name: "Test model",
    provider: "test",
    api: "openai-completions",
    reasoning: false,
    input: ["text"],
    cost: { input: 2, output: 10, cacheRead: 0.5, cacheWrite: 4 },
    contextWindow: 1000,
    maxTokens: 100,
    ...overrides,
  };
}

/** Collects every event of a stream. */
export async function collect(stream: AssistantStream): Promise<AssistantEvent[]> {
  const events: AssistantEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
