import { ArborError, type AssistantMessage, emptyUsage, type ImageContent } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { describe, expect, it, vi } from "vitest";
import {
  Agent,
  AgentBusyError,
  type AgentEvent,
  type AgentListenerError,
  type AgentMessage,
  CannotContinueError,
  InvalidPromptError,
} from "../src/index.js";
import { EventLog, echoTool, expectWellFormedRun, label, sleep, textOf, user } from "./helpers.js";

function assistant(
  content: AssistantMessage["content"],
  stopReason: AssistantMessage["stopReason"] = "stop",
) {
  const model = createScriptedProvider().model;
  const message: AssistantMessage = {
    role: "assistant",
    content,
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason,
    timestamp: 1,
  };
  if (stopReason === "error") message.errorMessage = "boom";
  return message;
}

describe("Agent state (seed 003 section 7)", () => {
  it("changes on each event before listeners see it", async () => {
    const provider = createScriptedProvider([
      script.error("first run fails"),
      script.toolCall("echo", { text: "x" }, { id: "call_x" }),
      script.text("done"),
    ]);
    const listenerErrors: AgentListenerError[] = [];
    const agent = new Agent({
      model: provider.model,
      streamFn: provider.stream,
      tools: [echoTool],
      onListenerError: (error) => listenerErrors.push(error),
    });
    await agent.prompt("fail please");
    expect(agent.state.errorMessage).toBe("first run fails");

    const checks: string[] = [];
    agent.subscribe((event) => {
      const state = agent.state;
      expect(state.isStreaming).toBe(true);
      switch (event.type) {
        case "agent_start":
          expect(state.errorMessage).toBeUndefined();
          expect(state.streamingMessage).toBeUndefined();
          break;
        case "message_update":
          expect(state.streamingMessage).toBe(event.message);
          break;
        case "message_end":
          expect(state.streamingMessage).toBeUndefined();
          expect(state.messages.at(-1)).toBe(event.message);
          break;
        case "tool_execution_start":
          expect([...state.pendingToolCalls]).toEqual([event.toolCallId]);
          break;
        case "tool_execution_end":
          expect(state.pendingToolCalls.size).toBe(0);
          break;
        case "agent_end":
          expect(state.streamingMessage).toBeUndefined();
          break;
      }
      checks.push(event.type);
    });
    const before = agent.state.messages.length;
    const running = agent.prompt("use the tool");
    expect(agent.state.isStreaming).toBe(true); // busy from the first synchronous step
    await running;
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.messages.slice(before).map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(listenerErrors).toEqual([]); // every expectation inside the listener held
    expect(checks).toContain("tool_execution_end");
    expect(agent.state.errorMessage).toBeUndefined();
  });

  it("prompt normalizes a string (with images), a message and a list of messages", async () => {
    const provider = createScriptedProvider([script.text("1"), script.text("2"), script.text("3")]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream, systemPrompt: "sys" });
    const image: ImageContent = { type: "image", data: "aGk=", mimeType: "image/png" };
    await agent.prompt("look", [image]);
    await agent.prompt(user("as a message"));
    await agent.prompt([user("a"), user("b")]);
    const users = agent.state.messages.filter((message) => message.role === "user");
    expect(users[0]).toMatchObject({ role: "user", content: [{ type: "text", text: "look" }, image] });
    expect(typeof (users[0] as { timestamp: number }).timestamp).toBe("number");
    expect(users.map(textOf)).toEqual(["look", "as a message", "a", "b"]);
    expect(provider.calls[0]!.context.systemPrompt).toBe("sys");
  });

  it("rejects input that is not a prompt, changing nothing", async () => {
    const provider = createScriptedProvider([]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream });
    await expect(agent.prompt([])).rejects.toBeInstanceOf(InvalidPromptError);
    await expect(agent.prompt([{ content: "no role" } as unknown as AgentMessage])).rejects.toThrow(
      /Prompt message 0 is not a message: expected an object with a string "role", received an object with keys content/,
    );
    await expect(
      agent.prompt(user("x"), [{ type: "image", data: "", mimeType: "image/png" }]),
    ).rejects.toMatchObject({
      code: "invalid_prompt",
    });
    expect(agent.state.messages).toEqual([]);
    expect(agent.state.isStreaming).toBe(false);
  });
});

describe("busy", () => {
  it("prompt and continue while running reject with agent_busy; mutators of the transcript throw", async () => {
    const provider = createScriptedProvider([script.delay(20, script.text("slow"))]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream });
    const first = agent.prompt("one");
    const second = agent.prompt("two");
    await expect(second).rejects.toBeInstanceOf(AgentBusyError);
    await expect(second).rejects.toMatchObject({ code: "agent_busy" });
    expect(ArborError.isInstance(await second.catch((error: unknown) => error))).toBe(true);
    await expect(agent.continue()).rejects.toMatchObject({ code: "agent_busy" });
    expect(() => agent.reset()).toThrow(AgentBusyError);
    expect(() => agent.replaceMessages([])).toThrow(/Cannot replace the messages while the agent is running/);
    expect(() => agent.appendMessage(user("x"))).toThrow(AgentBusyError);
    await first;
    expect(agent.state.messages.map(textOf)).toEqual(["one", "slow"]);
    provider.assertDone();
  });

  it("waitForIdle resolves after the run, including the agent_end listeners", async () => {
    const provider = createScriptedProvider([script.text("ok")]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream });
    const order: string[] = [];
    agent.subscribe(async (event) => {
      if (event.type === "agent_end") {
        await sleep(10);
        order.push("agent_end listener done");
      }
    });
    void agent.prompt("hi");
    await agent.waitForIdle();
    order.push("idle");
    expect(order).toEqual(["agent_end listener done", "idle"]);
    expect(agent.state.isStreaming).toBe(false);
  });
});

describe("subscribe", () => {
  it("awaits listeners one after another, in subscription order, and passes the run's signal", async () => {
    const provider = createScriptedProvider([script.text("ok")]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream });
    const trace: string[] = [];
    const signals: AbortSignal[] = [];
    agent.subscribe(async (event, signal) => {
      signals.push(signal);
      trace.push(`first ${label(event)} start`);
      await sleep(1);
      trace.push(`first ${label(event)} end`);
    });
    const unsubscribe = agent.subscribe((event) => {
      trace.push(`second ${label(event)}`);
    });
    await agent.prompt("hi");
    expect(trace.slice(0, 6)).toEqual([
      "first agent_start start",
      "first agent_start end",
      "second agent_start",
      "first turn_start start",
      "first turn_start end",
      "second turn_start",
    ]);
    expect(new Set(signals).size).toBe(1);
    expect(signals[0]!.aborted).toBe(false);
    unsubscribe();
    trace.length = 0;
    provider.push(script.text("again"));
    await agent.prompt("again");
    expect(trace.some((entry) => entry.startsWith("second"))).toBe(false);
    expect(new Set(signals).size).toBe(2); // a new signal per run
  });

  it("a throwing listener does not stop the run: the error is reported and later listeners still run", async () => {
    const provider = createScriptedProvider([script.toolCall("echo", { text: "x" }), script.text("ok")]);
    const reported: AgentListenerError[] = [];
    const agent = new Agent({
      model: provider.model,
      streamFn: provider.stream,
      tools: [echoTool],
      onListenerError: (error) => reported.push(error),
    });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") throw new Error("listener bug");
    });
    agent.subscribe(async (event) => {
      if (event.type === "turn_end") throw new Error("async listener bug");
    });
    const log = new EventLog();
    agent.subscribe(log.sink);
    await agent.prompt("go");
    expect(reported.map((error) => [error.code, error.event.type, error.message])).toEqual([
      [
        "listener_failed",
        "tool_execution_start",
        'An agent event listener failed on "tool_execution_start": listener bug',
      ],
      ["listener_failed", "turn_end", 'An agent event listener failed on "turn_end": async listener bug'],
      ["listener_failed", "turn_end", 'An agent event listener failed on "turn_end": async listener bug'],
    ]);
    expect((reported[0]!.cause as Error).message).toBe("listener bug");
    expectWellFormedRun(log.events, agent.state.messages);
    expect(textOf(agent.state.messages.at(-1))).toBe("ok");
  });

  it("reports listener errors with console.error by default", async () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const provider = createScriptedProvider([script.text("ok")]);
      const agent = new Agent({ model: provider.model, streamFn: provider.stream });
      agent.subscribe((event: AgentEvent) => {
        if (event.type === "agent_start") throw new Error("oops");
      });
      await agent.prompt("hi");
      expect(spy).toHaveBeenCalledTimes(1);
      expect(String(spy.mock.calls[0]![0])).toContain("oops");
    } finally {
      spy.mockRestore();
    }
  });
});

describe("continue()", () => {
  async function continueFrom(messages: AgentMessage[]) {
    const provider = createScriptedProvider([script.text("continued")]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream, messages });
    const events: AgentEvent[] = [];
    agent.subscribe((event) => {
      events.push(event);
    });
    const error = await agent.continue().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    return { agent, provider, events, error: error as CannotContinueError | undefined };
  }

  it("runs from a transcript ending with a user message or a complete set of tool results", async () => {
    const fromUser = await continueFrom([user("retry me")]);
    expect(fromUser.error).toBeUndefined();
    expect(fromUser.events.map(label).slice(0, 3)).toEqual([
      "agent_start",
      "turn_start",
      "message_start(assistant)",
    ]);
    expect(fromUser.provider.calls[0]!.context.messages.map(textOf)).toEqual(["retry me"]);

    const call = { type: "toolCall" as const, id: "c1", name: "echo", arguments: { text: "x" } };
    const fromResult = await continueFrom([
      user("go"),
      assistant([call], "toolUse"),
      { role: "toolResult", toolCallId: "c1", toolName: "echo", content: [], isError: false, timestamp: 1 },
    ]);
    expect(fromResult.error).toBeUndefined();
    expect(textOf(fromResult.agent.state.messages.at(-1))).toBe("continued");
  });

  it("retries after a failed response: trailing failed or aborted responses are passed over", async () => {
    const { error, provider, agent } = await continueFrom([user("hi"), assistant([], "error")]);
    expect(error).toBeUndefined();
    expect(provider.calls[0]!.context.messages.map((message) => message.role)).toEqual(["user"]);
    expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant", "assistant"]);
  });

  it("refuses, with a reason and a message saying what to do, and emits nothing", async () => {
    const call = (id: string) => ({ type: "toolCall" as const, id, name: "echo", arguments: {} });
    const cases: [AgentMessage[], string, RegExp][] = [
      [[], "no_messages", /no message for the model to answer/],
      [
        [user("q"), assistant([{ type: "text", text: "answer" }])],
        "last_message_assistant",
        /Use prompt\(\)/,
      ],
      [
        [user("q"), assistant([call("c1"), call("c2")], "toolUse")],
        "unanswered_tool_calls",
        /2 tool call\(s\) without a result \(echo c1, echo c2\)/,
      ],
      [
        [
          user("q"),
          assistant([call("c1"), call("c2")], "toolUse"),
          {
            role: "toolResult",
            toolCallId: "c1",
            toolName: "echo",
            content: [],
            isError: false,
            timestamp: 1,
          },
        ],
        "unanswered_tool_calls",
        /1 tool call\(s\) without a result \(echo c2\)/,
      ],
      [
        [user("q"), { role: "note", text: "ui only", timestamp: 1 } as never],
        "last_message_not_llm",
        /role "note"/,
      ],
    ];
    for (const [messages, reason, text] of cases) {
      const { error, events, provider } = await continueFrom(messages);
      expect(error, reason).toBeInstanceOf(CannotContinueError);
      expect(error!.code).toBe("cannot_continue");
      expect(error!.reason).toBe(reason);
      expect(error!.message).toMatch(text);
      expect(events).toEqual([]);
      expect(provider.calls).toEqual([]);
    }
    const { error } = await continueFrom([user("q"), assistant([call("c9")], "toolUse")]);
    expect(error!.toolCallIds).toEqual(["c9"]);
  });
});

describe("reset and transcript mutators", () => {
  it("reset clears transcript, error and queues but keeps model, tools and system prompt", async () => {
    const provider = createScriptedProvider([script.error("bad")]);
    const agent = new Agent({
      model: provider.model,
      streamFn: provider.stream,
      tools: [echoTool],
      systemPrompt: "s",
    });
    await agent.prompt("x");
    agent.steer("later");
    agent.followUp("later too");
    agent.reset();
    expect(agent.state.messages).toEqual([]);
    expect(agent.state.errorMessage).toBeUndefined();
    expect(agent.queuedSteeringMessages).toEqual([]);
    expect(agent.queuedFollowUpMessages).toEqual([]);
    expect(agent.state.tools).toEqual([echoTool]);
    expect(agent.state.systemPrompt).toBe("s");
  });

  it("replaceMessages and appendMessage copy and extend the transcript while idle", () => {
    const provider = createScriptedProvider([]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream });
    const messages = [user("a")];
    agent.replaceMessages(messages);
    agent.appendMessage(user("b"));
    expect(agent.state.messages.map(textOf)).toEqual(["a", "b"]);
    expect(messages).toHaveLength(1);
    expect(agent.clearSteeringQueue()).toEqual([]);
  });
});
