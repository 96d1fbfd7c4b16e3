import { MISSING_TOOL_RESULT_TEXT, transformMessages } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import {
  Agent,
  type AgentEvent,
  defaultConvertToLlm,
  runAgentLoop,
  type ToolResultMessage,
} from "../src/index.js";
import {
  EventLog,
  echoTool,
  expectWellFormedRun,
  textOf,
  toolCallIds,
  trackingTool,
  user,
} from "./helpers.js";

/** Checks the state an aborted agent must be left in: idle, nothing pending, every call answered. */
function expectIdleAndConsistent(agent: Agent, log: EventLog, initialLength = 0): void {
  expect(agent.state.isStreaming).toBe(false);
  expect(agent.state.pendingToolCalls.size).toBe(0);
  expect(agent.state.streamingMessage).toBeUndefined();
  expect(agent.signal).toBeUndefined();
  expectWellFormedRun(log.events, agent.state.messages.slice(initialLength));
  // Valid for any model: transformMessages finds no call to answer with a synthetic result.
  const sent = transformMessages(defaultConvertToLlm(agent.state.messages), agent.state.model);
  expect(sent.some((message) => textOf(message) === MISSING_TOOL_RESULT_TEXT)).toBe(false);
}

function results(agent: Agent): ToolResultMessage[] {
  return agent.state.messages.filter(
    (message): message is ToolResultMessage => message.role === "toolResult",
  );
}

describe("abort", () => {
  it("mid-stream: the partial message is kept as aborted, its tool calls are answered without running", async () => {
    const provider = createScriptedProvider(
      [
        script.toolCalls(
          [
            { name: "echo", arguments: { text: "first" }, id: "c1" },
            { name: "echo", arguments: { text: "second, which is long enough to be cut" }, id: "c2" },
          ],
          { text: "Let me run two commands." },
        ),
        script.text("never sent"),
      ],
      { chunkSize: 4, chunkDelayMs: 1 },
    );
    const ran: string[] = [];
    const agent = new Agent({
      model: provider.model,
      streamFn: provider.stream,
      tools: [trackingTool("echo", ran)],
    });
    const log = new EventLog();
    const signals = new Set<AbortSignal>();
    agent.subscribe((event, signal) => {
      log.sink(event);
      signals.add(signal);
      if (event.type === "message_update" && event.assistantMessageEvent.type === "toolcall_start") {
        if (event.assistantMessageEvent.contentIndex === 2) agent.abort();
      }
    });
    await agent.prompt("do it");
    const assistant = agent.state.messages[1]!;
    expect(assistant).toMatchObject({
      role: "assistant",
      stopReason: "aborted",
      errorMessage: "Request aborted",
    });
    expect(toolCallIds([assistant])).toEqual(["c1", "c2"]);
    expect(results(agent).map((result) => [result.toolCallId, result.isError, textOf(result)])).toEqual([
      ["c1", true, 'Tool call "echo" was not executed: the response was aborted before it completed.'],
      ["c2", true, 'Tool call "echo" was not executed: the response was aborted before it completed.'],
    ]);
    expect(ran).toEqual([]);
    expect(agent.state.errorMessage).toBe("Request aborted");
    expect(provider.calls).toHaveLength(1);
    expect(provider.calls[0]!.aborted).toBe(true);
    expect(signals.size).toBe(1);
    expect([...signals][0]!.aborted).toBe(true);
    expectIdleAndConsistent(agent, log);
  });

  it("mid-tool, parallel: running tools are answered as aborted and no further model call is made", async () => {
    const provider = createScriptedProvider([
      script.toolCalls([
        { name: "echo", arguments: { text: "a", delayMs: 10_000 }, id: "a" },
        { name: "echo", arguments: { text: "b", delayMs: 10_000 }, id: "b" },
      ]),
      script.text("never sent"),
    ]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream, tools: [echoTool] });
    const log = new EventLog();
    let pendingBeforeAbort: string[] = [];
    agent.subscribe((event) => {
      log.sink(event);
      if (event.type === "tool_execution_start" && event.toolCallId === "b") {
        pendingBeforeAbort = [...agent.state.pendingToolCalls];
        setTimeout(() => agent.abort("user pressed Esc"), 5);
      }
    });
    await agent.prompt("go");
    expect(pendingBeforeAbort).toEqual(["a", "b"]);
    expect(results(agent).map((result) => [result.toolCallId, result.isError, textOf(result)])).toEqual([
      ["a", true, 'Tool "echo" was aborted: user pressed Esc.'],
      ["b", true, 'Tool "echo" was aborted: user pressed Esc.'],
    ]);
    expect(provider.calls).toHaveLength(1);
    expect(log.types.slice(-2)).toEqual(["turn_end", "agent_end"]);
    // The turn had no failed assistant message: the abort shows in the results, not as an error message.
    expect(agent.state.errorMessage).toBeUndefined();
    expectIdleAndConsistent(agent, log);
  });

  it("mid-tool, sequential: the calls after the running one are answered without running", async () => {
    const ran: string[] = [];
    const provider = createScriptedProvider([
      script.toolCalls([
        { name: "work", arguments: { label: "1", delayMs: 10_000 }, id: "1" },
        { name: "work", arguments: { label: "2", delayMs: 1 }, id: "2" },
        { name: "work", arguments: { label: "3", delayMs: 1 }, id: "3" },
      ]),
    ]);
    const agent = new Agent({
      model: provider.model,
      streamFn: provider.stream,
      tools: [trackingTool("work", ran)],
      toolExecution: "sequential",
    });
    const log = new EventLog();
    agent.subscribe((event) => {
      log.sink(event);
      if (event.type === "tool_execution_start" && event.toolCallId === "1")
        setTimeout(() => agent.abort(), 5);
    });
    await agent.prompt("go");
    expect(ran).toEqual(["start 1", "end 1"]); // the tool saw the signal and returned early
    expect(results(agent).map(textOf)).toEqual([
      'Tool "work" was aborted.',
      'Tool call "work" was not executed: the run was aborted.',
      'Tool call "work" was not executed: the run was aborted.',
    ]);
    expectIdleAndConsistent(agent, log);
  });

  it("the conversation stays valid: the next prompt sends the aborted turn's calls with their results", async () => {
    const provider = createScriptedProvider([
      script.toolCall("echo", { text: "slow", delayMs: 10_000 }, { id: "slow" }),
      script.text("fresh start"),
    ]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream, tools: [echoTool] });
    const unsubscribe = agent.subscribe((event) => {
      if (event.type === "tool_execution_start") setTimeout(() => agent.abort(), 5);
    });
    await agent.prompt("first");
    unsubscribe();
    const log = new EventLog();
    agent.subscribe(log.sink);
    await agent.prompt("second");
    expect(provider.calls[1]!.context.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "user",
    ]);
    expect(textOf(agent.state.messages.at(-1))).toBe("fresh start");
    expectIdleAndConsistent(agent, log, 3);
    provider.assertDone();
  });

  it("an already aborted signal: the model call ends as aborted at once and the run ends", async () => {
    const provider = createScriptedProvider([script.text("never")]);
    const controller = new AbortController();
    controller.abort();
    const log = new EventLog();
    const added = await runAgentLoop(
      [user("x")],
      { messages: [] },
      { model: provider.model, streamFn: provider.stream },
      log.sink,
      controller.signal,
    );
    expect(added[1]).toMatchObject({ role: "assistant", stopReason: "aborted", content: [] });
    expectWellFormedRun(log.events, added);
  });

  it("abort while idle does nothing; waitForIdle resolves at once", async () => {
    const provider = createScriptedProvider([script.text("ok")]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream });
    agent.abort();
    await agent.waitForIdle();
    await agent.prompt("hi");
    expect(textOf(agent.state.messages[1])).toBe("ok");
  });

  it("abort during a follow-up-driven turn boundary stops without polling follow-ups", async () => {
    const provider = createScriptedProvider([script.text("one")]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream });
    agent.followUp("queued");
    const events: AgentEvent[] = [];
    agent.subscribe((event) => {
      events.push(event);
      if (event.type === "turn_end") agent.abort();
    });
    await agent.prompt("start");
    expect(agent.queuedFollowUpMessages.map(textOf)).toEqual(["queued"]);
    expect(events.at(-1)?.type).toBe("agent_end");
  });
});
