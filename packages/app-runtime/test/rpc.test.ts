import { describe, expect, it } from "vitest";
import { createAppRuntime } from "../src/create-app-runtime.js";
import { parseRpcCommand, RPC_COMMAND_SCHEMAS, RpcCommandSchema } from "../src/protocol/rpc-commands.js";
import { createRpcServer } from "../src/protocol/rpc-server.js";
import { temporaryDirectory } from "./helpers.js";

describe("parseRpcCommand (validation at the edge)", () => {
  it("accepts every command of the union, reading the old field names too", () => {
    expect(RpcCommandSchema.anyOf).toHaveLength(Object.keys(RPC_COMMAND_SCHEMAS).length);
    expect(parseRpcCommand({ type: "prompt", id: 7, text: "hi" })).toEqual({
      ok: true,
      command: { type: "prompt", id: 7, text: "hi" },
    });
    expect(parseRpcCommand({ type: "steer", message: "faster" })).toMatchObject({
      ok: true,
      command: { type: "steer", text: "faster" },
    });
    expect(parseRpcCommand({ type: "set_thinking_level", thinkingLevel: "high" })).toMatchObject({
      ok: true,
      command: { level: "high" },
    });
    expect(parseRpcCommand({ type: "navigate", entryId: null })).toMatchObject({ ok: true });
    expect(parseRpcCommand({ type: "fork", position: "before", extra: true })).toMatchObject({ ok: true });
  });

  it("names the command, the field and what it must be", () => {
    expect(parseRpcCommand([1])).toEqual({ ok: false, error: "A command must be a JSON object." });
    expect(parseRpcCommand({ id: "a" })).toEqual({
      ok: false,
      id: "a",
      error: 'A command needs a string "type".',
    });
    expect(parseRpcCommand({ type: "prompt", id: {} })).toEqual({
      ok: false,
      error: '"id" must be a string or a number.',
    });
    expect(parseRpcCommand({ type: "dance", id: 1 })).toMatchObject({
      ok: false,
      id: 1,
      type: "dance",
      error: expect.stringMatching(/^Unknown command "dance"\. Commands: prompt, steer,/),
    });
    expect(parseRpcCommand({ type: "prompt" })).toMatchObject({ error: '"prompt" needs "text": a string.' });
    expect(parseRpcCommand({ type: "navigate" })).toMatchObject({
      error: '"navigate" needs "entryId": an entry id, or null for the start of the session.',
    });
    expect(parseRpcCommand({ type: "navigate", entryId: null, summarize: "yes" })).toMatchObject({
      error: '"navigate": "summarize" must be true or false.',
    });
    expect(parseRpcCommand({ type: "fork", position: "after" })).toMatchObject({
      error: '"fork": "position" must be "at" or "before".',
    });
    expect(parseRpcCommand({ type: "set_thinking_level", level: "max" })).toMatchObject({
      error: '"set_thinking_level": "level" must be one of off, minimal, low, medium, high, xhigh.',
    });
  });
});

describe("parseRpcCommand: the demo's commands in the one command set", () => {
  it("keeps the id patterns and size limits, in the same wording", () => {
    expect(parseRpcCommand({ type: "get_entry", entryId: "../x" })).toMatchObject({
      ok: false,
      error: '"get_entry": "entryId" must be an entry id.',
    });
    expect(parseRpcCommand({ type: "open_session", sessionId: "/etc/passwd" })).toMatchObject({
      error: '"open_session": "sessionId" must be a session id.',
    });
    expect(parseRpcCommand({ type: "list_sessions", limit: 500 })).toMatchObject({
      error: '"list_sessions": "limit" must be an integer from 1 to 200.',
    });
    expect(parseRpcCommand({ type: "label", entryId: "a1", label: "x".repeat(201) })).toMatchObject({
      error: '"label": "label" must be a label (at most 200 characters) or null.',
    });
    expect(parseRpcCommand({ type: "diff", a: "a1" })).toMatchObject({
      error: '"diff" needs "b": an entry id.',
    });
    expect(parseRpcCommand({ type: "get_graph", expanded: ["ok", "../no"] })).toMatchObject({
      error: '"get_graph": "expanded" must be entry ids.',
    });
  });

  it("reads an old field name only where the command has the field (merge's message stays its own)", () => {
    expect(parseRpcCommand({ type: "merge", sourceLeafId: "a1", message: "why" })).toEqual({
      ok: true,
      command: { type: "merge", sourceLeafId: "a1", message: "why" },
    });
    expect(parseRpcCommand({ type: "edit", entryId: "a1", message: "new text" })).toMatchObject({
      ok: true,
      command: { text: "new text" },
    });
  });
});

describe("createRpcServer (one dispatcher over the union)", () => {
  it("answers every line once, runs prompts in the background and reports their events", async () => {
    const runtime = await createAppRuntime({
      cwd: temporaryDirectory(),
      env: {},
      home: temporaryDirectory(),
      providers: { scripted: () => import("../src/demo/index.js") },
      stores: {},
      persistent: false,
      tools: false,
      flags: { provider: "scripted" },
    });
    const lines: Record<string, unknown>[] = [];
    const server = createRpcServer(runtime, (line) => lines.push(JSON.parse(line)));
    try {
      server.handleLine('{"type":"prompt","id":"p","text":"hello"}');
      server.handleLine("not json");
      server.handleLine('{"type":"set_thinking_level","id":"t","level":"high"}');
      server.handleLine('{"type":"fork","id":"f","entryId":"nope"}');
      server.handleLine("   ");
      await server.close();
    } finally {
      await runtime.dispose();
    }
    expect(lines[0]).toMatchObject({
      type: "session",
      version: 2,
      model: "scripted/demo",
      persistent: false,
    });
    const responses = lines.filter((line) => line.type === "response");
    expect(responses).toHaveLength(4);
    expect(responses.find((line) => line.id === "p")).toMatchObject({ success: true, command: "prompt" });
    expect(responses.find((line) => line.command === null)).toMatchObject({
      success: false,
      error: expect.stringContaining("Invalid JSON"),
    });
    expect(responses.find((line) => line.id === "t")).toMatchObject({
      success: true,
      data: { thinkingLevel: "high" },
    });
    expect(responses.find((line) => line.id === "f")).toMatchObject({ success: false, command: "fork" });
    expect(lines.some((line) => line.type === "agent_end")).toBe(true);
  });
});
