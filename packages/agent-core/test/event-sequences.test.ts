import { Type } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import { Agent, defineTool, runAgentLoop } from "../src/index.js";
import { EventLog, expectWellFormedRun, textOf, user } from "./helpers.js";

/** The `bash` tool of seed 003 section 9, example 2: reports progress 0, 50, 100, then exit code 0. */
function bashTool(options: { terminate?: boolean } = {}) {
  return defineTool({
    name: "bash",
    description: "Run a shell command",
    parameters: Type.Object({ command: Type.String() }),
    async execute({ command }, { onUpdate }) {
      for (const progress of [0, 50, 100]) {
        onUpdate({ details: { progress } });
        await new Promise((resolve) => setImmediate(resolve));
      }
      return {
        content: [{ type: "text", text: `drwxr-xr-x ... (${command})` }],
        details: { exitCode: 0 },
        terminate: options.terminate,
      };
    },
  });
}

describe("seed 003 section 9: event sequences", () => {
  it("example 1: simple prompt", async () => {
    const provider = createScriptedProvider([script.text("Hello")], { chunkSize: 1 });
    const log = new EventLog();
    const added = await runAgentLoop(
      [user("Hello")],
      { messages: [] },
      { model: provider.model, streamFn: provider.stream },
      log.sink,
    );
    expect(log.labels).toEqual([
      "agent_start",
      "turn_start",
      "message_start(user)",
      "message_end(user)",
      "message_start(assistant)",
      "message_update(text_start)",
      "message_update(text_delta)",
      "message_update(text_delta)",
      "message_update(text_delta)",
      "message_update(text_delta)",
      "message_update(text_delta)",
      "message_update(text_end)",
      "message_end(assistant)",
      "turn_end",
      "agent_end",
    ]);
    // The assistant grows "H", "He", …, "Hello" as in the seed; every update carries its AssistantEvent.
    const deltaTexts = log.events.flatMap((event, index) =>
      event.type === "message_update" && event.assistantMessageEvent.type === "text_delta"
        ? [log.texts[index]]
        : [],
    );
    expect(deltaTexts).toEqual(["H", "He", "Hel", "Hell", "Hello"]);
    expect(log.texts[4]).toBe(""); // message_start (assistant: "")
    const turnEnd = log.of("turn_end")[0]!;
    expect(textOf(turnEnd.message)).toBe("Hello");
    expect(turnEnd.toolResults).toEqual([]);
    expect(log.of("agent_end")[0]!.messages).toEqual(added);
    expect(added.map((message) => message.role)).toEqual(["user", "assistant"]);
    expectWellFormedRun(log.events, added);
    provider.assertDone();
  });

  it("example 2: tool execution (the tool ends the run with terminate, as the seed's sequence does)", async () => {
    const provider = createScriptedProvider(
      [script.toolCall("bash", { command: "ls -la" }, { id: "call_ls" })],
      {
        chunkSize: 8,
      },
    );
    const log = new EventLog();
    const added = await runAgentLoop(
      [user("List files")],
      { messages: [], tools: [bashTool({ terminate: true })] },
      { model: provider.model, streamFn: provider.stream },
      log.sink,
    );
    expect(log.labels).toEqual([
      "agent_start",
      "turn_start",
      "message_start(user)",
      "message_end(user)",
      "message_start(assistant)",
      "message_update(toolcall_start)",
      "message_update(toolcall_delta)",
      "message_update(toolcall_delta)",
      "message_update(toolcall_delta)",
      "message_update(toolcall_end)",
      "message_end(assistant)",
      "tool_execution_start(call_ls)",
      "tool_execution_update(call_ls)",
      "tool_execution_update(call_ls)",
      "tool_execution_update(call_ls)",
      "tool_execution_end(call_ls)",
      "message_start(toolResult)",
      "message_end(toolResult)",
      "turn_end",
      "agent_end",
    ]);
    expect(log.of("tool_execution_start")[0]!.args).toEqual({ command: "ls -la" });
    expect(log.of("tool_execution_update").map((event) => event.partialResult.details)).toEqual([
      { progress: 0 },
      { progress: 50 },
      { progress: 100 },
    ]);
    const end = log.of("tool_execution_end")[0]!;
    expect(end.isError).toBe(false);
    expect(end.result.details).toEqual({ exitCode: 0 });
    const turnEnd = log.of("turn_end")[0]!;
    expect(turnEnd.toolResults).toHaveLength(1);
    expect(turnEnd.toolResults[0]).toMatchObject({ toolCallId: "call_ls", toolName: "bash", isError: false });
    expect(textOf(turnEnd.toolResults[0])).toBe("drwxr-xr-x ... (ls -la)");
    expectWellFormedRun(log.events, added);
    provider.assertDone();
  });

  it("example 2 without terminate: the tool result goes back to the model in a second turn", async () => {
    const provider = createScriptedProvider(
      [script.toolCall("bash", { command: "ls -la" }, { id: "call_ls" }), script.text("Two entries.")],
      { chunkSize: 64 },
    );
    const log = new EventLog();
    const added = await runAgentLoop(
      [user("List files")],
      { messages: [], tools: [bashTool()] },
      { model: provider.model, streamFn: provider.stream },
      log.sink,
    );
    expect(log.types.filter((type) => type !== "message_update")).toEqual([
      "agent_start",
      "turn_start",
      "message_start",
      "message_end",
      "message_start",
      "message_end",
      "tool_execution_start",
      "tool_execution_update",
      "tool_execution_update",
      "tool_execution_update",
      "tool_execution_end",
      "message_start",
      "message_end",
      "turn_end",
      "turn_start",
      "message_start",
      "message_end",
      "turn_end",
      "agent_end",
    ]);
    expect(provider.calls[1]!.context.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
    ]);
    expect(added.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expectWellFormedRun(log.events, added);
    provider.assertDone();
  });

  it("example 3: steering — a message sent while the model streams starts the next turn", async () => {
    const provider = createScriptedProvider([script.text("Building..."), script.text("Using React...")], {
      chunkSize: 4,
    });
    const agent = new Agent({ model: provider.model, streamFn: provider.stream });
    const log = new EventLog();
    agent.subscribe((event) => {
      log.sink(event);
      if (
        event.type === "message_update" &&
        agent.queuedSteeringMessages.length === 0 &&
        log.of("turn_end").length === 0
      ) {
        agent.steer("Wait, use React");
      }
    });
    await agent.prompt("Build app");
    expect(log.labels.filter((entry) => !entry.startsWith("message_update"))).toEqual([
      "agent_start",
      "turn_start",
      "message_start(user)",
      "message_end(user)",
      "message_start(assistant)",
      "message_end(assistant)",
      "turn_end",
      "turn_start",
      "message_start(user)",
      "message_end(user)",
      "message_start(assistant)",
      "message_end(assistant)",
      "turn_end",
      "agent_end",
    ]);
    expect(agent.state.messages.map(textOf)).toEqual([
      "Build app",
      "Building...",
      "Wait, use React",
      "Using React...",
    ]);
    // The second model call saw [...original, "Wait, use React"].
    expect(provider.calls[1]!.context.messages.map(textOf)).toEqual([
      "Build app",
      "Building...",
      "Wait, use React",
    ]);
    expectWellFormedRun(log.events, agent.state.messages);
    provider.assertDone();
  });
});
