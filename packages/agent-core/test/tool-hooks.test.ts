import { Type } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import {
  type AfterToolCallContext,
  type AgentLoopConfig,
  type AgentTool,
  defineTool,
  runAgentLoop,
  type ToolExecutionMode,
  type ToolResultMessage,
} from "../src/index.js";
import { EventLog, echoTool, expectWellFormedRun, textOf, trackingTool, user } from "./helpers.js";

async function run(
  steps: Parameters<typeof createScriptedProvider>[0],
  tools: AgentTool[],
  config: Partial<AgentLoopConfig> = {},
) {
  const provider = createScriptedProvider(steps, { chunkSize: 64 });
  const log = new EventLog();
  const added = await runAgentLoop(
    [user("go")],
    { messages: [], tools },
    { model: provider.model, streamFn: provider.stream, ...config },
    log.sink,
  );
  expectWellFormedRun(log.events, added);
  provider.assertDone();
  const results = added.filter((message): message is ToolResultMessage => message.role === "toolResult");
  return { log, added, provider, results };
}

describe("beforeToolCall", () => {
  it("blocks a call with a reason: the tool does not run, the model sees the reason as an error", async () => {
    const order: string[] = [];
    const seen: unknown[] = [];
    const { results, log, provider } = await run(
      [
        script.toolCalls([
          { name: "work", arguments: { label: "rm", delayMs: 1 }, id: "rm" },
          { name: "work", arguments: { label: "ls", delayMs: 1 }, id: "ls" },
        ]),
        script.text("understood"),
      ],
      [trackingTool("work", order)],
      {
        beforeToolCall: ({ toolCall, args, assistantMessage, context }) => {
          seen.push({
            id: toolCall.id,
            args,
            assistant: assistantMessage.stopReason,
            messages: context.messages.length,
          });
          return toolCall.id === "rm"
            ? { block: true, reason: "rm is not allowed in this directory" }
            : undefined;
        },
      },
    );
    expect(order).toEqual(["start ls", "end ls"]);
    expect(seen).toEqual([
      { id: "rm", args: { label: "rm", delayMs: 1 }, assistant: "toolUse", messages: 2 },
      { id: "ls", args: { label: "ls", delayMs: 1 }, assistant: "toolUse", messages: 2 },
    ]);
    expect(results.map((result) => [result.toolCallId, result.isError, textOf(result)])).toEqual([
      ["rm", true, "rm is not allowed in this directory"],
      ["ls", false, "done ls"],
    ]);
    // The blocked call still has its start/end pair, emitted before the next call is prepared.
    expect(log.labels.filter((entry) => entry.startsWith("tool_execution"))).toEqual([
      "tool_execution_start(rm)",
      "tool_execution_end(rm)",
      "tool_execution_start(ls)",
      "tool_execution_end(ls)",
    ]);
    expect(provider.calls[1]!.context.messages.at(-2)).toMatchObject({ role: "toolResult", isError: true });
  });

  it("a block without reason gets a default text; a throwing hook blocks with its message", async () => {
    const { results } = await run(
      [
        script.toolCalls([
          { name: "echo", arguments: { text: "a" }, id: "a" },
          { name: "echo", arguments: { text: "b" }, id: "b" },
        ]),
        script.text("ok"),
      ],
      [echoTool],
      {
        beforeToolCall: ({ toolCall }) => {
          if (toolCall.id === "a") return { block: true };
          throw new Error("policy server down");
        },
      },
    );
    expect(results.map(textOf)).toEqual([
      'Tool call "echo" was blocked.',
      'Tool call "echo" was blocked: the beforeToolCall hook failed: policy server down',
    ]);
    expect(results.every((result) => result.isError)).toBe(true);
  });

  it("is not called for unknown tools or invalid arguments", async () => {
    const calls: string[] = [];
    await run(
      [
        script.toolCalls([
          { name: "missing", arguments: {}, id: "m" },
          { name: "echo", arguments: { text: 5 }, id: "bad" },
          { name: "echo", arguments: {}, id: "bad2" },
        ]),
        script.text("ok"),
      ],
      [echoTool],
      {
        beforeToolCall: ({ toolCall }) => {
          calls.push(toolCall.id);
          return undefined;
        },
      },
    );
    // `5` is repaired to "5" (valid); `{}` lacks `text` (invalid); `missing` does not exist.
    expect(calls).toEqual(["bad"]);
  });
});

describe("afterToolCall", () => {
  it.each(["parallel", "sequential"] as ToolExecutionMode[])(
    "%s: overrides content, details and isError field by field; sees the executed result",
    async (mode) => {
      const seen: Pick<AfterToolCallContext, "isError" | "result">[] = [];
      const { results, log } = await run(
        [
          script.toolCalls([
            { name: "echo", arguments: { text: "secret-token-123" }, id: "redact" },
            { name: "echo", arguments: { text: "fine" }, id: "keep" },
            { name: "echo", arguments: { text: "mark" }, id: "mark" },
          ]),
          script.text("ok"),
        ],
        [echoTool],
        {
          toolExecution: mode,
          afterToolCall: ({ toolCall, result, isError }) => {
            seen.push({ result, isError });
            if (toolCall.id === "redact") {
              return { content: [{ type: "text", text: "[redacted]" }], details: { redacted: true } };
            }
            if (toolCall.id === "mark") return { isError: true };
            return undefined;
          },
        },
      );
      expect(seen.map((entry) => [textOf(entry.result as never), entry.isError])).toEqual(
        mode === "sequential"
          ? [
              ["secret-token-123", false],
              ["fine", false],
              ["mark", false],
            ]
          : expect.arrayContaining([
              ["secret-token-123", false],
              ["fine", false],
              ["mark", false],
            ]),
      );
      expect(results.map((result) => [textOf(result), result.details, result.isError])).toEqual([
        ["[redacted]", { redacted: true }, false],
        ["fine", { length: 4 }, false],
        ["mark", { length: 4 }, true],
      ]);
      // tool_execution_end carries the overridden result too.
      const end = log.of("tool_execution_end").find((event) => event.toolCallId === "redact")!;
      expect(textOf(end.result as never)).toBe("[redacted]");
      expect(log.of("tool_execution_end").find((event) => event.toolCallId === "mark")!.isError).toBe(true);
    },
  );

  it("a throwing afterToolCall turns the result into an error naming the hook", async () => {
    const { results } = await run([script.toolCall("echo", { text: "x" }), script.text("ok")], [echoTool], {
      afterToolCall: () => {
        throw new Error("audit log full");
      },
    });
    expect(results[0]!.isError).toBe(true);
    expect(textOf(results[0])).toBe('Tool "echo" ran, but the afterToolCall hook failed: audit log full');
  });
});

describe("terminate", () => {
  const finish = defineTool({
    name: "finish",
    description: "submit the final answer",
    parameters: Type.Object({ answer: Type.String() }),
    execute: ({ answer }) => ({ content: [{ type: "text", text: `submitted ${answer}` }], terminate: true }),
  });

  it("a tool result with terminate ends the run after the turn, once every result of the turn is in", async () => {
    const order: string[] = [];
    const { log, provider, results } = await run(
      [
        script.toolCalls([
          { name: "finish", arguments: { answer: "42" }, id: "f" },
          { name: "work", arguments: { label: "slow", delayMs: 30 }, id: "w" },
        ]),
      ],
      [finish, trackingTool("work", order)],
    );
    expect(provider.calls).toHaveLength(1);
    expect(order).toEqual(["start slow", "end slow"]);
    expect(results.map(textOf)).toEqual(["submitted 42", "done slow"]);
    expect(log.types.slice(-2)).toEqual(["turn_end", "agent_end"]);
  });

  it("afterToolCall can set terminate (and can clear it)", async () => {
    const stopped = await run([script.toolCall("echo", { text: "x" })], [echoTool], {
      afterToolCall: () => ({ terminate: true }),
    });
    expect(stopped.provider.calls).toHaveLength(1);
    const cleared = await run(
      [script.toolCall("finish", { answer: "1" }), script.text("continued")],
      [finish],
      {
        afterToolCall: () => ({ terminate: false }),
      },
    );
    expect(cleared.provider.calls).toHaveLength(2);
  });

  it("steering and follow-ups stay queued when a tool terminates the run", async () => {
    let steeringPolls = 0;
    let followUpPolls = 0;
    await run([script.toolCall("finish", { answer: "1" })], [finish], {
      getSteeringMessages: () => {
        steeringPolls++;
        return [];
      },
      getFollowUpMessages: () => {
        followUpPolls++;
        return [];
      },
    });
    expect([steeringPolls, followUpPolls]).toEqual([1, 0]); // only the poll at the start of the run
  });
});
