import { type AssistantMessage, type AssistantStream, emptyUsage, type StreamFn } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import {
  Agent,
  type AgentEvent,
  type AgentLoopConfig,
  runAgentLoop,
  type ToolResultMessage,
} from "../src/index.js";
import { EventLog, echoTool, expectWellFormedRun, label, textOf, user } from "./helpers.js";

async function run(
  steps: Parameters<typeof createScriptedProvider>[0],
  config: Partial<AgentLoopConfig> = {},
  sink?: (event: AgentEvent, log: EventLog) => void,
) {
  const provider = createScriptedProvider(steps, { chunkSize: 4 });
  const log = new EventLog();
  const added = await runAgentLoop(
    [user("go")],
    { messages: [], tools: [echoTool] },
    { model: provider.model, streamFn: provider.stream, ...config },
    (event) => {
      log.sink(event);
      sink?.(event, log);
    },
  );
  expectWellFormedRun(log.events, added);
  return { provider, log, added };
}

const loopFailed = (text: string) =>
  expect.objectContaining({ stopReason: "error", errorMessage: `Agent loop failed: ${text}` });

describe("provider failures", () => {
  it("an error response ends the run with agent_end; its partial tool calls are answered, not run", async () => {
    const { added, log, provider } = await run([
      script.error("529 overloaded", {
        partial: [script.part.toolCall("echo", { text: "x" }, "partial_call")],
      }),
      script.text("never"),
    ]);
    expect(added[1]).toMatchObject({ stopReason: "error", errorMessage: "529 overloaded" });
    expect(added[2]).toMatchObject({ role: "toolResult", toolCallId: "partial_call", isError: true });
    expect(textOf(added[2])).toContain("the response failed before it completed");
    expect(provider.calls).toHaveLength(1);
    expect(log.types.slice(-2)).toEqual(["turn_end", "agent_end"]);
  });

  it("a StreamFn that throws, a stream that throws and a stream without a final event become error messages", async () => {
    const throwingFn: StreamFn = () => {
      throw new Error("no network layer");
    };
    const model = createScriptedProvider().model;
    const brokenIterator: StreamFn = () =>
      ({
        [Symbol.asyncIterator]: () => ({
          next: () => Promise.reject(new Error("socket reset")),
        }),
        result: () => new Promise(() => {}),
      }) as unknown as AssistantStream;
    const endsEarly: StreamFn = (streamModel) => {
      const partial: AssistantMessage = {
        role: "assistant",
        content: [{ type: "text", text: "half" }],
        api: streamModel.api,
        provider: streamModel.provider,
        model: streamModel.id,
        usage: emptyUsage(),
        stopReason: "stop",
        timestamp: 1,
      };
      const events = [{ type: "start", partial }];
      return {
        [Symbol.asyncIterator]: () => ({
          next: async () => {
            const value = events.shift();
            return value === undefined ? { done: true, value: undefined } : { done: false, value };
          },
        }),
        result: () => new Promise(() => {}),
      } as unknown as AssistantStream;
    };
    const outcomes: string[] = [];
    for (const streamFn of [throwingFn, brokenIterator, endsEarly]) {
      const log = new EventLog();
      const added = await runAgentLoop([user("x")], { messages: [] }, { model, streamFn }, log.sink);
      expectWellFormedRun(log.events, added);
      const reply = added[1]!;
      expect(reply).toMatchObject({ role: "assistant", stopReason: "error" });
      outcomes.push(`${(reply as { errorMessage: string }).errorMessage} | ${textOf(reply)}`);
    }
    expect(outcomes).toEqual([
      "The stream function threw: no network layer | ",
      "The response stream failed: socket reset | ",
      "The response stream ended without a final message. | half",
    ]);
  });
});

describe("internal failures end the run with a synthetic error message and agent_end", () => {
  it("a throwing convertToLlm (before the model call, inside the turn)", async () => {
    const { added, log, provider } = await run([script.text("never")], {
      convertToLlm: () => {
        throw new Error("bad converter");
      },
    });
    expect(log.labels).toEqual([
      "agent_start",
      "turn_start",
      "message_start(user)",
      "message_end(user)",
      "message_start(assistant)",
      "message_end(assistant)",
      "turn_end",
      "agent_end",
    ]);
    expect(added[1]).toEqual(loopFailed("bad converter"));
    expect(provider.calls).toHaveLength(0);
  });

  it("a throwing shouldStopAfterTurn (between turns): the error message gets a turn of its own", async () => {
    const { added, log } = await run([script.toolCall("echo", { text: "x" }), script.text("never")], {
      shouldStopAfterTurn: () => {
        throw new Error("hook bug");
      },
    });
    expect(log.types.slice(-6)).toEqual([
      "turn_end",
      "turn_start",
      "message_start",
      "message_end",
      "turn_end",
      "agent_end",
    ]);
    expect(added.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(added[3]).toEqual(loopFailed("hook bug"));
  });

  it("a sink that throws while tools run: running tools are aborted, every call is answered", async () => {
    let thrown = false;
    const { added, log } = await run(
      [
        script.toolCalls([
          { name: "echo", arguments: { text: "a", delayMs: 10_000 }, id: "a" },
          { name: "echo", arguments: { text: "b", delayMs: 10_000 }, id: "b" },
        ]),
      ],
      {},
      (event) => {
        if (event.type === "tool_execution_start" && event.toolCallId === "b" && !thrown) {
          thrown = true;
          throw new Error("ui crashed");
        }
      },
    );
    const results = added.filter((message): message is ToolResultMessage => message.role === "toolResult");
    expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
      ["a", true],
      ["b", true],
    ]);
    expect(textOf(results[1])).toBe('Tool call "echo" has no result: the agent loop failed (ui crashed).');
    expect(added.at(-1)).toEqual(loopFailed("ui crashed"));
    expect(log.events.at(-1)?.type).toBe("agent_end");
  });

  it("a sink that throws mid-stream: the open assistant message becomes the error message", async () => {
    const { added, log } = await run(
      [script.toolCall("echo", { text: "a long argument to stream in chunks" }, { id: "streaming" })],
      {},
      (event, events) => {
        if (event.type === "message_update" && events.of("message_update").length === 3)
          throw new Error("render failed");
      },
    );
    expect(added[1]).toEqual(loopFailed("render failed"));
    expect(added[2]).toMatchObject({ role: "toolResult", toolCallId: "streaming", isError: true });
    expect(log.events.filter((event) => event.type === "turn_end")).toHaveLength(1);
  });

  it("a sink that always throws still lets the run resolve", async () => {
    const provider = createScriptedProvider([script.text("ok")]);
    const seen: string[] = [];
    const added = await runAgentLoop(
      [user("x")],
      { messages: [] },
      { model: provider.model, streamFn: provider.stream },
      (event) => {
        seen.push(label(event));
        throw new Error("always");
      },
    );
    expect(seen[0]).toBe("agent_start");
    expect(seen.at(-1)).toBe("agent_end");
    expect(added.at(-1)).toEqual(loopFailed("always"));
  });

  it("Agent: a throwing prepareNextTurn leaves the agent idle with the error in its state", async () => {
    const provider = createScriptedProvider([script.toolCall("echo", { text: "x" })]);
    const agent = new Agent({
      model: provider.model,
      streamFn: provider.stream,
      tools: [echoTool],
      prepareNextTurn: () => {
        throw new Error("compaction exploded");
      },
    });
    const log = new EventLog();
    agent.subscribe(log.sink);
    await agent.prompt("go");
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.errorMessage).toBe("Agent loop failed: compaction exploded");
    expectWellFormedRun(log.events, agent.state.messages);
  });
});
