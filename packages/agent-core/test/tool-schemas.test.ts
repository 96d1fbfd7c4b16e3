import { type JsonSchema, Type } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  Agent,
  type AgentMessage,
  type AgentTool,
  checkToolSchema,
  defineTool,
  InvalidToolSchemaError,
  modelTools,
  runAgentLoop,
  type StandardSchemaV1,
  type ToolResultMessage,
  toolSchemaKind,
  withJsonSchema,
} from "../src/index.js";
import { EventLog, expectWellFormedRun, textOf, user } from "./helpers.js";

/** Runs one prompt in which the model calls `tool` once per argument set, then answers "done". */
async function callEach(tool: AgentTool, argumentSets: Record<string, unknown>[]) {
  const provider = createScriptedProvider(
    [
      script.toolCalls(
        argumentSets.map((args, index) => ({ name: tool.name, arguments: args, id: `c${index}` })),
      ),
      script.text("done"),
    ],
    { chunkSize: 64 },
  );
  const log = new EventLog();
  const added = await runAgentLoop(
    [user("go")],
    { messages: [], tools: [tool] },
    { model: provider.model, streamFn: provider.stream },
    log.sink,
  );
  expectWellFormedRun(log.events, added);
  provider.assertDone();
  const results = added.filter((message): message is ToolResultMessage => message.role === "toolResult");
  const sentTools = provider.calls[0]?.context.tools ?? [];
  return { results, sentTools };
}

/** A tool that echoes the arguments `execute` received as JSON. */
function echoing<T extends AgentTool>(tool: Omit<T, "execute">): AgentTool {
  return {
    ...tool,
    execute: (args: unknown) => ({ content: [{ type: "text", text: JSON.stringify(args) }] }),
  } as AgentTool;
}

const weatherJsonSchema = {
  type: "object",
  properties: {
    city: { type: "string", description: "City name" },
    days: { type: "integer", minimum: 1, default: 1 },
  },
  required: ["city"],
  additionalProperties: false,
} satisfies JsonSchema;

describe("a plain JSON Schema tool", () => {
  const tool = echoing({ name: "weather", description: "Forecast", parameters: weatherJsonSchema });

  it("runs with valid arguments (coerced and defaulted) and answers invalid ones with an error result", async () => {
    const { results, sentTools } = await callEach(tool, [
      { city: "Oslo", days: "3" },
      { city: "Bergen" },
      { days: 0, town: "x" },
    ]);
    expect(results.map((result) => result.isError)).toEqual([false, false, true]);
    expect(textOf(results[0])).toBe('{"city":"Oslo","days":3}');
    expect(textOf(results[1])).toBe('{"city":"Bergen","days":1}');
    const message = textOf(results[2]);
    expect(message).toContain('Invalid arguments for tool "weather":');
    expect(message).toContain("  - /city: required property missing");
    expect(message).toContain("  - /town: unexpected property");
    expect(message).toContain("  - /days: must be >= 1, received 0");
    expect(message).toContain('Received arguments: {"days":0,"town":"x"}');
    expect(results[2]?.details).toMatchObject({ validationErrors: expect.any(Array) });
    // The model sees the schema exactly as written.
    expect(sentTools[0]?.parameters).toEqual(weatherJsonSchema);
  });

  it('is sent with `type: "object"` added when its root leaves the type out', async () => {
    const untyped = echoing({
      name: "note",
      description: "Note",
      parameters: { properties: { text: { type: "string" } } },
    });
    const { results, sentTools } = await callEach(untyped, [{ text: "hi" }, { text: 5 }]);
    expect(results.map((result) => result.isError)).toEqual([false, false]);
    expect(textOf(results[1])).toBe('{"text":"5"}');
    expect(sentTools[0]?.parameters).toEqual({ type: "object", properties: { text: { type: "string" } } });
  });
});

describe("a Standard Schema tool", () => {
  it("zod: validated by zod, its JSON Schema sent to the model, never the schema object", async () => {
    const parameters = z.object({
      city: z.string().describe("City name"),
      days: z.number().int().min(1).default(1),
    });
    const tool = defineTool({
      name: "weather",
      description: "Forecast",
      parameters,
      execute: ({ city, days }) => ({ content: [{ type: "text", text: `${city.toUpperCase()} x${days}` }] }),
    });
    expect(toolSchemaKind(tool.parameters)).toBe("standard-schema");
    const { results, sentTools } = await callEach(tool as AgentTool, [{ city: "Oslo" }, { city: 3 }]);
    expect(textOf(results[0])).toBe("OSLO x1");
    expect(results[1]?.isError).toBe(true);
    expect(textOf(results[1])).toContain('Invalid arguments for tool "weather":');
    expect(textOf(results[1])).toContain("  - /city: Invalid input: expected string, received number");
    const sent = sentTools[0]?.parameters as JsonSchema;
    expect(sent).not.toHaveProperty("~standard");
    expect(sent).not.toHaveProperty("$schema");
    expect(sent).toMatchObject({
      type: "object",
      properties: {
        city: { type: "string", description: "City name" },
        days: { type: "integer", minimum: 1 },
      },
      required: ["city"],
    });
  });

  it("an async validate() works; withJsonSchema gives the model a JSON Schema", async () => {
    const seen: unknown[] = [];
    const trimmed: StandardSchemaV1<{ text: string }, { text: string; length: number }> = {
      "~standard": {
        version: 1,
        vendor: "hand-written",
        async validate(value) {
          seen.push(value);
          await new Promise((resolve) => setTimeout(resolve, 5));
          const text = (value as { text?: unknown } | null)?.text;
          if (typeof text !== "string")
            return { issues: [{ message: "text must be a string", path: [{ key: "text" }] }] };
          return { value: { text: text.trim(), length: text.trim().length } };
        },
      },
    };
    const jsonSchema = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
    const tool = defineTool({
      name: "trim",
      description: "Trims",
      parameters: withJsonSchema(trimmed, jsonSchema),
      execute: ({ text, length }) => ({ content: [{ type: "text", text: `${text}:${length}` }] }),
    });
    const { results, sentTools } = await callEach(tool as AgentTool, [{ text: "  hi " }, { text: 1 }]);
    expect(textOf(results[0])).toBe("hi:2");
    expect(results[1]?.isError).toBe(true);
    expect(textOf(results[1])).toContain("  - /text: text must be a string");
    expect(seen).toEqual([{ text: "  hi " }, { text: 1 }]);
    expect(sentTools[0]?.parameters).toEqual(jsonSchema);
  });

  it("a validate() that throws is an error result, not a crash", async () => {
    const broken: StandardSchemaV1 = {
      "~standard": {
        version: 1,
        vendor: "hand-written",
        validate: () => {
          throw new Error("boom");
        },
      },
    };
    const tool = echoing({
      name: "x",
      description: "x",
      parameters: withJsonSchema(broken, { type: "object" }),
    });
    const { results } = await callEach(tool, [{}]);
    expect(results[0]?.isError).toBe(true);
    expect(textOf(results[0])).toContain("(root): the schema's validate() failed: boom");
  });
});

describe("schemas are checked when tools are registered", () => {
  const execute = () => ({ content: [] });
  const noJsonSchema: StandardSchemaV1 = {
    "~standard": { version: 1, vendor: "valibot", validate: (value) => ({ value }) },
  };
  const cases: [string, unknown, RegExp][] = [
    ["a root of another type", { type: "string" }, /its root is of type "string", not an object schema/],
    [
      "a JSON Schema ajv cannot compile",
      { type: "object", properties: { a: { type: "strin" } } },
      /does not compile/,
    ],
    [
      "a $ref to nothing",
      { type: "object", properties: { a: { $ref: "#/$defs/none" } } },
      /does not compile/,
    ],
    [
      "a Standard Schema without JSON Schema",
      noJsonSchema,
      /valibot schema gives no JSON Schema .*withJsonSchema/,
    ],
    ["a TypeBox root that is no object", Type.String(), /not an object schema/],
    ["no schema at all", "city: string", /its parameters are string, not a schema/],
    [
      "a Standard Schema of another version",
      { "~standard": { version: 2, validate: () => ({}) } },
      /no Standard Schema v1/,
    ],
  ];
  for (const [what, parameters, reason] of cases) {
    it(`the Agent constructor throws for ${what}`, () => {
      const tool = { name: "bad", description: "bad", parameters, execute } as unknown as AgentTool;
      const provider = createScriptedProvider([]);
      let thrown: unknown;
      try {
        new Agent({ model: provider.model, streamFn: provider.stream, tools: [tool] });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(InvalidToolSchemaError);
      expect((thrown as InvalidToolSchemaError).code).toBe("invalid_tool_schema");
      expect((thrown as InvalidToolSchemaError).toolName).toBe("bad");
      expect((thrown as Error).message).toMatch(reason);
    });
  }

  it("setTools throws and keeps the tools it had; runAgentLoop rejects before any event", async () => {
    const good = echoing({ name: "good", description: "good", parameters: { type: "object" } });
    const bad = { name: "bad", description: "bad", parameters: { type: "array" }, execute } as AgentTool;
    const provider = createScriptedProvider([]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream, tools: [good] });
    expect(() => agent.setTools([good, bad])).toThrow(InvalidToolSchemaError);
    expect(agent.state.tools.map((tool) => tool.name)).toEqual(["good"]);
    const events: unknown[] = [];
    await expect(
      runAgentLoop(
        [user("go")],
        { messages: [], tools: [bad] },
        { model: provider.model, streamFn: provider.stream },
        (event) => {
          events.push(event);
        },
      ),
    ).rejects.toMatchObject({ code: "invalid_tool_schema" });
    expect(events).toEqual([]);
  });
});

describe("TypeBox tools are unchanged", () => {
  it("are sent as they are: the same tool objects, the same list", () => {
    const tools: AgentTool[] = [
      echoing({ name: "a", description: "a", parameters: Type.Object({ path: Type.String() }) }),
      echoing({ name: "b", description: "b", parameters: { type: "object", properties: {} } }),
    ];
    for (const tool of tools) checkToolSchema(tool);
    expect(modelTools(tools)).toBe(tools);
    expect(toolSchemaKind(tools[0]?.parameters)).toBe("typebox");
    expect(toolSchemaKind(tools[1]?.parameters)).toBe("json-schema");
  });

  it("a zod tool among them gets its own model tool, the same one each turn", () => {
    const zodTool = echoing({ name: "z", description: "z", parameters: z.object({ q: z.string() }) });
    const tools: AgentTool[] = [
      echoing({ name: "a", description: "a", parameters: Type.Object({}) }),
      zodTool,
    ];
    const first = modelTools(tools);
    expect(first).not.toBe(tools);
    expect(first[0]).toBe(tools[0]);
    expect(first[1]).toEqual({
      name: "z",
      description: "z",
      parameters: expect.objectContaining({ type: "object" }),
    });
    expect(modelTools([...tools])[1]).toBe(first[1]);
  });

  it("an Agent runs a zod tool end to end", async () => {
    const provider = createScriptedProvider([
      script.toolCalls([{ name: "add", arguments: { a: 2, b: "3" }, id: "c1" }]),
      script.text("5"),
    ]);
    const add = defineTool({
      name: "add",
      description: "Adds",
      parameters: z.object({ a: z.number(), b: z.coerce.number() }),
      execute: ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
    });
    const agent = new Agent({ model: provider.model, streamFn: provider.stream, tools: [add] });
    await agent.prompt("2 + 3?");
    const result = agent.state.messages.find((message: AgentMessage) => message.role === "toolResult");
    expect(textOf(result)).toBe("5");
    expect((result as ToolResultMessage).isError).toBe(false);
  });
});

describe("the three forms of docs/tool-schemas.md", () => {
  it("run side by side in one agent", async () => {
    const weather = defineTool({
      name: "weather",
      description: "The forecast for a city",
      parameters: Type.Object({ city: Type.String(), days: Type.Integer({ minimum: 1, default: 1 }) }),
      execute: async ({ city, days }) => ({
        content: [{ type: "text", text: `${city}: sunny for ${days} days` }],
      }),
    });
    const search = defineTool({
      name: "search",
      description: "Search the notes",
      parameters: {
        type: "object",
        properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1, default: 10 } },
        required: ["query"],
      },
      execute: async (args) => ({
        content: [{ type: "text", text: `results for ${String(args.query)} (${String(args.limit)})` }],
      }),
    });
    const add = defineTool({
      name: "add",
      description: "Adds two numbers",
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
    });
    const provider = createScriptedProvider([
      script.toolCalls([
        { name: "weather", arguments: { city: "Oslo" }, id: "w" },
        { name: "search", arguments: { query: "tide" }, id: "s" },
        { name: "add", arguments: { a: 1, b: 2 }, id: "a" },
        { name: "search", arguments: { limit: 0 }, id: "bad" },
      ]),
      script.text("done"),
    ]);
    const agent = new Agent({
      model: provider.model,
      streamFn: provider.stream,
      tools: [weather, search, add],
    });
    await agent.prompt("go");
    const results = agent.state.messages.filter(
      (message: AgentMessage): message is ToolResultMessage => message.role === "toolResult",
    );
    expect(results.map((result) => textOf(result))).toEqual([
      "Oslo: sunny for 1 days",
      "results for tide (10)",
      "3",
      [
        'Invalid arguments for tool "search":',
        "  - /query: required property missing",
        "  - /limit: must be >= 1, received 0",
        'Received arguments: {"limit":0}',
      ].join("\n"),
    ]);
    expect(provider.calls[0]?.context.tools?.map((tool) => (tool.parameters as JsonSchema).type)).toEqual([
      "object",
      "object",
      "object",
    ]);
  });
});
