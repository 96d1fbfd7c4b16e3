import { InvalidToolSchemaError } from "@arbor/agent-core";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { MemorySessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { createHarness } from "../src/index.js";

const execute = () => ({ content: [{ type: "text" as const, text: "ran" }] });

describe("tool schemas in the harness", () => {
  it("createHarness throws InvalidToolSchemaError for a tool whose schema is unusable", () => {
    const provider = createScriptedProvider([]);
    const bad = { name: "bad", description: "bad", parameters: { type: "object", required: 5 }, execute };
    expect(() =>
      createHarness({
        streamFn: provider.stream,
        model: provider.model,
        store: new MemorySessionStore(),
        tools: [bad],
      }),
    ).toThrow(InvalidToolSchemaError);
  });

  it("a JSON Schema tool runs in a session; the model sees its schema", async () => {
    const parameters = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
    const provider = createScriptedProvider([script.toolCall("find", { q: "x" }), script.text("done")]);
    const harness = createHarness({
      streamFn: provider.stream,
      model: provider.model,
      store: new MemorySessionStore(),
      tools: [{ name: "find", description: "Find", parameters, execute }],
      recallTool: false,
    });
    const session = await harness.newSession();
    await session.prompt("go");
    const result = session.state.messages.find((message) => message.role === "toolResult");
    expect(result).toMatchObject({
      toolName: "find",
      isError: false,
      content: [{ type: "text", text: "ran" }],
    });
    expect(provider.calls[0]?.context.tools?.[0]?.parameters).toEqual(parameters);
  });
});
