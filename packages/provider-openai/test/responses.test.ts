import { type AssistantMessage, type Context, type Model, Type } from "@arbor/ai-providers";
import {
  type OpenAIWireReply,
  type OpenAIWireServer,
  ResponsesStream,
  responsesFrames,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIProvider } from "../src/index.js";
import { ask, drain, FAST_RETRY } from "./helpers/run.js";

const WEATHER = {
  name: "get_weather",
  description: "Weather of a city.",
  parameters: Type.Object({ city: Type.String() }),
};

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function reply(stream: ResponsesStream): OpenAIWireReply {
  return { kind: "sse", frames: responsesFrames(stream.events) };
}

async function setup(replies: OpenAIWireReply[]) {
  server = await startOpenAIWireServer(replies);
  const provider = createOpenAIProvider({
    baseURL: server.url,
    preset: "openai",
    apiKey: "sk-test",
    retry: FAST_RETRY,
  });
  const model = provider.resolveModel("gpt-5.4-mini") as Model;
  return { server, provider, model };
}

describe("Responses API streaming", () => {
  it("streams text and sends the Responses request shape", async () => {
    const { server, provider, model } = await setup([
      reply(new ResponsesStream().created().message("msg_1", "Hello from the Responses API.").completed()),
    ]);
    expect(model.api).toBe("openai-responses");
    const { events, result } = await drain(
      provider.stream(model, ask("Hi"), { reasoning: "low", maxTokens: 2048, sessionId: "session-1" }),
    );
    expect(result.stopReason).toBe("stop");
    expect(result.responseId).toBe("resp_test");
    expect(result.content).toEqual([
      { type: "text", text: "Hello from the Responses API.", textSignature: "msg_1" },
    ]);
    expect(events.filter((event) => event.type === "text_delta").length).toBeGreaterThan(5);

    const [request] = server.requests;
    expect(request?.path).toBe("/v1/responses");
    expect(request?.body).toEqual({
      model: "gpt-5.4-mini",
      input: [
        { type: "message", role: "developer", content: "You are terse." },
        { type: "message", role: "user", content: "Hi" },
      ],
      stream: true,
      max_output_tokens: 2048,
      reasoning: { effort: "low", summary: "auto" },
      store: false,
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "session-1",
    });
  });

  it("turns reasoning summaries into thinking, keeps the encrypted item, and maps usage without double counting", async () => {
    const stream = new ResponsesStream()
      .created()
      .reasoning("rs_1", ["**Plan** multiply.", "17 * 23 = 391."], { encrypted: "gAAAA-secret" })
      .message("msg_1", "391", { phase: "final_answer" })
      .completed({ input: 100, cached: 30, output: 50, reasoning: 20 });
    const { provider, model } = await setup([reply(stream)]);
    const { result } = await drain(provider.stream(model, ask("17*23?"), { reasoning: "medium" }));

    const [thinking, text] = result.content;
    expect(thinking?.type).toBe("thinking");
    expect(thinking?.type === "thinking" && thinking.thinking).toBe("**Plan** multiply.\n\n17 * 23 = 391.");
    const item = JSON.parse((thinking as { thinkingSignature: string }).thinkingSignature);
    expect(item).toMatchObject({ id: "rs_1", type: "reasoning", encrypted_content: "gAAAA-secret" });
    expect(text).toEqual({
      type: "text",
      text: "391",
      textSignature: '{"id":"msg_1","phase":"final_answer"}',
    });
    expect(result.usage).toMatchObject({ input: 70, cacheRead: 30, output: 50, totalTokens: 150 });
    expect(result.usage.cost.total).toBeCloseTo((70 * 0.75 + 30 * 0.075 + 50 * 4.5) / 1e6, 12);
  });

  it("streams function-call arguments in many pieces with a call_id|item id tool-call id", async () => {
    const args = { city: 'São Paulo, "the big one"' };
    const { provider, model } = await setup([
      reply(
        new ResponsesStream()
          .created()
          .functionCall("fc_1", "call_1", "get_weather", args, { size: 1 })
          .functionCall("fc_2", "call_2", "get_weather", { city: "Lima" })
          .completed(),
      ),
    ]);
    const { events, result } = await drain(provider.stream(model, ask("Weather?", { tools: [WEATHER] })));
    expect(result.stopReason).toBe("toolUse");
    expect(result.content).toEqual([
      { type: "toolCall", id: "call_1|fc_1", name: "get_weather", arguments: args },
      { type: "toolCall", id: "call_2|fc_2", name: "get_weather", arguments: { city: "Lima" } },
    ]);
    const firstCallDeltas = events.filter(
      (event) => event.type === "toolcall_delta" && event.contentIndex === 0,
    );
    expect(firstCallDeltas.length).toBe(JSON.stringify(args).length);
  });

  it("sends tools, and a same-model history back as reasoning, message and function-call items", async () => {
    const first = new ResponsesStream("resp_1")
      .created()
      .reasoning("rs_1", ["Need the weather."], { encrypted: "enc-1" })
      .message("msg_1", "Checking.")
      .functionCall("fc_1", "call_1", "get_weather", { city: "Paris" })
      .completed();
    const { server, provider, model } = await setup([
      reply(first),
      reply(new ResponsesStream("resp_2").created().message("msg_2", "Sunny.").completed()),
    ]);
    const context: Context = ask("Weather in Paris?", { tools: [WEATHER] });
    const { result } = await drain(provider.stream(model, context));
    context.messages.push(result, {
      role: "toolResult",
      toolCallId: "call_1|fc_1",
      toolName: "get_weather",
      content: [
        { type: "text", text: "Sunny, 21 °C" },
        { type: "image", data: "CCCC", mimeType: "image/png" },
      ],
      isError: false,
      timestamp: 3,
    });
    await drain(provider.stream(model, context));

    const body = server.requests[1]?.body;
    expect(body?.tools).toEqual([
      {
        type: "function",
        name: "get_weather",
        description: "Weather of a city.",
        parameters: JSON.parse(JSON.stringify(WEATHER.parameters)),
        strict: false,
      },
    ]);
    expect(body?.input).toEqual([
      { type: "message", role: "developer", content: "You are terse." },
      { type: "message", role: "user", content: "Weather in Paris?" },
      {
        type: "reasoning",
        id: "rs_1",
        summary: [{ type: "summary_text", text: "Need the weather." }],
        encrypted_content: "enc-1",
      },
      {
        type: "message",
        role: "assistant",
        id: "msg_1",
        status: "completed",
        content: [{ type: "output_text", text: "Checking.", annotations: [] }],
      },
      {
        type: "function_call",
        call_id: "call_1",
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        id: "fc_1",
      },
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [
          { type: "input_text", text: "Sunny, 21 °C" },
          { type: "input_image", image_url: "data:image/png;base64,CCCC", detail: "auto" },
        ],
      },
    ]);
  });

  it("sends another model's history as plain items with normalized ids", async () => {
    const { server, provider, model } = await setup([
      reply(new ResponsesStream().created().message("msg_9", "ok").completed()),
    ]);
    const foreign: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Claude thought this.", thinkingSignature: "sig-anthropic" },
        { type: "toolCall", id: "toolu_01.abc", name: "get_weather", arguments: { city: "Oslo" } },
      ],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: zeroCost() },
      stopReason: "toolUse",
      timestamp: 2,
    };
    const context: Context = {
      messages: [
        { role: "user", content: [{ type: "image", data: "DDDD", mimeType: "image/webp" }], timestamp: 1 },
        foreign,
        {
          role: "toolResult",
          toolCallId: "toolu_01.abc",
          toolName: "get_weather",
          content: [{ type: "text", text: "Snow" }],
          isError: false,
          timestamp: 3,
        },
      ],
    };
    await drain(provider.stream(model, context));
    expect(server.requests[0]?.body?.input).toEqual([
      {
        type: "message",
        role: "user",
        content: [{ type: "input_image", image_url: "data:image/webp;base64,DDDD", detail: "auto" }],
      },
      { type: "message", role: "assistant", content: "Claude thought this." },
      { type: "function_call", call_id: "toolu_01_abc", name: "get_weather", arguments: '{"city":"Oslo"}' },
      { type: "function_call_output", call_id: "toolu_01_abc", output: "Snow" },
    ]);
  });

  it("maps incomplete (max_output_tokens) to length", async () => {
    const { provider, model } = await setup([
      reply(new ResponsesStream().created().message("msg_1", "cut").incomplete("max_output_tokens")),
    ]);
    const { result } = await drain(provider.stream(model, ask("x")));
    expect(result.stopReason).toBe("length");
    expect(result.content).toEqual([{ type: "text", text: "cut", textSignature: "msg_1" }]);
  });

  it("ends with an error on response.failed, keeping the partial text", async () => {
    const { provider, model } = await setup([
      reply(
        new ResponsesStream()
          .created()
          .message("msg_1", "Half")
          .failed("invalid_prompt", "The prompt was flagged."),
      ),
    ]);
    const { result } = await drain(provider.stream(model, ask("x")));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe("OpenAI response failed (invalid_prompt): The prompt was flagged.");
    expect(result.content).toEqual([{ type: "text", text: "Half", textSignature: "msg_1" }]);
  });

  it("retries an error event that arrives before any content, then succeeds", async () => {
    const { server, provider, model } = await setup([
      reply(
        new ResponsesStream()
          .created()
          .error("server_error", "The server had an error while processing your request."),
      ),
      reply(new ResponsesStream().created().message("msg_1", "Recovered.").completed()),
    ]);
    const { result } = await drain(provider.stream(model, ask("x")));
    expect(result.stopReason).toBe("stop");
    expect(result.content).toEqual([{ type: "text", text: "Recovered.", textSignature: "msg_1" }]);
    expect(server.requests).toHaveLength(2);
  });
});

function zeroCost() {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}
