import type { AssistantMessage, Context, Model, ProviderResponseInfo } from "@arbor/ai-providers";
import {
  anthropicFixture,
  anthropicSse,
  completeAnthropicStream,
  type FakeAnthropicReply,
  readSseFixture,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { drain, setupWire, type WireSetup } from "./support/harness.js";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const ok = (): FakeAnthropicReply => ({
  kind: "stream",
  events: completeAnthropicStream([anthropicSse.textBlock(0, "OK")]),
});

let setup: WireSetup | undefined;
afterEach(async () => {
  await setup?.server.close();
  setup = undefined;
});

const modelOf = (id: string): Model => setup!.provider.models.find((model) => model.id === id)!;
const sent = (index = 0) => setup!.server.requests[index]!.body;

function assistantFrom(
  model: Model,
  content: AssistantMessage["content"],
  stopReason: AssistantMessage["stopReason"] = "toolUse",
): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason,
    timestamp: 2,
  };
}

describe("anthropic provider: what goes on the wire", () => {
  it("marks the system prompt and the last user turn for caching (5 minutes by default)", async () => {
    setup = await setupWire([ok()]);
    const context: Context = {
      systemPrompt: "You are a careful assistant.",
      messages: [
        { role: "user", content: "First question", timestamp: 1 },
        assistantFrom(setup.model, [{ type: "text", text: "First answer" }], "stop"),
        { role: "user", content: [{ type: "text", text: "Second question" }], timestamp: 3 },
      ],
    };
    await drain(setup.provider.stream(setup.model, context));
    expect(sent().system).toEqual([
      { type: "text", text: "You are a careful assistant.", cache_control: { type: "ephemeral" } },
    ]);
    expect(sent().messages).toEqual([
      { role: "user", content: [{ type: "text", text: "First question" }] },
      { role: "assistant", content: [{ type: "text", text: "First answer" }] },
      {
        role: "user",
        content: [{ type: "text", text: "Second question", cache_control: { type: "ephemeral" } }],
      },
    ]);
  });

  it("asks for a 1-hour cache with cacheRetention long, and for none with none", async () => {
    setup = await setupWire([ok(), ok()], { cacheRetention: "long" });
    const context: Context = {
      systemPrompt: "Sys",
      messages: [{ role: "user", content: "Hi", timestamp: 1 }],
    };
    await drain(setup.provider.stream(setup.model, context));
    await drain(setup.provider.stream(setup.model, context, { cacheRetention: "none" }));
    expect(sent(0).system).toEqual([
      { type: "text", text: "Sys", cache_control: { type: "ephemeral", ttl: "1h" } },
    ]);
    expect(sent(0).messages).toEqual([
      {
        role: "user",
        content: [{ type: "text", text: "Hi", cache_control: { type: "ephemeral", ttl: "1h" } }],
      },
    ]);
    expect(sent(1).system).toBe("Sys");
    expect(sent(1).messages).toEqual([{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
  });

  it("sends consecutive tool results as one user turn of tool_result blocks, images included", async () => {
    setup = await setupWire([ok()]);
    const context: Context = {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Look at this" },
            { type: "image", data: PNG, mimeType: "image/png" },
          ],
          timestamp: 1,
        },
        assistantFrom(setup.model, [
          { type: "toolCall", id: "toolu_a", name: "screenshot", arguments: {} },
          { type: "toolCall", id: "toolu_b", name: "read", arguments: { path: "x" } },
        ]),
        {
          role: "toolResult",
          toolCallId: "toolu_a",
          toolName: "screenshot",
          content: [
            { type: "text", text: "Here it is" },
            { type: "image", data: PNG, mimeType: "image/png" },
          ],
          isError: false,
          timestamp: 3,
        },
        {
          role: "toolResult",
          toolCallId: "toolu_b",
          toolName: "read",
          content: [{ type: "text", text: "ENOENT: no such file" }],
          isError: true,
          timestamp: 4,
        },
      ],
    };
    await drain(setup.provider.stream(setup.model, context, { cacheRetention: "none" }));
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } };
    expect(sent().messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Look at this" }, image] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_a", name: "screenshot", input: {} },
          { type: "tool_use", id: "toolu_b", name: "read", input: { path: "x" } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_a",
            content: [{ type: "text", text: "Here it is" }, image],
          },
          {
            type: "tool_result",
            tool_use_id: "toolu_b",
            content: [{ type: "text", text: "ENOENT: no such file" }],
            is_error: true,
          },
        ],
      },
    ]);
  });

  it("sends the model's own thinking back with its signature, and another model's thinking as text", async () => {
    setup = await setupWire([
      { kind: "stream", events: readSseFixture(anthropicFixture("thinking.sse")) },
      ok(),
    ]);
    const question: Context = { messages: [{ role: "user", content: "What is 17 * 23?", timestamp: 1 }] };
    const { result: first } = await drain(
      setup.provider.stream(setup.model, question, { reasoning: "medium" }),
    );
    const other = modelOf("claude-opus-5-5");
    const foreign = assistantFrom({ ...other, provider: "openai", api: "openai-responses", id: "gpt-5" }, [
      { type: "thinking", thinking: "Foreign reasoning", thinkingSignature: "opaque-openai-item" },
      { type: "toolCall", id: "call_1|fc_abc", name: "calc", arguments: { a: 1 } },
    ]);
    const context: Context = {
      messages: [
        ...question.messages,
        first,
        { role: "user", content: "And via the calculator?", timestamp: 3 },
        foreign,
        {
          role: "toolResult",
          toolCallId: "call_1|fc_abc",
          toolName: "calc",
          content: [{ type: "text", text: "391" }],
          isError: false,
          timestamp: 5,
        },
      ],
    };
    await drain(setup.provider.stream(setup.model, context, { cacheRetention: "none" }));
    const messages = sent(1).messages as { role: string; content: unknown[] }[];
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [
        {
          type: "thinking",
          thinking: "17 * 23 = 17 * 20 + 17 * 3 = 340 + 51 = 391.",
          signature:
            "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+Obb4xQ1F8fYqYbkPp7wM3PdVnyW3vDBQjxKGtv1T1WeoudsbDIJcXVPq6ttcJAkz2dFtiD3dRRj/MbLnY=",
        },
        { type: "text", text: "17 × 23 = **391**" },
      ],
    });
    expect(messages[3]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Foreign reasoning" },
        { type: "tool_use", id: "call_1_fc_abc", name: "calc", input: { a: 1 } },
      ],
    });
    expect(messages[4]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "call_1_fc_abc", content: [{ type: "text", text: "391" }] },
      ],
    });
  });

  it("sends redacted thinking back as redacted_thinking", async () => {
    setup = await setupWire([
      { kind: "stream", events: readSseFixture(anthropicFixture("redacted-thinking.sse")) },
      ok(),
    ]);
    const question: Context = { messages: [{ role: "user", content: "Q", timestamp: 1 }] };
    const { result } = await drain(setup.provider.stream(setup.model, question, { reasoning: "low" }));
    await drain(
      setup.provider.stream(setup.model, {
        messages: [...question.messages, result, { role: "user", content: "More", timestamp: 9 }],
      }),
    );
    const messages = sent(1).messages as { content: { type: string }[] }[];
    expect(messages[1]!.content.map((block) => block.type)).toEqual([
      "redacted_thinking",
      "thinking",
      "text",
    ]);
    expect(messages[1]!.content[0]).toEqual({
      type: "redacted_thinking",
      data: (result.content[0] as { thinkingSignature: string }).thinkingSignature,
    });
  });

  it("maps thinking levels: adaptive effort, always-on models, and a clamped budget", async () => {
    setup = await setupWire([ok(), ok(), ok(), ok(), ok()]);
    const context: Context = { messages: [{ role: "user", content: "Think", timestamp: 1 }] };
    await drain(setup.provider.stream(setup.model, context, { reasoning: "xhigh" }));
    await drain(setup.provider.stream(setup.model, context));
    await drain(setup.provider.stream(modelOf("claude-opus-5-5"), context, { reasoning: "off" }));
    await drain(
      setup.provider.stream(modelOf("claude-haiku-4-5"), context, { reasoning: "high", maxTokens: 8000 }),
    );
    await drain(
      setup.provider.stream(modelOf("claude-haiku-4-5"), context, { reasoning: "minimal", maxTokens: 500 }),
    );
    expect(sent(0)).toMatchObject({
      thinking: { type: "adaptive", display: "summarized" },
      output_config: { effort: "xhigh" },
    });
    expect(sent(1).thinking).toEqual({ type: "disabled" });
    expect(sent(1).output_config).toBeUndefined();
    expect(sent(2)).toMatchObject({ thinking: { type: "adaptive" }, output_config: { effort: "low" } });
    expect(sent(3)).toMatchObject({
      max_tokens: 8000,
      thinking: { type: "enabled", budget_tokens: 8000 - 1024 },
    });
    expect(sent(4)).toMatchObject({ max_tokens: 2048, thinking: { type: "enabled", budget_tokens: 1024 } });
  });

  it("sends temperature only to models that accept it and are not thinking", async () => {
    setup = await setupWire([ok(), ok(), ok()]);
    const context: Context = { messages: [{ role: "user", content: "Hi", timestamp: 1 }] };
    await drain(setup.provider.stream(modelOf("claude-haiku-4-5"), context, { temperature: 0.2 }));
    await drain(
      setup.provider.stream(modelOf("claude-haiku-4-5"), context, { temperature: 0.2, reasoning: "low" }),
    );
    await drain(setup.provider.stream(setup.model, context, { temperature: 0.2 }));
    expect(sent(0).temperature).toBe(0.2);
    expect(sent(1).temperature).toBeUndefined();
    expect(sent(2).temperature).toBeUndefined();
  });

  it("lets onPayload hooks (settings first, then options) replace the body, and reports responses", async () => {
    const seen: string[] = [];
    const responses: ProviderResponseInfo[] = [];
    setup = await setupWire([ok()], {
      headers: { "x-team": "arbor" },
      onPayload: (body) => {
        seen.push("settings");
        return { ...(body as object), metadata: { user_id: "user-123" } };
      },
    });
    await drain(
      setup.provider.stream(
        setup.model,
        { messages: [{ role: "user", content: "Hi", timestamp: 1 }] },
        {
          headers: { "x-trace": "t-1" },
          onPayload: async (body) => {
            seen.push(`options saw metadata=${JSON.stringify((body as { metadata?: unknown }).metadata)}`);
            return undefined; // keep it
          },
          onResponse: (info) => void responses.push(info),
        },
      ),
    );
    expect(seen).toEqual(["settings", 'options saw metadata={"user_id":"user-123"}']);
    expect(sent().metadata).toEqual({ user_id: "user-123" });
    expect(setup.server.requests[0]!.headers["x-team"]).toBe("arbor");
    expect(setup.server.requests[0]!.headers["x-trace"]).toBe("t-1");
    expect(responses).toHaveLength(1);
    expect(responses[0]!.status).toBe(200);
    expect(responses[0]!.headers["request-id"]).toBe("req_fake_stream");
  });

  it("drops empty text and empty messages, which the API would reject", async () => {
    setup = await setupWire([ok()]);
    await drain(
      setup.provider.stream(
        setup.model,
        {
          systemPrompt: "  ",
          messages: [
            { role: "user", content: "   ", timestamp: 1 },
            {
              role: "user",
              content: [
                { type: "text", text: "" },
                { type: "text", text: "Real" },
              ],
              timestamp: 2,
            },
          ],
        },
        { cacheRetention: "none" },
      ),
    );
    expect(sent().system).toBeUndefined();
    expect(sent().messages).toEqual([{ role: "user", content: [{ type: "text", text: "Real" }] }]);
  });
});
