import type { Model } from "@arbor/ai-providers";
import {
  chatChunk,
  chatFrames,
  chatTextChunks,
  chatToolCallChunks,
  chatUsageChunk,
  describeProvider,
  type OpenAIWireReply,
  openAIErrorReply,
  type ProviderScenarioName,
  ResponsesStream,
  responsesFrames,
  startOpenAIWireServer,
} from "@internal/conformance";
import { expect } from "vitest";
import { createOpenAIProvider, type OpenAIApi } from "../src/index.js";
import { FAST_RETRY } from "./helpers/run.js";

const STORY = "Once upon a time there was a tree that grew very, very slowly. ".repeat(10);
const WEATHER_ARGS = { city: "Paris", unit: "celsius" };

/** The wire fixture of each scenario, in the format of `api`. */
function replies(api: OpenAIApi, scenario: ProviderScenarioName): OpenAIWireReply[] {
  const sse = (frames: string[], frameDelayMs?: number): OpenAIWireReply => ({
    kind: "sse",
    frames,
    frameDelayMs,
  });
  const chat = api === "chat";
  switch (scenario) {
    case "text":
    case "abortBeforeStart":
      return [
        chat
          ? sse(chatFrames(chatTextChunks("Hello! How can I help you today?")))
          : sse(
              responsesFrames(
                new ResponsesStream()
                  .created()
                  .message("msg_1", "Hello! How can I help you today?")
                  .completed().events,
              ),
            ),
      ];
    case "toolCall":
      return [
        chat
          ? sse(
              chatFrames(
                chatToolCallChunks([{ id: "call_1", name: "get_weather", arguments: WEATHER_ARGS }], {
                  text: "Let me check.",
                }),
              ),
            )
          : sse(
              responsesFrames(
                new ResponsesStream()
                  .created()
                  .message("msg_1", "Let me check.")
                  .functionCall("fc_1", "call_1", "get_weather", WEATHER_ARGS)
                  .completed().events,
              ),
            ),
      ];
    case "thinking":
      return [
        chat
          ? sse(
              chatFrames([
                chatChunk({ role: "assistant", content: "" }),
                chatChunk({ reasoning_content: "17 * 23 = 17 * 20 + 17 * 3" }),
                chatChunk({ reasoning_content: " = 340 + 51 = 391." }),
                chatChunk({ content: "391" }),
                chatChunk({}, "stop"),
                chatUsageChunk({ prompt: 15, completion: 12, reasoning: 10 }),
              ]),
            )
          : sse(
              responsesFrames(
                new ResponsesStream()
                  .created()
                  .reasoning("rs_1", ["17 * 23 = 17 * 20 + 17 * 3 = 340 + 51 = 391."], { encrypted: "enc" })
                  .message("msg_1", "391")
                  .completed({ input: 15, output: 12, reasoning: 10 }).events,
              ),
            ),
      ];
    case "abort":
      return [
        chat
          ? sse(chatFrames(chatTextChunks(STORY, { size: 8 })), 5)
          : sse(
              responsesFrames(
                new ResponsesStream().created().message("msg_1", STORY, { size: 8 }).completed().events,
              ),
              5,
            ),
      ];
    case "error": {
      const failure = openAIErrorReply(500, "The server had an error while processing your request.", {
        type: "server_error",
      });
      return [failure, failure, failure, failure];
    }
  }
}

for (const api of ["chat", "responses"] as const) {
  describeProvider({
    name: `openai (${api}) on a local wire server`,
    create: async (scenario) => {
      const server = await startOpenAIWireServer(replies(api, scenario));
      const provider = createOpenAIProvider({
        baseURL: server.url,
        preset: "openai",
        apiKey: "sk-test",
        api,
        retry: FAST_RETRY,
      });
      return {
        provider,
        model: provider.resolveModel("gpt-5.4-mini") as Model,
        cleanup: async () => {
          const expected = { abortBeforeStart: 0, error: 4 } as Partial<Record<ProviderScenarioName, number>>;
          expect(server.requests).toHaveLength(expected[scenario] ?? 1);
          await server.close();
        },
      };
    },
  });
}
