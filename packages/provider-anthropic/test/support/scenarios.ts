import type { ProviderScenarioName } from "@internal/conformance";
import { errorBody, type FakeReply } from "./fake-anthropic-server.js";
import { completeStream, fixture, readSseFixture, sse } from "./sse.js";

const overloaded: FakeReply = {
  kind: "error",
  status: 529,
  body: errorBody("overloaded_error", "Overloaded"),
};

/** The wire replies that serve each scenario of the conformance suite (the error one: 529, retried once). */
export function repliesFor(scenario: ProviderScenarioName): FakeReply[] {
  switch (scenario) {
    case "text":
      return [{ kind: "stream", events: readSseFixture(fixture("text.sse")) }];
    case "toolCall":
      return [
        {
          kind: "stream",
          events: completeStream(
            [
              sse.textBlock(0, "Let me check."),
              sse.toolUseBlock(1, {
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
      return [{ kind: "stream", events: readSseFixture(fixture("thinking.sse")) }];
    case "abort":
      return [
        {
          kind: "stream",
          events: completeStream([sse.textBlock(0, "Once upon a time there was a tree. ".repeat(20), 6)]),
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
export function scenarioOptions(scenario: ProviderScenarioName): { reasoning?: "medium" } {
  return scenario === "thinking" ? { reasoning: "medium" } : {};
}
