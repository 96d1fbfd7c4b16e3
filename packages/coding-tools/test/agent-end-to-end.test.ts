import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Agent, type ToolResultMessage } from "@arbor/agent-core";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import { createCodingTools } from "../src/index.js";
import { tempDirectory, textOf } from "./helpers.js";

describe("coding tools in an agent run", () => {
  it("write, then two parallel edits of the same file, then read", async () => {
    const cwd = await tempDirectory();
    const provider = createScriptedProvider([
      script.toolCall("write", { path: "notes/todo.md", content: "# Todo\n- first: open\n- second: open\n" }),
      script.toolCalls([
        {
          name: "edit",
          arguments: { path: "notes/todo.md", edits: [{ oldText: "first: open", newText: "first: done" }] },
        },
        {
          name: "edit",
          arguments: { path: "notes/todo.md", oldText: "second: open", newText: "second: done" },
        },
      ]),
      script.toolCall("read", { path: "notes/todo.md" }),
      script.text("Both items are done."),
    ]);
    const agent = new Agent({
      model: provider.model,
      streamFn: provider.stream,
      tools: createCodingTools({ cwd }),
    });
    const started: string[] = [];
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") started.push(event.toolName);
    });
    await agent.prompt("Mark both items done.");
    provider.assertDone();

    expect(await readFile(join(cwd, "notes/todo.md"), "utf8")).toBe(
      "# Todo\n- first: done\n- second: done\n",
    );
    const results = agent.state.messages.filter(
      (message): message is ToolResultMessage => message.role === "toolResult",
    );
    expect(results.map((result) => [result.toolName, result.isError])).toEqual([
      ["write", false],
      ["edit", false],
      ["edit", false],
      ["read", false],
    ]);
    expect(started).toEqual(["write", "edit", "edit", "read"]);
    expect(textOf(results[3]!)).toBe("# Todo\n- first: done\n- second: done");
    // The model saw the tools with their descriptions.
    const sentTools = provider.calls[0]?.context.tools?.map((tool) => tool.name);
    expect(sentTools).toEqual(["read", "write", "edit", "bash", "ls", "grep", "find"]);
  });
});
