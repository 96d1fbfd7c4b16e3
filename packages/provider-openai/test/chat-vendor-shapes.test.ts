import type { Model } from "@arbor/ai-providers";
import { chatFrames, type OpenAIWireServer, startOpenAIWireServer } from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIProvider } from "../src/index.js";
import { ask, drain } from "./helpers/run.js";

// Chunk shapes copied from streams recorded from the vendors' APIs (vercel/ai's test fixtures).

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Replays Chat Completions chunks (each a `choices[0]` delta, plus top-level extras) once. */
async function replay(chunks: Record<string, unknown>[]) {
  server = await startOpenAIWireServer([{ kind: "sse", frames: chatFrames(chunks) }]);
  const provider = createOpenAIProvider({ baseURL: server.url, apiKey: "k", api: "chat" });
  const model = provider.unlistedModel("vendor-model") as Model;
  return drain(provider.stream(model, ask("Hi")));
}

function chunk(delta: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { finish_reason = null, ...top } = extra;
  return {
    id: "chunk-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "vendor-model",
    choices: [{ index: 0, delta, finish_reason }],
    ...top,
  };
}

describe("Chat Completions: content as a list of parts (Mistral's reasoning models)", () => {
  it("reads thinking parts as thinking and text parts as text", async () => {
    const { result } = await replay([
      chunk({
        role: "assistant",
        content: [{ type: "thinking", thinking: [{ type: "text", text: "The user is asking" }] }],
      }),
      chunk({
        content: [
          {
            type: "thinking",
            thinking: [
              { type: "text", text: " for 2+2." },
              { type: "text", text: " 2+2=4." },
            ],
          },
        ],
      }),
      chunk({ content: [{ type: "text", text: "2 + 2 = 4" }] }),
      chunk(
        { content: "" },
        { finish_reason: "stop", usage: { prompt_tokens: 10, total_tokens: 56, completion_tokens: 46 } },
      ),
    ]);
    expect(result.stopReason).toBe("stop");
    expect(result.content).toEqual([
      { type: "thinking", thinking: "The user is asking for 2+2. 2+2=4." },
      { type: "text", text: "2 + 2 = 4" },
    ]);
    expect(result.notices).toBeUndefined();
    expect(result.usage).toMatchObject({ input: 10, output: 46, totalTokens: 56 });
  });

  it("keeps the text and names a part type it cannot read in a notice", async () => {
    const { result } = await replay([
      chunk({ content: [{ type: "text", text: "Here is the chart." }] }),
      chunk({ content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] }),
      chunk({ content: [{ type: "reference", reference_ids: [1, 2] }] }),
      chunk({}, { finish_reason: "stop" }),
    ]);
    expect(result.stopReason).toBe("stop");
    expect(result.content).toEqual([{ type: "text", text: "Here is the chart." }]);
    expect(result.notices).toEqual(['Arbor could not read part of this response: content part "image_url".']);
  });

  it("ends in an error naming the parts when nothing else was read", async () => {
    const { result } = await replay([
      chunk({ content: [{ type: "thinking", thinking: [{ type: "text", text: "Hmm." }] }] }),
      chunk({ content: [{ type: "audio", data: "UklGRg==" }] }),
      chunk({}, { finish_reason: "stop" }),
    ]);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain('content part "audio"');
    expect(result.content).toEqual([{ type: "thinking", thinking: "Hmm." }]);
  });
});

describe("Chat Completions: delta fields Arbor does not read are named, not dropped", () => {
  it("names an unknown delta field that carries content", async () => {
    const { result } = await replay([
      chunk({ role: "assistant", content: "Listen:" }),
      chunk({ audio: { id: "audio_1", transcript: "Hello there." } }),
      chunk({}, { finish_reason: "stop" }),
    ]);
    expect(result.content).toEqual([{ type: "text", text: "Listen:" }]);
    expect(result.notices).toEqual(['Arbor could not read part of this response: delta field "audio".']);
  });

  it("fails on a legacy function_call delta instead of ending with nothing", async () => {
    const { result } = await replay([
      chunk({ role: "assistant", function_call: { name: "get_weather", arguments: "" } }),
      chunk({ function_call: { arguments: '{"city":"Paris"}' } }),
      chunk({}, { finish_reason: "function_call" }),
    ]);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain('delta field "function_call"');
  });

  it("reads nothing into notices for metadata fields (role, index, empty values, Azure filter results)", async () => {
    const { result } = await replay([
      {
        choices: [],
        created: 0,
        id: "",
        model: "",
        object: "",
        prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }],
      },
      chunk({ role: "assistant", content: "", refusal: null, tool_calls: null, index: 0, audio: null }),
      chunk({ content: "Capital of Denmark." }),
      chunk({}, { finish_reason: "stop" }),
    ]);
    expect(result.content).toEqual([{ type: "text", text: "Capital of Denmark." }]);
    expect(result.notices).toBeUndefined();
    expect(result.responseId).toBe("chunk-1");
  });
});

describe("Chat Completions usage", () => {
  it("adds reasoning tokens that xAI leaves out of completion_tokens", async () => {
    // xAI: total_tokens = prompt + completion + reasoning (12 + 1 + 290 = 303).
    const { result } = await replay([
      chunk({ reasoning_content: "First, the user said", role: "assistant" }),
      chunk({ content: "Hello" }),
      chunk({}, { finish_reason: "stop" }),
      {
        id: "chunk-1",
        object: "chat.completion.chunk",
        created: 1,
        model: "grok-3-mini",
        choices: [],
        usage: {
          prompt_tokens: 12,
          completion_tokens: 1,
          total_tokens: 303,
          prompt_tokens_details: { text_tokens: 12, audio_tokens: 0, image_tokens: 0, cached_tokens: 11 },
          completion_tokens_details: { reasoning_tokens: 290, audio_tokens: 0 },
        },
      },
    ]);
    expect(result.usage).toMatchObject({ input: 1, cacheRead: 11, output: 291, totalTokens: 303 });
  });

  it("keeps completion_tokens as output where they include the reasoning (OpenAI, Alibaba)", async () => {
    const { result } = await replay([
      chunk({ reasoning_content: "We are asked", content: null }),
      chunk({ content: "3" }, { finish_reason: "stop" }),
      {
        id: "chunk-1",
        object: "chat.completion.chunk",
        created: 1,
        model: "qwen3-max",
        choices: [],
        usage: {
          prompt_tokens: 24,
          completion_tokens: 1355,
          total_tokens: 1379,
          completion_tokens_details: { reasoning_tokens: 1084 },
          prompt_tokens_details: { cached_tokens: 0 },
        },
      },
    ]);
    expect(result.usage).toMatchObject({ input: 24, cacheRead: 0, output: 1355, totalTokens: 1379 });
  });
});
