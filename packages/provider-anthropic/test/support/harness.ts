import type { AssistantEvent, AssistantMessage, AssistantStream, Model, Provider } from "@arbor/ai-providers";
import {
  type FakeAnthropicReply,
  type FakeAnthropicServer,
  startFakeAnthropicServer,
} from "@internal/conformance";
import { createAnthropicProvider } from "../../src/index.js";
import type { AnthropicProviderSettings } from "../../src/settings.js";

/** A provider pointed at a fresh fake server. */
export interface WireSetup {
  server: FakeAnthropicServer;
  provider: Provider;
  /** The catalog's Claude Sonnet 5.5. */
  model: Model;
}

/** Retries without waiting, so tests stay quick (server `retry-after` values are still honoured). */
export const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 5, jitter: 0 } as const;

/** Starts a fake server with `replies` and a provider (test key, fast retries) pointed at it. */
export async function setupWire(
  replies: FakeAnthropicReply[],
  settings: AnthropicProviderSettings = {},
): Promise<WireSetup> {
  const server = await startFakeAnthropicServer(replies);
  const provider = createAnthropicProvider({
    apiKey: "sk-ant-test-key",
    baseURL: server.url,
    retry: FAST_RETRY,
    ...settings,
  });
  const model = provider.models.find((candidate) => candidate.id === "claude-sonnet-5-5")!;
  return { server, provider, model };
}

/** Every event of a stream and its final message. */
export async function drain(
  stream: AssistantStream,
): Promise<{ events: AssistantEvent[]; result: AssistantMessage }> {
  const events: AssistantEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, result: await stream.result() };
}
