/**
 * A test utility: the Anthropic wire replies that serve each scenario of `describeProvider()`.
 */
import type { ProviderScenarioName } from "../scenarios.js";
import { anthropicErrorBody, type FakeAnthropicReply } from "./anthropic-server.js";
import { anthropicFixture, anthropicSse, completeAnthropicStream, readSseFixture } from "./anthropic-sse.js";

const overloaded: FakeAnthropicReply = {
  kind: "error",
  status: 529,
  body: anthropicErrorBody("overloaded_error", "Overloaded"),
};

/** The wire replies that serve each scenario of the conformance suite (the error one: 529, retried once). */
export function anthropicScenarioReplies(scenario: ProviderScenarioName): FakeAnthropicReply[] {
  switch (scenario) {
    case "text":
      return [{ kind: "stream", events: readSseFixture(anthropicFixture("text.sse")) }];
    case "toolCall":
      return [
        {
          kind: "stream",
          events: completeAnthropicStream(
            [
              anthropicSse.textBlock(0, "Let me check."),
              anthropicSse.toolUseBlock(1, {
                id: "toolu_01Weather",
                name: "get_weather",
                json: JSON.stringify({ city: "Paris", unit: "celsius" }),
                chunkSize: 3,
              }),
            ],
            { stopReason: "tool_use" },
          ),
        },
      ];
    case "thinking":
      return [{ kind: "stream", events: readSseFixture(anthropicFixture("thinking.sse")) }];
    case "abort":
      return [
        {
          kind: "stream",
          events: completeAnthropicStream([
            anthropicSse.textBlock(0, "Once upon a time there was a tree. ".repeat(20), 6),
          ]),
          delayMs: 5,
        },
      ];
    case "abortBeforeStart":
      return [];
    case "error":
      return [overloaded, overloaded];
  }
}

/** The options describeProvider adds for a scenario (besides its signal). */
export function anthropicScenarioOptions(scenario: ProviderScenarioName): { reasoning?: "medium" } {
  return scenario === "thinking" ? { reasoning: "medium" } : {};
}
