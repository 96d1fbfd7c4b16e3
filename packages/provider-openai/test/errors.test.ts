import { isContextOverflow, type Model, type ProviderResponseInfo } from "@arbor/ai-providers";
import {
  chatChunk,
  chatFrames,
  chatTextChunks,
  chatToolCallChunks,
  type OpenAIWireReply,
  type OpenAIWireServer,
  openAIErrorReply,
  ResponsesStream,
  responsesFrames,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createOpenAIProvider, type OpenAIApi, type OpenAIProviderSettings } from "../src/index.js";
import { ask, drain, FAST_RETRY } from "./helpers/run.js";

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
});

const LONG_TEXT = "Once upon a time there was a tree that grew very slowly. ".repeat(4);

/** A successful text reply in the wire format of `api`. */
function textReply(api: OpenAIApi, text = "All good."): OpenAIWireReply {
  return api === "chat"
    ? { kind: "sse", frames: chatFrames(chatTextChunks(text)) }
    : {
        kind: "sse",
        frames: responsesFrames(new ResponsesStream().created().message("msg_1", text).completed().events),
      };
}

async function setup(api: OpenAIApi, replies: OpenAIWireReply[], settings: OpenAIProviderSettings = {}) {
  server = await startOpenAIWireServer(replies);
  const provider = createOpenAIProvider({
    baseURL: server.url,
    preset: "openai",
    apiKey: "sk-test",
    api,
    retry: FAST_RETRY,
    ...settings,
  });
  return { server, provider, model: provider.resolveModel("gpt-5.4-mini") as Model };
}

describe.each(["chat", "responses"] as const)("HTTP failures (%s)", (api) => {
  it("retries a 429 after its retry-after, then succeeds; onResponse sees both responses", async () => {
    const seen: ProviderResponseInfo[] = [];
    const { server, provider, model } = await setup(api, [
      openAIErrorReply(429, "Rate limit reached for requests", {
        type: "requests",
        code: "rate_limit_exceeded",
        headers: { "retry-after": "1" },
      }),
      textReply(api),
    ]);
    const { result } = await drain(
      provider.stream(model, ask("x"), { onResponse: (info) => void seen.push(info) }),
    );
    expect(result.stopReason).toBe("stop");
    expect(server.requests).toHaveLength(2);
    expect(seen.map((info) => info.status)).toEqual([429, 200]);
    expect(seen[0]?.headers["retry-after"]).toBe("1");
    expect(seen[1]?.headers["content-type"]).toContain("text/event-stream");
  });

  it("fails at once, saying how long, when retry-after is longer than allowed", async () => {
    const { server, provider, model } = await setup(api, [
      openAIErrorReply(429, "Rate limit reached", {
        code: "rate_limit_exceeded",
        headers: { "retry-after": "3600" },
      }),
    ]);
    const { result } = await drain(provider.stream(model, ask("x")));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe(
      "Server asked to retry after 3600 s (longer than the 60 s limit): OpenAI HTTP 429 (rate_limit_exceeded): Rate limit reached",
    );
    expect(server.requests).toHaveLength(1);
  });

  it("retries 503 and 529 (overloaded), then succeeds", async () => {
    const { server, provider, model } = await setup(api, [
      openAIErrorReply(503, "The engine is currently overloaded, please try again later.", {
        type: "server_error",
      }),
      openAIErrorReply(529, "Overloaded", { type: "overloaded_error" }),
      textReply(api, "Back."),
    ]);
    const { result } = await drain(provider.stream(model, ask("x")));
    expect(result.content.map((block) => (block.type === "text" ? block.text : ""))).toEqual(["Back."]);
    expect(server.requests).toHaveLength(3);
  });

  it("gives up on a persistent 500 after the policy's retries, with the status and the server's message", async () => {
    const failure = openAIErrorReply(500, "The server had an error while processing your request.", {
      type: "server_error",
    });
    const { server, provider, model } = await setup(api, [failure, failure, failure]);
    const { result } = await drain(provider.stream(model, ask("x"), { maxRetries: 2 }));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe(
      "gave up after 2 retries: OpenAI HTTP 500 (server_error): The server had an error while processing your request.",
    );
    expect(server.requests).toHaveLength(3);
  });

  it("reports a context overflow with the server's text, recognizable by isContextOverflow, without retrying", async () => {
    const text =
      api === "chat"
        ? "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages."
        : "Your input exceeds the context window of this model. Please adjust your input and try again.";
    const { server, provider, model } = await setup(api, [
      openAIErrorReply(400, text, { code: "context_length_exceeded" }),
    ]);
    const { result } = await drain(provider.stream(model, ask("x")));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe(`OpenAI HTTP 400 (context_length_exceeded): ${text}`);
    expect(isContextOverflow(result)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it("keeps partial text when the connection drops mid-text, and does not retry", async () => {
    const frames =
      api === "chat"
        ? chatFrames(chatTextChunks(LONG_TEXT, { size: 8 }))
        : responsesFrames(
            new ResponsesStream().created().message("msg_1", LONG_TEXT, { size: 8 }).completed().events,
          );
    const { server, provider, model } = await setup(api, [{ kind: "sse", frames, disconnectAfter: 8 }]);
    const { result } = await drain(provider.stream(model, ask("x")));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/^OpenAI stream failed: terminated/);
    const text = result.content[0]?.type === "text" ? result.content[0].text : "";
    expect(text.length).toBeGreaterThan(0);
    expect(LONG_TEXT.startsWith(text)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it("keeps the partial tool call when the connection drops mid-arguments", async () => {
    const args = { path: "src/index.ts", content: "x".repeat(200) };
    const frames =
      api === "chat"
        ? chatFrames(chatToolCallChunks([{ id: "call_1", name: "write", arguments: args }], { size: 10 }))
        : responsesFrames(
            new ResponsesStream().created().functionCall("fc_1", "call_1", "write", args, { size: 10 })
              .events,
          );
    const { provider, model } = await setup(api, [{ kind: "sse", frames, disconnectAfter: 10 }]);
    const { result } = await drain(provider.stream(model, ask("x")));
    expect(result.stopReason).toBe("error");
    const call = result.content.find((block) => block.type === "toolCall");
    expect(call?.name).toBe("write");
    expect(call?.arguments).toMatchObject({ path: "src/index.ts" });
  });

  it("fails when the server ends the stream before the response is complete", async () => {
    const frames =
      api === "chat"
        ? chatFrames([chatChunk({ role: "assistant", content: "Hel" })], false)
        : responsesFrames(new ResponsesStream().created().message("msg_1", "Hel").events);
    const { provider, model } = await setup(api, [{ kind: "sse", frames }]);
    const { result } = await drain(provider.stream(model, ask("x")));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/stream ended before the response was complete/);
    expect(result.content[0]).toMatchObject({ type: "text", text: "Hel" });
  });

  it("aborts mid-stream with stopReason aborted, partial content kept", async () => {
    const frames =
      api === "chat"
        ? chatFrames(chatTextChunks(LONG_TEXT, { size: 6 }))
        : responsesFrames(
            new ResponsesStream().created().message("msg_1", LONG_TEXT, { size: 6 }).completed().events,
          );
    const { provider, model } = await setup(api, [{ kind: "sse", frames, frameDelayMs: 5 }]);
    const controller = new AbortController();
    const { events, result } = await drain(
      provider.stream(model, ask("x"), { signal: controller.signal }),
      (event) => {
        if (event.type === "text_delta" && event.partial.content[0]?.type === "text") {
          if (event.partial.content[0].text.length >= 12) controller.abort();
        }
      },
    );
    expect(result.stopReason).toBe("aborted");
    expect(result.errorMessage).toBe("Request aborted");
    expect(events.at(-1)?.type).toBe("error");
    const text = result.content[0]?.type === "text" ? result.content[0].text : "";
    expect(text.length).toBeGreaterThanOrEqual(12);
    expect(text.length).toBeLessThan(LONG_TEXT.length);
  });
});

describe("request hooks and keys", () => {
  it("fails without a request when api.openai.com has no key", async () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    server = await startOpenAIWireServer([]);
    const provider = createOpenAIProvider({ baseURL: server.url, preset: "openai" });
    const { result } = await drain(provider.stream(provider.resolveModel("gpt-5.5") as Model, ask("x")));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe(
      "No API key for OpenAI: set OPENAI_API_KEY or pass `apiKey` to createOpenAIProvider() (or in the stream options).",
    );
    expect(server.requests).toHaveLength(0);
  });

  it("reads the key from the preset's environment variable at request time", async () => {
    server = await startOpenAIWireServer([textReply("chat")]);
    const provider = createOpenAIProvider({ baseURL: server.url, preset: "groq" });
    vi.stubEnv("GROQ_API_KEY", "gsk-from-env");
    await drain(provider.stream(provider.resolveModel("llama") as Model, ask("x")));
    expect(server.requests[0]?.headers.authorization).toBe("Bearer gsk-from-env");
  });

  it("lets onPayload hooks replace the body, settings' first, and sends extra headers", async () => {
    const { server, provider, model } = await setup("chat", [textReply("chat")], {
      onPayload: (body) => ({ ...(body as object), user: "from-settings" }),
      headers: { "x-settings": "1" },
    });
    await drain(
      provider.stream(model, ask("x"), {
        onPayload: (body) => ({
          ...(body as object),
          metadata: { seen: String((body as { user?: string }).user) },
        }),
        headers: { "x-request": "2" },
      }),
    );
    expect(server.requests[0]?.body).toMatchObject({
      user: "from-settings",
      metadata: { seen: "from-settings" },
    });
    expect(server.requests[0]?.headers["x-settings"]).toBe("1");
    expect(server.requests[0]?.headers["x-request"]).toBe("2");
  });

  it("ends with an error naming the hook when onPayload throws, without a request", async () => {
    const { server, provider, model } = await setup("responses", []);
    const { result } = await drain(
      provider.stream(model, ask("x"), {
        onPayload: () => {
          throw new Error("no way");
        },
      }),
    );
    expect(result.errorMessage).toBe("The onPayload hook failed: no way");
    expect(server.requests).toHaveLength(0);
  });

  it("ignores a throwing onResponse hook", async () => {
    const { provider, model } = await setup("chat", [textReply("chat")], {
      onResponse: () => {
        throw new Error("observer broke");
      },
    });
    const { result } = await drain(provider.stream(model, ask("x")));
    expect(result.stopReason).toBe("stop");
  });

  it("reports an unreachable server as a connection error after retrying", async () => {
    const probe = await startOpenAIWireServer([]);
    const url = probe.url;
    await probe.close();
    const provider = createOpenAIProvider({ baseURL: url, preset: "vllm", retry: FAST_RETRY });
    const { result } = await drain(
      provider.stream(provider.resolveModel("m") as Model, ask("x"), { maxRetries: 1 }),
    );
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/^gave up after 1 retry: vLLM connection error: .*ECONNREFUSED/);
  });

  it("turns an error object inside the SSE stream into an error that keeps the partial text", async () => {
    const frames = chatFrames(
      [
        chatChunk({ role: "assistant", content: "Partial" }),
        { error: { message: "Upstream provider crashed", code: 502 } },
      ],
      false,
    );
    server = await startOpenAIWireServer([{ kind: "sse", frames }]);
    const provider = createOpenAIProvider({ baseURL: server.url, preset: "openrouter", apiKey: "sk-or" });
    const { result } = await drain(provider.stream(provider.resolveModel("x/y") as Model, ask("x")));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe("OpenRouter stream error: Upstream provider crashed");
    expect(result.content).toEqual([{ type: "text", text: "Partial" }]);
  });
});
