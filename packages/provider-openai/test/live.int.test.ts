/**
 * Live tests against api.openai.com (`pnpm test:int`). They skip without OPENAI_API_KEY; the model can
 * be changed with OPENAI_LIVE_MODEL (default gpt-5.4-nano, the cheapest current model).
 */
import { type Model, Type } from "@arbor/ai-providers";
import { describe, expect, it } from "vitest";
import { createOpenAIProvider } from "../src/index.js";
import { ask, drain } from "./helpers/run.js";

const key = process.env.OPENAI_API_KEY;
const modelId = process.env.OPENAI_LIVE_MODEL ?? "gpt-5.4-nano";

describe.skipIf(!key).each(["responses", "chat"] as const)("live OpenAI (%s)", (api) => {
  const provider = createOpenAIProvider({ api });
  const model = provider.resolveModel(modelId) as Model;

  it("streams a short answer with usage", async () => {
    const { result } = await drain(
      provider.stream(model, ask("Reply with the single word: pong"), { maxTokens: 400 }),
    );
    expect(result.stopReason).toBe("stop");
    expect(JSON.stringify(result.content).toLowerCase()).toContain("pong");
    expect(result.usage.input).toBeGreaterThan(0);
    expect(result.usage.output).toBeGreaterThan(0);
  }, 60_000);

  it("calls a tool and continues after its result", async () => {
    const tool = {
      name: "get_weather",
      description: "Current weather of a city.",
      parameters: Type.Object({ city: Type.String() }),
    };
    const context = ask("What is the weather in Paris? Use the tool.", { tools: [tool] });
    const first = await drain(provider.stream(model, context, { maxTokens: 800, reasoning: "low" }));
    expect(first.result.stopReason).toBe("toolUse");
    const call = first.result.content.find((block) => block.type === "toolCall");
    expect(call?.arguments).toMatchObject({ city: expect.stringMatching(/paris/i) });
    context.messages.push(first.result, {
      role: "toolResult",
      toolCallId: call?.id ?? "",
      toolName: "get_weather",
      content: [{ type: "text", text: "Sunny, 21 °C" }],
      isError: false,
      timestamp: Date.now(),
    });
    const second = await drain(provider.stream(model, context, { maxTokens: 800, reasoning: "low" }));
    expect(second.result.stopReason).toBe("stop");
    expect(JSON.stringify(second.result.content)).toMatch(/21/);
  }, 120_000);
});
