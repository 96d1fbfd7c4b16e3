import { type AssistantMessage, MISSING_TOOL_RESULT_TEXT, type Model } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import {
  Agent,
  type AgentMessage,
  type AgentTurnContext,
  defaultConvertToLlm,
  isLlmMessage,
  runAgentLoop,
} from "../src/index.js";
import { EventLog, echoTool, expectWellFormedRun, textOf, user } from "./helpers.js";

declare module "../src/index.js" {
  interface CustomAgentMessages {
    note: { role: "note"; text: string; timestamp: number };
  }
}

const otherModel: Model = {
  ...createScriptedProvider().model,
  id: "other-model",
  name: "Other model",
};

describe("shouldStopAfterTurn and prepareNextTurn", () => {
  it("run after turn_end in this order; prepareNextTurn only when another model call follows", async () => {
    const provider = createScriptedProvider([script.toolCall("echo", { text: "x" }), script.text("done")]);
    const trace: string[] = [];
    const turns: AgentTurnContext[] = [];
    const rolesAtTurnEnd: string[][] = [];
    const added = await runAgentLoop(
      [user("go")],
      { messages: [], tools: [echoTool] },
      {
        model: provider.model,
        streamFn: provider.stream,
        shouldStopAfterTurn: (turn) => {
          trace.push("shouldStopAfterTurn");
          turns.push(turn);
          rolesAtTurnEnd.push(turn.context.messages.map((message) => message.role));
          return false;
        },
        prepareNextTurn: () => {
          trace.push("prepareNextTurn");
          return undefined;
        },
      },
      (event) => {
        if (event.type.startsWith("turn_")) trace.push(event.type);
      },
    );
    expect(trace).toEqual([
      "turn_start",
      "turn_end",
      "shouldStopAfterTurn",
      "prepareNextTurn",
      "turn_start",
      "turn_end",
      "shouldStopAfterTurn",
    ]);
    expect(turns[0]!.message.stopReason).toBe("toolUse");
    expect(turns[0]!.toolResults.map(textOf)).toEqual(["x"]);
    expect(rolesAtTurnEnd).toEqual([
      ["user", "assistant", "toolResult"],
      ["user", "assistant", "toolResult", "assistant"],
    ]);
    expect(turns[1]!.newMessages).toBe(added);
  });

  it("shouldStopAfterTurn returning true ends the run after the turn's tool results", async () => {
    const provider = createScriptedProvider([script.toolCall("echo", { text: "x" }), script.text("never")]);
    const log = new EventLog();
    const added = await runAgentLoop(
      [user("go")],
      { messages: [], tools: [echoTool] },
      { model: provider.model, streamFn: provider.stream, shouldStopAfterTurn: () => true },
      log.sink,
    );
    expect(provider.calls).toHaveLength(1);
    expect(provider.remaining).toBe(1);
    expect(added.map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(log.types.slice(-2)).toEqual(["turn_end", "agent_end"]);
    expectWellFormedRun(log.events, added);
  });

  it("prepareNextTurn swaps the model and thinking level: the provider receives them", async () => {
    const provider = createScriptedProvider([script.toolCall("echo", { text: "x" }), script.text("done")], {
      models: [otherModel],
    });
    await runAgentLoop(
      [user("go")],
      { messages: [], tools: [echoTool] },
      {
        model: provider.model,
        thinkingLevel: "high",
        streamFn: provider.stream,
        prepareNextTurn: () => ({ model: otherModel, thinkingLevel: "low" }),
      },
      () => {},
    );
    expect(provider.calls.map((call) => [call.model.id, call.options.reasoning])).toEqual([
      ["scripted-model", "high"],
      ["other-model", "low"],
    ]);
    provider.assertDone();
  });

  it("prepareNextTurn may replace the context (e.g. after compaction); later messages append to it", async () => {
    const provider = createScriptedProvider([script.toolCall("echo", { text: "x" }), script.text("done")]);
    const summary: AgentMessage = { role: "note", text: "summary of earlier work", timestamp: 2 };
    const turns: AgentTurnContext[] = [];
    await runAgentLoop(
      [user("go")],
      { messages: [user("old 1"), user("old 2")], tools: [echoTool], systemPrompt: "v1" },
      {
        model: provider.model,
        streamFn: provider.stream,
        convertToLlm: (messages) =>
          messages.flatMap((message) =>
            message.role === "note" ? [user(`[summary] ${message.text}`)] : defaultConvertToLlm([message]),
          ),
        prepareNextTurn: (turn) => ({
          context: {
            ...turn.context,
            systemPrompt: "v2",
            messages: [summary, ...turn.context.messages.slice(-2)],
          },
        }),
        shouldStopAfterTurn: (turn) => {
          turns.push(turn);
          return false;
        },
      },
      () => {},
    );
    expect(provider.calls[1]!.context.systemPrompt).toBe("v2");
    expect(provider.calls[1]!.context.messages.map(textOf)).toEqual([
      "[summary] summary of earlier work",
      "",
      "x",
    ]);
    expect(turns[1]!.context.messages.map((message) => message.role)).toEqual([
      "note",
      "assistant",
      "toolResult",
      "assistant",
    ]);
  });
});

describe("what reaches the model", () => {
  it("custom messages: the default convertToLlm drops them; a custom one decides", async () => {
    const note: AgentMessage = { role: "note", text: "remember the milk", timestamp: 1 };
    const provider = createScriptedProvider([script.text("a"), script.text("b")]);
    const base = { model: provider.model, streamFn: provider.stream };
    await runAgentLoop([note, user("hi")], { messages: [] }, base, () => {});
    await runAgentLoop(
      [note, user("hi")],
      { messages: [] },
      {
        ...base,
        convertToLlm: (messages) =>
          // Other packages may add message kinds too (declaration merging is global): keep only LLM ones.
          messages.flatMap((message) =>
            message.role === "note"
              ? [user(`Note: ${message.text}`)]
              : isLlmMessage(message)
                ? [message]
                : [],
          ),
      },
      () => {},
    );
    expect(provider.calls.map((call) => call.context.messages.map(textOf))).toEqual([
      ["hi"],
      ["Note: remember the milk", "hi"],
    ]);
  });

  it("transformContext rewrites what one call sees; the transcript keeps everything", async () => {
    const provider = createScriptedProvider([script.text("ok")]);
    const signals: AbortSignal[] = [];
    const added = await runAgentLoop(
      [user("new")],
      { messages: [user("old 1"), user("old 2")] },
      {
        model: provider.model,
        streamFn: provider.stream,
        transformContext: (messages, signal) => {
          signals.push(signal);
          return messages.slice(-1);
        },
      },
      () => {},
    );
    expect(provider.calls[0]!.context.messages.map(textOf)).toEqual(["new"]);
    expect(added.map(textOf)).toEqual(["new", "ok"]);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
  });

  it("messages pass through transformMessages for the target model: ids, unanswered calls, foreign thinking", async () => {
    const provider = createScriptedProvider([script.text("ok")], { model: { api: "anthropic-messages" } });
    const foreign: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "plan it", thinkingSignature: "sig" },
        { type: "toolCall", id: "call_1|fc_1", name: "echo", arguments: { text: "x" } },
      ],
      api: "openai-responses",
      provider: "openai",
      model: "gpt-5",
      usage: provider.model.cost as never,
      stopReason: "toolUse",
      timestamp: 1,
    };
    await runAgentLoop(
      [user("continue")],
      { messages: [user("start"), foreign] },
      { model: provider.model, streamFn: provider.stream },
      () => {},
    );
    const sent = provider.calls[0]!.context.messages;
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "user"]);
    expect(sent[1]!.content).toEqual([
      { type: "text", text: "plan it" },
      { type: "toolCall", id: "call_1_fc_1", name: "echo", arguments: { text: "x" } },
    ]);
    expect(sent[2]).toMatchObject({ toolCallId: "call_1_fc_1", isError: true });
    expect(textOf(sent[2])).toBe(MISSING_TOOL_RESULT_TEXT);
  });

  it("system prompt, tools, stream options and the API key from getApiKey reach the StreamFn", async () => {
    const provider = createScriptedProvider([script.text("a"), script.text("b")]);
    const base = {
      model: provider.model,
      streamFn: provider.stream,
      streamOptions: { apiKey: "static-key", maxTokens: 100, sessionId: "s1" },
    };
    await runAgentLoop(
      [user("x")],
      { messages: [], systemPrompt: "be brief", tools: [echoTool] },
      base,
      () => {},
    );
    const providers: string[] = [];
    await runAgentLoop(
      [user("y")],
      { messages: [] },
      {
        ...base,
        getApiKey: (id) => {
          providers.push(id);
          return "fresh-token";
        },
      },
      () => {},
    );
    expect(provider.calls[0]!.context.systemPrompt).toBe("be brief");
    expect(provider.calls[0]!.context.tools?.map((tool) => tool.name)).toEqual(["echo"]);
    expect(provider.calls[0]!.options).toMatchObject({
      apiKey: "static-key",
      maxTokens: 100,
      sessionId: "s1",
    });
    expect(provider.calls[1]!.context.tools).toBeUndefined();
    expect(provider.calls[1]!.options.apiKey).toBe("fresh-token");
    expect(providers).toEqual(["scripted"]);
  });
});

describe("Agent setters during a run", () => {
  it("setModel, setThinkingLevel, setSystemPrompt and setTools apply from the next model call", async () => {
    const provider = createScriptedProvider([script.toolCall("echo", { text: "x" }), script.text("done")], {
      models: [otherModel],
    });
    const agent = new Agent({
      model: provider.model,
      streamFn: provider.stream,
      tools: [echoTool],
      systemPrompt: "a",
    });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") {
        agent.setModel(otherModel);
        agent.setThinkingLevel("medium");
        agent.setSystemPrompt("b");
        agent.setTools([]);
      }
    });
    await agent.prompt("go");
    expect(
      provider.calls.map((call) => [call.model.id, call.options.reasoning, call.context.systemPrompt]),
    ).toEqual([
      ["scripted-model", "off", "a"],
      ["other-model", "medium", "b"],
    ]);
    expect(provider.calls[1]!.context.tools).toBeUndefined();
    expect(agent.state.model).toBe(otherModel);
    provider.assertDone();
  });

  it("a model swapped by the prepareNextTurn hook shows in the agent's state; a replaced context too", async () => {
    const provider = createScriptedProvider([script.toolCall("echo", { text: "x" }), script.text("done")], {
      models: [otherModel],
    });
    const agent = new Agent({
      model: provider.model,
      streamFn: provider.stream,
      tools: [echoTool],
      prepareNextTurn: (turn) => ({
        model: otherModel,
        context: { ...turn.context, messages: turn.context.messages.slice(1) },
      }),
    });
    await agent.prompt("go");
    expect(agent.state.model.id).toBe("other-model");
    expect(agent.state.messages.map((message) => message.role)).toEqual([
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(provider.calls[1]!.model.id).toBe("other-model");
  });
});
