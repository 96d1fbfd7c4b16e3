import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import { Agent, MessageQueue, type QueueMode } from "../src/index.js";
import { EventLog, echoTool, expectWellFormedRun, textOf, user } from "./helpers.js";

/** Users messages of each model call, as the provider received them (the last ones of each call). */
function userTextsPerCall(provider: ReturnType<typeof createScriptedProvider>): string[][] {
  return provider.calls.map((call) =>
    call.context.messages.filter((message) => message.role === "user").map((message) => textOf(message)),
  );
}

/** Labels of the user messages injected in each turn. */
function usersPerTurn(log: EventLog): string[][] {
  const turns: string[][] = [];
  log.events.forEach((event, index) => {
    if (event.type === "turn_start") turns.push([]);
    if (event.type === "message_end" && (event.message as { role: string }).role === "user") {
      turns.at(-1)!.push(log.texts[index]!);
    }
  });
  return turns;
}

describe("steering", () => {
  async function steerThreeWhileStreaming(mode: QueueMode, replies: number) {
    const provider = createScriptedProvider(
      Array.from({ length: replies }, (_, index) => script.text(`reply ${index + 1}`)),
      { chunkSize: 2 },
    );
    const agent = new Agent({ model: provider.model, streamFn: provider.stream, steeringMode: mode });
    const log = new EventLog();
    let steered = false;
    agent.subscribe((event) => {
      log.sink(event);
      if (event.type === "message_update" && !steered) {
        steered = true;
        agent.steer("s1");
        agent.steer("s2");
        agent.steer("s3");
      }
    });
    await agent.prompt("go");
    provider.assertDone();
    expectWellFormedRun(log.events, agent.state.messages);
    return { provider, agent, log };
  }

  it("one-at-a-time: one steering message per turn, each before the next model call", async () => {
    const { provider, agent, log } = await steerThreeWhileStreaming("one-at-a-time", 4);
    expect(usersPerTurn(log)).toEqual([["go"], ["s1"], ["s2"], ["s3"]]);
    expect(userTextsPerCall(provider)).toEqual([
      ["go"],
      ["go", "s1"],
      ["go", "s1", "s2"],
      ["go", "s1", "s2", "s3"],
    ]);
    expect(agent.state.messages.map(textOf)).toEqual([
      "go",
      "reply 1",
      "s1",
      "reply 2",
      "s2",
      "reply 3",
      "s3",
      "reply 4",
    ]);
  });

  it("all: every queued steering message is injected together", async () => {
    const { provider, agent, log } = await steerThreeWhileStreaming("all", 2);
    expect(usersPerTurn(log)).toEqual([["go"], ["s1", "s2", "s3"]]);
    expect(userTextsPerCall(provider)[1]).toEqual(["go", "s1", "s2", "s3"]);
    expect(agent.state.messages.map(textOf)).toEqual(["go", "reply 1", "s1", "s2", "s3", "reply 2"]);
  });

  it("waits for every tool result of the turn before it is injected", async () => {
    const provider = createScriptedProvider([
      script.toolCalls([
        { name: "echo", arguments: { text: "a", delayMs: 20 }, id: "call_a" },
        { name: "echo", arguments: { text: "b", delayMs: 5 }, id: "call_b" },
      ]),
      script.text("done"),
    ]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream, tools: [echoTool] });
    const log = new EventLog();
    agent.subscribe((event) => {
      log.sink(event);
      if (event.type === "tool_execution_start" && event.toolCallId === "call_a")
        agent.steer("change of plan");
    });
    await agent.prompt("run both");
    expect(agent.state.messages.map((message) => `${message.role}:${textOf(message)}`)).toEqual([
      "user:run both",
      "assistant:",
      "toolResult:a",
      "toolResult:b",
      "user:change of plan",
      "assistant:done",
    ]);
    expect(usersPerTurn(log)).toEqual([["run both"], ["change of plan"]]);
    expectWellFormedRun(log.events, agent.state.messages);
    provider.assertDone();
  });

  it("messages steered while idle are injected right after the next prompt", async () => {
    const provider = createScriptedProvider([script.text("ok")]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream, steeringMode: "all" });
    agent.steer("early 1");
    agent.steer("early 2");
    const log = new EventLog();
    agent.subscribe(log.sink);
    await agent.prompt("prompt");
    expect(usersPerTurn(log)).toEqual([["prompt", "early 1", "early 2"]]);
    expect(agent.queuedSteeringMessages).toEqual([]);
    provider.assertDone();
  });
});

describe("follow-ups", () => {
  it("are injected only when the agent would stop, after steering", async () => {
    const provider = createScriptedProvider([
      script.toolCall("echo", { text: "x" }, { id: "call_x" }),
      script.text("first answer"),
      script.text("answer to the steering"),
      script.text("answer to the follow-up"),
    ]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream, tools: [echoTool] });
    const log = new EventLog();
    let queued = false;
    agent.subscribe((event) => {
      log.sink(event);
      if (event.type === "message_update" && !queued) {
        queued = true;
        agent.followUp("and then?");
      }
      // Steering sent during the second reply: it goes first, the follow-up waits.
      if (event.type === "message_end" && textOf(event.message) === "first answer") agent.steer("wait");
    });
    await agent.prompt("start");
    expect(usersPerTurn(log)).toEqual([["start"], [], ["wait"], ["and then?"]]);
    expect(agent.state.messages.map(textOf).filter((text) => text !== "")).toEqual([
      "start",
      "x",
      "first answer",
      "wait",
      "answer to the steering",
      "and then?",
      "answer to the follow-up",
    ]);
    expectWellFormedRun(log.events, agent.state.messages);
    provider.assertDone();
  });

  it("one-at-a-time: each follow-up gets its own turn; all: together", async () => {
    for (const [mode, expected] of [
      ["one-at-a-time", [["q"], ["f1"], ["f2"]]],
      ["all", [["q"], ["f1", "f2"]]],
    ] as const) {
      const provider = createScriptedProvider(expected.map((_, index) => script.text(`a${index}`)));
      const agent = new Agent({ model: provider.model, streamFn: provider.stream, followUpMode: mode });
      agent.followUp("f1");
      agent.followUp([user("f2")]);
      const log = new EventLog();
      agent.subscribe(log.sink);
      await agent.prompt("q");
      expect(usersPerTurn(log), mode).toEqual(expected);
      expect(agent.queuedFollowUpMessages).toEqual([]);
      provider.assertDone();
    }
  });

  it("stay queued when the run ends with an error", async () => {
    const provider = createScriptedProvider([script.error("503 overloaded")]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream });
    agent.followUp("later");
    await agent.prompt("now");
    expect(agent.state.errorMessage).toBe("503 overloaded");
    expect(agent.queuedFollowUpMessages.map(textOf)).toEqual(["later"]);
    expect(agent.clearFollowUpQueue().map(textOf)).toEqual(["later"]);
    expect(agent.queuedFollowUpMessages).toEqual([]);
  });

  it("queue modes can be changed at any time", () => {
    const agent = new Agent({
      model: createScriptedProvider().model,
      streamFn: createScriptedProvider().stream,
    });
    expect(agent.steeringMode).toBe("one-at-a-time");
    expect(agent.followUpMode).toBe("one-at-a-time");
    agent.steeringMode = "all";
    agent.followUpMode = "all";
    expect([agent.steeringMode, agent.followUpMode]).toEqual(["all", "all"]);
  });
});

describe("MessageQueue", () => {
  it("drains one message or all of them by mode, and gives everything back on clear", () => {
    const queue = new MessageQueue();
    queue.enqueue(user("1"), user("2"), user("3"));
    expect(queue.drain().map(textOf)).toEqual(["1"]);
    expect(queue.peek().map(textOf)).toEqual(["2", "3"]);
    queue.mode = "all";
    expect(queue.drain().map(textOf)).toEqual(["2", "3"]);
    expect(queue.drain()).toEqual([]);
    queue.enqueue(user("4"));
    expect(queue.length).toBe(1);
    expect(queue.clear().map(textOf)).toEqual(["4"]);
    expect(queue.length).toBe(0);
  });
});
