/**
 * Every response of the recorded-stream corpus (`fixtures/streams/anthropic`: streams recorded from
 * Anthropic's API, with provenance) replayed through the provider over local HTTP and checked against
 * the corpus's independent reading.
 */
import type { Context } from "@arbor/ai-providers";
import { describeStreamCorpus } from "@internal/conformance";
import { createAnthropicProvider } from "../src/index.js";
import { SERVER_TOOL_BLOCKS, SKIPPED_DELTAS } from "../src/skipped-parts.js";

const ask: Context = { messages: [{ role: "user", content: "Go on.", timestamp: 1 }] };

describeStreamCorpus({
  folder: "anthropic",
  knowinglySkipped: new Set([...SERVER_TOOL_BLOCKS, ...SKIPPED_DELTAS]),
  stream(baseURL) {
    const provider = createAnthropicProvider({
      apiKey: "sk-ant-test-key",
      baseURL,
      retry: { maxRetries: 0 },
    });
    const model = provider.models.find((candidate) => candidate.id === "claude-sonnet-5-5");
    if (model === undefined) throw new Error("the catalog has no claude-sonnet-5-5");
    return provider.stream(model, ask);
  },
});
