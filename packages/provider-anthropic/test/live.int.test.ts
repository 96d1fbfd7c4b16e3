/**
 * Live tests against the real Anthropic API. They run only with `pnpm test:int` and skip without
 * ANTHROPIC_API_KEY. ARBOR_ANTHROPIC_LIVE_MODEL picks the model (default claude-haiku-4-5, the cheapest
 * listed model that takes a thinking budget).
 */
import { type AssistantMessage, type Context, complete, type ToolCall, Type } from "@arbor/ai-providers";
import { checkStreamProtocol } from "@internal/conformance";
import { describe, expect, it } from "vitest";
import { createAnthropicProvider } from "../src/index.js";
import { drain } from "./support/harness.js";

const key = process.env.ANTHROPIC_API_KEY;
const modelId = process.env.ARBOR_ANTHROPIC_LIVE_MODEL ?? "claude-haiku-4-5";

describe.skipIf(!key)("anthropic provider: live API", () => {
  const provider = createAnthropicProvider();
  const model =
    provider.models.find((candidate) => candidate.id === modelId) ?? provider.resolveModel?.(modelId);
  if (model === undefined) throw new Error(`ARBOR_ANTHROPIC_LIVE_MODEL: unknown model ${modelId}`);

  it("streams a short reply with usage and cost", async () => {
    const context: Context = {
      messages: [{ role: "user", content: "Reply with exactly: pong", timestamp: Date.now() }],
    };
    const { events, result } = await drain(provider.stream(model, context, { maxTokens: 50 }));
    expect(checkStreamProtocol(events, result)).toEqual([]);
    expect(result.stopReason).toBe("stop");
    expect(result.usage.output).toBeGreaterThan(0);
    expect(result.usage.cost.total).toBeGreaterThan(0);
  }, 60_000);

  it("calls a tool, takes its result, and answers with thinking kept for the round trip", async () => {
    const tool = {
      name: "add",
      description: "Add two integers.",
      parameters: Type.Object({ a: Type.Integer(), b: Type.Integer() }),
    };
    const context: Context = {
      systemPrompt: "Use the add tool for arithmetic.",
      messages: [{ role: "user", content: "What is 1234 + 4321?", timestamp: Date.now() }],
      tools: [tool],
    };
    const first: AssistantMessage = await complete(provider, model, context, {
      reasoning: "low",
      maxTokens: 4096,
    });
    expect(first.stopReason).toBe("toolUse");
    const call = first.content.find((block): block is ToolCall => block.type === "toolCall")!;
    const sum = Number(call.arguments.a) + Number(call.arguments.b);
    context.messages.push(first, {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: String(sum) }],
      isError: false,
      timestamp: Date.now(),
    });
    const second = await complete(provider, model, context, { reasoning: "low", maxTokens: 4096 });
    expect(second.stopReason).toBe("stop");
    expect(second.content.map((block) => (block.type === "text" ? block.text : "")).join("")).toContain(
      "5555",
    );
  }, 120_000);

  it("reports a bad key as an error message, not a throw", async () => {
    const context: Context = { messages: [{ role: "user", content: "Hi", timestamp: Date.now() }] };
    const result = await complete(provider, model, context, { apiKey: "sk-ant-invalid", maxRetries: 0 });
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain("401");
  }, 60_000);
});
