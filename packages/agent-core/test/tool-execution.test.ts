import { Type } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import {
  type AgentLoopConfig,
  type AgentMessage,
  type AgentTool,
  defineTool,
  runAgentLoop,
  type ToolExecutionMode,
  type ToolResultMessage,
} from "../src/index.js";
import { EventLog, echoTool, expectWellFormedRun, sleep, textOf, trackingTool, user } from "./helpers.js";

interface RunOptions {
  tools: AgentTool[];
  config?: Partial<AgentLoopConfig>;
  chunkSize?: number;
}

/** Runs one prompt against scripted steps; returns the events, the added messages and the provider. */
async function run(steps: Parameters<typeof createScriptedProvider>[0], options: RunOptions) {
  const provider = createScriptedProvider(steps, { chunkSize: options.chunkSize ?? 64 });
  const log = new EventLog();
  const added = await runAgentLoop(
    [user("go")],
    { messages: [], tools: options.tools },
    { model: provider.model, streamFn: provider.stream, ...options.config },
    log.sink,
  );
  expectWellFormedRun(log.events, added);
  provider.assertDone();
  return { log, added, provider };
}

function results(added: AgentMessage[]): ToolResultMessage[] {
  return added.filter((message): message is ToolResultMessage => message.role === "toolResult");
}

/** Three calls whose completion order (b, c, a) differs from their order in the message (a, b, c). */
const threeCalls = script.toolCalls([
  { name: "work", arguments: { label: "a", delayMs: 150 }, id: "a" },
  { name: "work", arguments: { label: "b", delayMs: 1 }, id: "b" },
  { name: "work", arguments: { label: "c", delayMs: 75 }, id: "c" },
]);

function toolEvents(log: EventLog): string[] {
  return log.labels.filter((entry) => entry.startsWith("tool_") || entry.includes("(toolResult)"));
}

describe("tool execution modes", () => {
  it("parallel (default): prepared in order, run concurrently, ends in completion order, results in call order", async () => {
    const order: string[] = [];
    const prepared: string[] = [];
    const { log, added } = await run([threeCalls, script.text("ok")], {
      tools: [trackingTool("work", order)],
      config: {
        beforeToolCall: ({ toolCall }) => {
          prepared.push(
            `${toolCall.id} (running: ${order.filter((entry) => entry.startsWith("start")).length})`,
          );
          return undefined;
        },
      },
    });
    // a is prepared and starts before b is prepared: preparation is in order, execution overlaps it.
    expect(prepared).toEqual(["a (running: 0)", "b (running: 1)", "c (running: 2)"]);
    expect(order).toEqual(["start a", "start b", "start c", "end b", "end c", "end a"]);
    const ids = log.events.flatMap((event) =>
      event.type === "message_end" && event.message.role === "toolResult"
        ? [`result ${event.message.toolCallId}`]
        : [],
    );
    expect(toolEvents(log)).toEqual([
      "tool_execution_start(a)",
      "tool_execution_start(b)",
      "tool_execution_start(c)",
      "tool_execution_end(b)",
      "tool_execution_end(c)",
      "tool_execution_end(a)",
      "message_start(toolResult)",
      "message_end(toolResult)",
      "message_start(toolResult)",
      "message_end(toolResult)",
      "message_start(toolResult)",
      "message_end(toolResult)",
    ]);
    expect(ids).toEqual(["result a", "result b", "result c"]);
    expect(results(added).map(textOf)).toEqual(["done a", "done b", "done c"]);
    expect(log.of("turn_end")[0]!.toolResults.map((result) => result.toolCallId)).toEqual(["a", "b", "c"]);
  });

  it("sequential: each call starts, ends and has its result before the next starts", async () => {
    const order: string[] = [];
    const { log, added } = await run([threeCalls, script.text("ok")], {
      tools: [trackingTool("work", order)],
      config: { toolExecution: "sequential" },
    });
    expect(order).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    expect(toolEvents(log)).toEqual(
      ["a", "b", "c"].flatMap((id) => [
        `tool_execution_start(${id})`,
        `tool_execution_end(${id})`,
        "message_start(toolResult)",
        "message_end(toolResult)",
      ]),
    );
    expect(results(added).map(textOf)).toEqual(["done a", "done b", "done c"]);
  });

  it("a tool with executionMode sequential makes its message's calls sequential", async () => {
    const order: string[] = [];
    await run(
      [
        script.toolCalls([
          { name: "work", arguments: { label: "a", delayMs: 30 }, id: "a" },
          { name: "exclusive", arguments: { label: "b", delayMs: 1 }, id: "b" },
        ]),
        script.text("ok"),
      ],
      {
        tools: [
          trackingTool("work", order),
          trackingTool("exclusive", order, { executionMode: "sequential" }),
        ],
      },
    );
    expect(order).toEqual(["start a", "end a", "start b", "end b"]);
  });

  it.each(["parallel", "sequential"] as ToolExecutionMode[])(
    "%s: updates arrive in order before the end; updates after the call settled are ignored",
    async (mode) => {
      const chatty = defineTool({
        name: "chatty",
        description: "reports progress",
        parameters: Type.Object({}),
        async execute(_args, { onUpdate }) {
          onUpdate({ content: [{ type: "text", text: "1" }] });
          onUpdate({ content: [{ type: "text", text: "2" }] });
          setTimeout(() => onUpdate({ content: [{ type: "text", text: "late" }] }), 1);
          return { content: [{ type: "text", text: "final" }] };
        },
      });
      const { log } = await run(
        [script.toolCall("chatty", {}, { id: "call_c" }), script.delay(20, script.text("ok"))],
        { tools: [chatty], config: { toolExecution: mode } },
      );
      expect(toolEvents(log).slice(0, 4)).toEqual([
        "tool_execution_start(call_c)",
        "tool_execution_update(call_c)",
        "tool_execution_update(call_c)",
        "tool_execution_end(call_c)",
      ]);
      expect(
        log.of("tool_execution_update").map((event) => textOf(event.partialResult as AgentMessage)),
      ).toEqual(["1", "2"]);
    },
  );
});

describe("event delivery while tools run in parallel", () => {
  it("hands events to a slow async sink one at a time, in order, even when tools report at once", async () => {
    const busy = defineTool({
      name: "busy",
      description: "reports progress three times",
      parameters: Type.Object({ label: Type.String() }),
      async execute({ label: callLabel }, { onUpdate }) {
        for (let step = 1; step <= 3; step++) {
          onUpdate({ details: `${callLabel} ${step}` });
          await sleep(1);
        }
        return { content: [{ type: "text", text: callLabel }] };
      },
    });
    const provider = createScriptedProvider([
      script.toolCalls(["x", "y", "z"].map((id) => ({ name: "busy", arguments: { label: id }, id }))),
      script.text("ok"),
    ]);
    let active = 0;
    let overlaps = 0;
    const log = new EventLog();
    const added = await runAgentLoop(
      [user("go")],
      { messages: [], tools: [busy] },
      { model: provider.model, streamFn: provider.stream },
      async (event) => {
        active++;
        if (active > 1) overlaps++;
        log.sink(event);
        await sleep(event.type.startsWith("tool_") ? 2 : 0);
        active--;
      },
    );
    expect(overlaps).toBe(0);
    for (const id of ["x", "y", "z"]) {
      const own = log.labels.filter((entry) => entry.endsWith(`(${id})`));
      expect(own).toEqual([
        `tool_execution_start(${id})`,
        `tool_execution_update(${id})`,
        `tool_execution_update(${id})`,
        `tool_execution_update(${id})`,
        `tool_execution_end(${id})`,
      ]);
    }
    expectWellFormedRun(log.events, added);
  });
});

describe("tool failures become error results", () => {
  const strictTool = defineTool({
    name: "edit",
    description: "edit a file",
    parameters: Type.Object({
      path: Type.String(),
      count: Type.Integer({ minimum: 1 }),
      edits: Type.Array(Type.Object({ oldText: Type.String(), newText: Type.String() })),
    }),
    execute: () => {
      throw new Error("must not run");
    },
  });

  it("invalid arguments: the text lists each path, what was expected and what was received", async () => {
    const { added, log } = await run(
      [
        script.toolCall("edit", { path: "a.ts", count: "many", edits: [{ newText: "x" }] }, { id: "call_e" }),
        script.text("sorry"),
      ],
      { tools: [strictTool] },
    );
    const [result] = results(added);
    expect(result!.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain('Invalid arguments for tool "edit"');
    expect(text).toContain('/count: expected integer >= 1, received string "many"');
    expect(text).toContain("/edits/0/oldText: required property missing");
    expect(text).toContain('Received arguments: {"path":"a.ts","count":"many"');
    expect(result!.details).toMatchObject({
      validationErrors: expect.arrayContaining([
        expect.objectContaining({ path: "/count", received: 'string "many"' }),
        expect.objectContaining({ path: "/edits/0/oldText", received: "undefined (missing)" }),
      ]),
    });
    // The model saw the error and could react.
    expect(log.of("tool_execution_end")[0]!.isError).toBe(true);
  });

  it("arguments are repaired and prepareArguments may migrate them before validation", async () => {
    const seen: unknown[] = [];
    const read = defineTool({
      name: "read",
      description: "read",
      parameters: Type.Object({ path: Type.String(), limit: Type.Integer() }),
      prepareArguments: (raw) => ("file" in raw ? { path: raw.file, limit: raw.limit } : raw),
      execute(args) {
        seen.push(args);
        return { content: [{ type: "text", text: "ok" }] };
      },
    });
    await run([script.toolCall("read", { file: "old.md", limit: "5" }), script.text("ok")], {
      tools: [read],
    });
    expect(seen).toEqual([{ path: "old.md", limit: 5 }]);
  });

  it("unknown tool, throwing tool, throwing prepareArguments, invalid return value, isError result", async () => {
    const throwing = defineTool({
      name: "explode",
      description: "throws",
      parameters: Type.Object({}),
      execute: () => {
        throw new Error("disk on fire");
      },
    });
    const badPrepare = defineTool({
      name: "migrate",
      description: "prepare throws",
      parameters: Type.Object({}),
      prepareArguments: () => {
        throw new Error("cannot migrate");
      },
      execute: () => ({ content: [] }),
    });
    const badReturn = {
      name: "broken",
      description: "returns nothing",
      parameters: Type.Object({}),
      execute: async () => undefined,
    } as unknown as AgentTool;
    const failing = defineTool({
      name: "grep",
      description: "no match",
      parameters: Type.Object({}),
      execute: () => ({ content: [{ type: "text", text: "no match" }], isError: true }),
    });
    const { added } = await run(
      [
        script.toolCalls([
          { name: "nope", arguments: {}, id: "1" },
          { name: "explode", arguments: {}, id: "2" },
          { name: "migrate", arguments: {}, id: "3" },
          { name: "broken", arguments: {}, id: "4" },
          { name: "grep", arguments: {}, id: "5" },
          { name: "echo", arguments: { text: "fine" }, id: "6" },
        ]),
        script.text("ok"),
      ],
      { tools: [throwing, badPrepare, badReturn, failing, echoTool] },
    );
    expect(results(added).map((result) => [result.toolCallId, result.isError, textOf(result)])).toEqual([
      ["1", true, 'Tool "nope" not found. Available tools: explode, migrate, broken, grep, echo.'],
      ["2", true, "disk on fire"],
      ["3", true, 'Tool "migrate": preparing the arguments failed: cannot migrate'],
      [
        "4",
        true,
        'Tool "broken" returned an invalid result: expected an object with a content array, received undefined.',
      ],
      ["5", true, "no match"],
      ["6", false, "fine"],
    ]);
  });

  it("calls of a response cut by the output limit are not executed; the model is asked again", async () => {
    const order: string[] = [];
    const { added, provider } = await run(
      [
        script.response([script.part.toolCall("work", { label: "a", delayMs: 1 }, "cut")], {
          stopReason: "length",
        }),
        script.text("let me retry"),
      ],
      { tools: [trackingTool("work", order)] },
    );
    expect(order).toEqual([]);
    const [result] = results(added);
    expect(result!.isError).toBe(true);
    expect(textOf(result)).toContain("output token limit");
    expect(provider.calls).toHaveLength(2);
  });

  it("a tool that ignores the signal cannot hold the run: updates after abort are dropped", async () => {
    const controller = new AbortController();
    const stubborn = defineTool({
      name: "stubborn",
      description: "ignores abort",
      parameters: Type.Object({}),
      async execute(_args, { onUpdate }) {
        await sleep(40);
        onUpdate({ details: "too late" });
        return { content: [{ type: "text", text: "finished anyway" }] };
      },
    });
    const provider = createScriptedProvider([script.toolCall("stubborn", {}, { id: "s" })]);
    const log = new EventLog();
    const added = await runAgentLoop(
      [user("go")],
      { messages: [], tools: [stubborn] },
      { model: provider.model, streamFn: provider.stream },
      (event) => {
        log.sink(event);
        if (event.type === "tool_execution_start") setTimeout(() => controller.abort(), 5);
      },
      controller.signal,
    );
    expect(textOf(results(added)[0])).toBe('Tool "stubborn" was aborted.');
    await sleep(60);
    expect(log.of("tool_execution_update")).toEqual([]);
    expect(log.events.at(-1)?.type).toBe("agent_end");
  });
});
