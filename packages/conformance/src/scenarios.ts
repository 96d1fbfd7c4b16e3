import { type Context, Type } from "@arbor/ai-providers";

/** Names of the standard scenarios every provider is checked against. */
export type ProviderScenarioName = "text" | "toolCall" | "thinking" | "abort" | "abortBeforeStart" | "error";

/** All standard scenarios, in the order they run. */
export const PROVIDER_SCENARIOS: readonly ProviderScenarioName[] = [
  "text",
  "toolCall",
  "thinking",
  "abort",
  "abortBeforeStart",
  "error",
];

/** The tool the `toolCall` scenario offers; a fixture must make the model call it. */
export const WEATHER_TOOL = {
  name: "get_weather",
  description: "Get the current weather for a city.",
  parameters: Type.Object({
    city: Type.String({ description: "City name" }),
    unit: Type.Optional(Type.Union([Type.Literal("celsius"), Type.Literal("fahrenheit")])),
  }),
};

/** The context each scenario sends. */
export function scenarioContext(name: ProviderScenarioName): Context {
  const now = Date.now();
  switch (name) {
    case "toolCall":
      return {
        systemPrompt: "You are a weather assistant. Use tools.",
        messages: [{ role: "user", content: "What is the weather in Paris?", timestamp: now }],
        tools: [WEATHER_TOOL],
      };
    case "thinking":
      return {
        systemPrompt: "Think step by step.",
        messages: [{ role: "user", content: "What is 17 * 23?", timestamp: now }],
      };
    case "abort":
      return {
        messages: [{ role: "user", content: "Write a long story about a tree.", timestamp: now }],
      };
    default:
      return {
        systemPrompt: "You are a helpful assistant.",
        messages: [{ role: "user", content: [{ type: "text", text: "Say hello." }], timestamp: now }],
      };
  }
}
