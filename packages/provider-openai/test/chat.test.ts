import type { AssistantMessage, Context, Model } from "@arbor/ai-providers";
import { Type } from "@arbor/ai-providers";
import {
  chatChunk,
  chatFrames,
  chatTextChunks,
  chatToolCallChunks,
  chatToolCallPiece,
  chatToolCallStart,
  chatUsageChunk,
  type OpenAIWireReply,
  type OpenAIWireServer,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIProvider, type OpenAIProviderSettings } from "../src/index.js";
import { ask, drain } from "./helpers/run.js";

const WEATHER = {
  name: "get_weather",
  description: "Weather of a city.",
  parameters: Type.Object({ city: Type.String(), unit: Type.Optional(Type.String()) }),
};

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(replies: OpenAIWireReply[], settings: OpenAIProviderSettings = {}) {
  server = await startOpenAIWireServer(replies);
  const provider = createOpenAIProvider({ baseURL: server.url, apiKey: "sk-test", api: "chat", ...settings });
  return { server, provider };
}

function sse(chunks: Record<string, unknown>[]): OpenAIWireReply {
  return { kind: "sse", frames: chatFrames(chunks) };
}

describe("Chat Completions against OpenAI (preset openai, api chat)", () => {
  it("streams text, maps cached usage without double counting, and sends the OpenAI request shape", async () => {
    const { server, provider } = await setup(
      [
        sse(
          chatTextChunks("Hello there, friend!", {
            usage: { prompt: 100, completion: 20, cached: 60, reasoning: 5 },
          }),
        ),
      ],
      { preset: "openai" },
    );
    const model = provider.resolveModel("gpt-5.4-mini") as Model;
    const { events, result } = await drain(
      provider.stream(model, ask("Hi"), { maxTokens: 1000, reasoning: "high" }),
    );

    expect(result.stopReason).toBe("stop");
    expect(result.content).toEqual([{ type: "text", text: "Hello there, friend!" }]);
    expect(events.filter((event) => event.type === "text_delta").length).toBe(5);
    expect(result.api).toBe("openai-completions");
    expect(result.responseId).toBe("chatcmpl-test");
    expect(result.usage).toMatchObject({
      input: 40,
      cacheRead: 60,
      cacheWrite: 0,
      output: 20,
      totalTokens: 120,
    });
    expect(result.usage.cost.input).toBeCloseTo((40 * 0.75) / 1e6, 12);
    expect(result.usage.cost.cacheRead).toBeCloseTo((60 * 0.075) / 1e6, 12);
    expect(result.usage.cost.output).toBeCloseTo((20 * 4.5) / 1e6, 12);

    const [request] = server.requests;
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe("Bearer sk-test");
    expect(request?.body).toMatchObject({
      model: "gpt-5.4-mini",
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 1000,
      reasoning_effort: "high",
      messages: [
        { role: "developer", content: "You are terse." },
        { role: "user", content: "Hi" },
      ],
    });
    expect(request?.body).not.toHaveProperty("max_tokens");
  });

  it("uses the system role for a model without reasoning and clamps the output limit to the model's", async () => {
    const { server, provider } = await setup([sse(chatTextChunks("ok"))], { preset: "openai" });
    const model = provider.resolveModel("gpt-4o-mini") as Model;
    await drain(provider.stream(model, ask("Hi"), { maxTokens: 1_000_000 }));
    expect(server.requests[0]?.body).toMatchObject({
      messages: [{ role: "system" }, { role: "user" }],
      max_completion_tokens: 16_384,
    });
    expect(server.requests[0]?.body).not.toHaveProperty("reasoning_effort");
  });

  it("clamps reasoning effort to what the model accepts", async () => {
    const { server, provider } = await setup(
      [sse(chatTextChunks("a")), sse(chatTextChunks("b")), sse(chatTextChunks("c"))],
      {
        preset: "openai",
      },
    );
    const gpt54 = provider.resolveModel("gpt-5.4-mini") as Model;
    const o3 = provider.resolveModel("o3") as Model;
    await drain(provider.stream(gpt54, ask("x"), { reasoning: "off" }));
    await drain(provider.stream(gpt54, ask("x"), { reasoning: "minimal" }));
    await drain(provider.stream(o3, ask("x"), { reasoning: "xhigh" }));
    expect(server.requests.map((request) => request.body?.reasoning_effort)).toEqual(["none", "low", "high"]);
  });
});

describe("Chat Completions tool calls", () => {
  it("assembles arguments split across many chunks and sends tools in the function shape", async () => {
    const args = { city: "Paris", unit: "celsius", note: 'quotes " and \\ and é' };
    const { server, provider } = await setup(
      [
        sse(
          chatToolCallChunks([{ id: "call_abc", name: "get_weather", arguments: args }], {
            size: 1,
            text: "Checking.",
          }),
        ),
      ],
      { preset: "ollama" },
    );
    const model = provider.resolveModel("llama3.2") as Model;
    // The partial arguments grow while they stream (the partial message is updated in place).
    const cities: unknown[] = [];
    const { events, result } = await drain(
      provider.stream(model, ask("Weather?", { tools: [WEATHER] })),
      (event) => {
        if (event.type === "toolcall_delta") {
          cities.push((event.partial.content[1] as { arguments: { city?: string } }).arguments.city);
        }
      },
    );
    expect(cities).toContain("Par");
    expect(result.stopReason).toBe("toolUse");
    expect(result.content[0]).toEqual({ type: "text", text: "Checking." });
    expect(result.content[1]).toEqual({
      type: "toolCall",
      id: "call_abc",
      name: "get_weather",
      arguments: args,
    });
    expect(events.filter((event) => event.type === "toolcall_delta").length).toBe(
      JSON.stringify(args).length,
    );

    const body = server.requests[0]?.body;
    expect(body?.tools).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Weather of a city.",
          parameters: asJson(WEATHER.parameters),
        },
      },
    ]);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test");
  });

  it("streams parallel calls one after another, each live", async () => {
    const { provider } = await setup([
      sse(
        chatToolCallChunks([
          { id: "call_1", name: "get_weather", arguments: { city: "Paris" } },
          { id: "call_2", name: "get_weather", arguments: { city: "Oslo" } },
          { id: "call_3", name: "get_time", arguments: {} },
        ]),
      ),
    ]);
    const model = provider.resolveModel("m") as Model;
    const { events, result } = await drain(provider.stream(model, ask("Both?", { tools: [WEATHER] })));
    expect(result.content).toEqual([
      { type: "toolCall", id: "call_1", name: "get_weather", arguments: { city: "Paris" } },
      { type: "toolCall", id: "call_2", name: "get_weather", arguments: { city: "Oslo" } },
      { type: "toolCall", id: "call_3", name: "get_time", arguments: {} },
    ]);
    // Call 2 starts right after call 1's last piece, not after the stream ends.
    const types = events.map((event) => `${event.type}${"contentIndex" in event ? event.contentIndex : ""}`);
    expect(types.indexOf("toolcall_start1")).toBe(types.indexOf("toolcall_end0") + 1);
    expect(types.indexOf("toolcall_delta1")).toBeLessThan(types.indexOf("toolcall_start2"));
  });

  it("keeps blocks sequential when the server interleaves the pieces of two calls", async () => {
    const interleaved = [
      chatChunk({ role: "assistant", content: null }),
      chatToolCallStart(0, "call_a", "get_weather"),
      chatToolCallStart(1, "call_b", "get_weather"),
      chatToolCallPiece(0, '{"city":'),
      chatToolCallPiece(1, '{"city":'),
      chatToolCallPiece(0, '"Rome"}'),
      chatToolCallPiece(1, '"Lima"}'),
      chatChunk({}, "tool_calls"),
      chatUsageChunk({ prompt: 10, completion: 10 }),
    ];
    const { provider } = await setup([sse(interleaved)]);
    const { result } = await drain(provider.stream(provider.resolveModel("m") as Model, ask("x")));
    expect(result.content).toEqual([
      { type: "toolCall", id: "call_a", name: "get_weather", arguments: { city: "Rome" } },
      { type: "toolCall", id: "call_b", name: "get_weather", arguments: { city: "Lima" } },
    ]);
  });

  it("sends history: assistant tool calls, tool results, and tool-result images in a following user message", async () => {
    const { server, provider } = await setup([sse(chatTextChunks("done"))], { preset: "openai" });
    const model = provider.resolveModel("gpt-4o") as Model;
    const previous: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "text", text: "Let me look." },
        { type: "toolCall", id: "call_1", name: "screenshot", arguments: { page: 1 } },
        { type: "toolCall", id: "call_2", name: "get_weather", arguments: { city: "Paris" } },
      ],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: emptyCost() },
      stopReason: "toolUse",
      timestamp: 2,
    };
    const context: Context = {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is on this page?" },
            { type: "image", data: "AAAA", mimeType: "image/png" },
          ],
          timestamp: 1,
        },
        previous,
        {
          role: "toolResult",
          toolCallId: "call_1",
          toolName: "screenshot",
          content: [{ type: "image", data: "BBBB", mimeType: "image/jpeg" }],
          isError: false,
          timestamp: 3,
        },
        {
          role: "toolResult",
          toolCallId: "call_2",
          toolName: "get_weather",
          content: [{ type: "text", text: "Sunny" }],
          isError: false,
          timestamp: 4,
        },
      ],
    };
    await drain(provider.stream(model, context));
    expect(server.requests[0]?.body?.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is on this page?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        ],
      },
      {
        role: "assistant",
        content: "Let me look.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "screenshot", arguments: '{"page":1}' } },
          {
            id: "call_2",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "(the result is the image that follows)" },
      { role: "tool", tool_call_id: "call_2", content: "Sunny" },
      {
        role: "user",
        content: [
          { type: "text", text: "Image output of tool call call_1:" },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,BBBB" } },
        ],
      },
    ]);
  });
});

describe("Chat Completions reasoning from compatible servers", () => {
  it("turns reasoning_content (vLLM, DeepSeek, llama.cpp) into thinking and sends it back to the same model", async () => {
    const reasoningStream = [
      chatChunk({ role: "assistant", content: "", reasoning_content: "" }),
      chatChunk({ reasoning_content: "17 * 23 = " }),
      chatChunk({ reasoning_content: "391" }),
      chatChunk({ content: "391" }),
      chatChunk({}, "stop"),
      chatUsageChunk({ prompt: 12, completion: 9, reasoning: 6 }),
    ];
    const { server, provider } = await setup([sse(reasoningStream), sse(chatTextChunks("yes"))], {
      preset: "vllm",
    });
    const model = provider.resolveModel("Qwen/Qwen3-8B") as Model;
    const { result } = await drain(provider.stream(model, ask("17*23?"), { reasoning: "medium" }));
    expect(result.content).toEqual([
      { type: "thinking", thinking: "17 * 23 = 391", thinkingSignature: "reasoning_content" },
      { type: "text", text: "391" },
    ]);
    expect(result.usage.output).toBe(9);
    expect(server.requests[0]?.body).toMatchObject({ max_tokens: 16_384, reasoning_effort: "medium" });

    const followUp: Context = {
      messages: [...ask("17*23?").messages, result, { role: "user", content: "Sure?", timestamp: 5 }],
    };
    await drain(provider.stream(model, followUp));
    expect(server.requests[1]?.body?.messages).toEqual([
      { role: "user", content: "17*23?" },
      { role: "assistant", content: "391", reasoning_content: "17 * 23 = 391" },
      { role: "user", content: "Sure?" },
    ]);
  });

  it("reads Ollama's `reasoning` field and sends no Authorization header to a keyless server", async () => {
    const stream = [
      chatChunk({ role: "assistant", content: "" }),
      chatChunk({ reasoning: "Think" }),
      chatChunk({ reasoning: "ing." }),
      chatChunk({ content: "Hi" }),
      chatChunk({}, "stop"),
    ];
    server = await startOpenAIWireServer([sse(stream)]);
    const provider = createOpenAIProvider({ baseURL: server.url, preset: "ollama" });
    const { result } = await drain(provider.stream(provider.resolveModel("qwen3") as Model, ask("hi")));
    expect(result.content[0]).toEqual({
      type: "thinking",
      thinking: "Thinking.",
      thinkingSignature: "reasoning",
    });
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(server.requests[0]?.body?.messages).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: "hi" },
    ]);
  });

  it("sends OpenRouter's reasoning object", async () => {
    const { server, provider } = await setup([sse(chatTextChunks("x"))], { preset: "openrouter" });
    await drain(
      provider.stream(provider.resolveModel("deepseek/deepseek-r1") as Model, ask("x"), {
        reasoning: "high",
      }),
    );
    expect(server.requests[0]?.body).toMatchObject({ reasoning: { effort: "high" } });
    expect(server.requests[0]?.body).not.toHaveProperty("reasoning_effort");
  });
});

describe("Chat Completions finish reasons", () => {
  it("maps length to length", async () => {
    const { provider } = await setup([sse(chatTextChunks("cut sho", { finish: "length" }))]);
    const { result } = await drain(provider.stream(provider.resolveModel("m") as Model, ask("x")));
    expect(result.stopReason).toBe("length");
  });

  it("maps content_filter to an error that keeps the partial text", async () => {
    const { provider } = await setup([sse(chatTextChunks("partial", { finish: "content_filter" }))]);
    const { result } = await drain(provider.stream(provider.resolveModel("m") as Model, ask("x")));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/content filter/);
    expect(result.content).toEqual([{ type: "text", text: "partial" }]);
  });

  it("reads Groq's usage from x_groq when the chunk has no usage", async () => {
    const groqUsage = {
      ...chatChunk({}, "stop"),
      x_groq: { id: "req_1", usage: { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37 } },
    };
    const { provider } = await setup([sse([chatChunk({ role: "assistant", content: "hey" }), groqUsage])], {
      preset: "groq",
    });
    const { result } = await drain(
      provider.stream(provider.resolveModel("llama-3.3-70b") as Model, ask("x")),
    );
    expect(result.usage).toMatchObject({ input: 30, output: 7, totalTokens: 37 });
  });
});

function emptyCost() {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}

/** A value as it travels on the wire (TypeBox's symbol keys dropped). */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
