import { describe, expect, it } from "vitest";
import { emptyAssistantMessage, emptyUsage } from "../src/index.js";

const model = { api: "anthropic-messages", provider: "anthropic", id: "claude-x" };

describe("emptyAssistantMessage", () => {
  it("builds a message of the model with no content and zero usage", () => {
    const message = emptyAssistantMessage(model);
    expect(message).toEqual({
      role: "assistant",
      content: [],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-x",
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: expect.any(Number),
    });
    expect("errorMessage" in message).toBe(false);
  });

  it("carries an error stop reason and message, and never shares its usage", () => {
    const failed = emptyAssistantMessage(model, { stopReason: "error", errorMessage: "boom" });
    expect(failed).toMatchObject({ stopReason: "error", errorMessage: "boom", content: [] });
    const other = emptyAssistantMessage(model);
    other.usage.input = 5;
    expect(failed.usage.input).toBe(0);
  });
});
