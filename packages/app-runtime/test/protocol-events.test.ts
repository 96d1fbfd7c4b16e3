import { defineTool, Type } from "@arbor/agent-core";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { createHarness } from "@arbor/harness";
import { MemorySessionStore } from "@arbor/session-store";
import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import { JsonEventWriter, PROTOCOL_EVENT_SCHEMAS, ProtocolEventSchema } from "../src/index.js";
import { temporaryDirectory } from "./helpers.js";

const echo = defineTool({
  name: "echo",
  description: "Echo the text back",
  parameters: Type.Object({ text: Type.String() }),
  execute: async ({ text }, { onUpdate }) => {
    onUpdate?.({ content: [{ type: "text", text: "working\n" }] });
    onUpdate?.({ content: [{ type: "text", text: "working\nalmost\n" }] });
    return { content: [{ type: "text", text: `echo: ${text}` }] };
  },
});

describe("the protocol's event records", () => {
  it("every line a real run writes matches ProtocolEventSchema and its own type's schema", async () => {
    const provider = createScriptedProvider(
      [script.toolCall("echo", { text: "hi" }, { text: "Calling echo." }), script.text("The tool said hi.")],
      { chunkSize: 3 },
    );
    const harness = createHarness({
      streamFn: provider.stream,
      model: provider.model,
      store: new MemorySessionStore(),
      cwd: temporaryDirectory(),
      tools: [echo as never],
    });
    const session = await harness.newSession();
    const lines: Record<string, unknown>[] = [];
    const writer = new JsonEventWriter((line) => lines.push(JSON.parse(line)), { coalesceMs: 0 });
    session.subscribe((event) => writer.handle(event));
    try {
      await session.prompt("say hi");
      session.followUp("later");
      await session.compact();
      await session.waitForIdle();
    } finally {
      await session.close();
    }
    const types = new Set(lines.map((line) => line.type));
    for (const type of [
      "text_delta",
      "toolcall_start",
      "toolcall_delta",
      "tool_start",
      "tool_update",
      "tool_end",
    ]) {
      expect(types).toContain(type);
    }
    for (const line of lines) {
      expect(Value.Check(ProtocolEventSchema, line), JSON.stringify(line)).toBe(true);
      const schema = PROTOCOL_EVENT_SCHEMAS[line.type as keyof typeof PROTOCOL_EVENT_SCHEMAS];
      expect(Value.Check(schema, line), JSON.stringify(line)).toBe(true);
      // Words, not abbreviations.
      for (const key of ["i", "d", "v"]) expect(Object.keys(line)).not.toContain(key);
    }
    const toolStart = lines.find((line) => line.type === "tool_start");
    expect(toolStart).toMatchObject({ name: "echo", args: { text: "hi" }, toolCallId: expect.any(String) });
    expect(lines.filter((line) => line.type === "tool_update")).toMatchObject([
      { delta: "working\n" },
      { delta: "almost\n" },
    ]);
    expect(lines.find((line) => line.type === "tool_end")).toMatchObject({
      toolCallId: toolStart?.toolCallId,
      isError: false,
      content: [{ type: "text", text: "echo: hi" }],
    });
  });
});
