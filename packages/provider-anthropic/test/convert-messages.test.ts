import type { AssistantMessage, Message } from "@arbor/ai-providers";
import { describe, expect, it } from "vitest";
import { convertMessages } from "../src/convert-messages.js";
import { createAnthropicProvider } from "../src/index.js";

const model = createAnthropicProvider({ apiKey: "unused" }).models.find((m) => m.id === "claude-sonnet-5-5")!;

const assistant = (
  content: AssistantMessage["content"],
  stopReason: AssistantMessage["stopReason"] = "stop",
): AssistantMessage => ({
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
  timestamp: 0,
});

describe("convertMessages", () => {
  it("sends unsigned thinking of the same model as text, and drops failed turns", () => {
    const messages: Message[] = [
      { role: "user", content: "Q1", timestamp: 0 },
      assistant([{ type: "text", text: "cut" }], "aborted"),
      assistant([
        { type: "thinking", thinking: "unsigned thought" },
        { type: "text", text: "A1" },
      ]),
      { role: "user", content: "Q2", timestamp: 0 },
    ];
    expect(convertMessages(messages, model)).toEqual([
      { role: "user", content: [{ type: "text", text: "Q1" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "unsigned thought" },
          { type: "text", text: "A1" },
        ],
      },
      { role: "user", content: [{ type: "text", text: "Q2" }] },
    ]);
  });

  it("answers an unanswered tool call (transformMessages) so the API accepts the history", () => {
    const messages: Message[] = [
      { role: "user", content: "Run it", timestamp: 0 },
      assistant([{ type: "toolCall", id: "toolu_1", name: "bash", arguments: { command: "ls" } }], "toolUse"),
      { role: "user", content: "Never mind", timestamp: 0 },
    ];
    const converted = convertMessages(messages, model, { type: "ephemeral" });
    expect(converted[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: [
            { type: "text", text: "No result provided: the tool call was interrupted before it returned." },
          ],
          is_error: true,
        },
      ],
    });
    expect(converted[3]).toEqual({
      role: "user",
      content: [{ type: "text", text: "Never mind", cache_control: { type: "ephemeral" } }],
    });
  });

  it("does not mutate the conversation", () => {
    const messages: Message[] = [{ role: "user", content: [{ type: "text", text: "Hi" }], timestamp: 0 }];
    const before = structuredClone(messages);
    convertMessages(messages, model, { type: "ephemeral", ttl: "1h" });
    expect(messages).toEqual(before);
  });
});
