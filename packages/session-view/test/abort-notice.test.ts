import { describe, expect, it } from "vitest";
import { itemsOfMessage } from "../src/index.js";

function aborted(errorMessage: string) {
  return {
    role: "assistant" as const,
    content: [],
    api: "openai-completions",
    provider: "p",
    model: "m",
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "aborted" as const,
    errorMessage,
    timestamp: 0,
  };
}

describe("the notice of an aborted reply", () => {
  it("says the reason without the provider's 'Request aborted:'", () => {
    const text = (message: string) => JSON.stringify(itemsOfMessage(aborted(message), new Map()));
    expect(text("Request aborted: stopped (abort requested)")).toContain(
      '"aborted: stopped (abort requested)"',
    );
    expect(text("Request aborted")).toContain('"text":"aborted"');
  });
});
