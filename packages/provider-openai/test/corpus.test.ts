/**
 * Every response of the recorded-stream corpus (`fixtures/streams/openai-chat` and `openai-responses`:
 * streams recorded from the real APIs of OpenAI and OpenAI-compatible vendors, with provenance) replayed
 * through the provider over local HTTP and checked against the corpus's independent reading.
 */
import type { Context } from "@arbor/ai-providers";
import { describeStreamCorpus, type RecordedResponse } from "@internal/conformance";
import { createOpenAIProvider, type OpenAIPresetName } from "../src/index.js";
import { SKIPPED_OUTPUT_ITEMS } from "../src/responses/output-items.js";

const ask: Context = { messages: [{ role: "user", content: "Go on.", timestamp: 1 }] };

/** The preset a user of each vendor picks (any other vendor: `openai-compatible` with its base URL). */
const PRESETS: Record<string, OpenAIPresetName> = {
  OpenAI: "openai",
  "Azure OpenAI": "openai",
  "GitHub Copilot": "openai",
  DeepSeek: "deepseek",
  Groq: "groq",
  "LM Studio": "lm-studio",
};

function streamThrough(api: "chat" | "responses") {
  return (baseURL: string, response: RecordedResponse) => {
    const provider = createOpenAIProvider({
      baseURL,
      apiKey: "sk-test",
      api,
      preset: PRESETS[response.vendor] ?? "openai-compatible",
      retry: { maxRetries: 0 },
    });
    return provider.stream(provider.unlistedModel("recorded-model"), ask);
  };
}

/** Arbor keeps a Responses function call's id as `<call_id>|<item id>`. */
const callIdOf = (id: string) => id.split("|")[0] ?? id;

describeStreamCorpus({ folder: "openai-chat", stream: streamThrough("chat") });
describeStreamCorpus({
  folder: "openai-responses",
  stream: streamThrough("responses"),
  vendorToolCallId: callIdOf,
  knowinglySkipped: new Set(Object.keys(SKIPPED_OUTPUT_ITEMS)),
});
