import { fileURLToPath } from "node:url";
import { Agent } from "@arbor/agent-core";
import type { ToolResultMessage } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { McpError, McpManager, mcpResultToToolResult, mcpToolName, parseMcpServers } from "../src/index.js";
// @ts-expect-error: a plain JavaScript fixture (the server the tests start).
import { startHttpServer } from "./fixtures/mcp-test-server.mjs";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const STDIO = { command: process.execPath, args: [fixture("mcp-test-server.mjs"), "--stdio"] };

const managers: McpManager[] = [];
function manager(servers: ConstructorParameters<typeof McpManager>[0], options = {}): McpManager {
  const created = new McpManager(servers, { startTimeoutMs: 15_000, ...options });
  managers.push(created);
  return created;
}
afterEach(async () => {
  await Promise.all(managers.splice(0).map((item) => item.close()));
});

function toolResults(agent: Agent): ToolResultMessage[] {
  return agent.state.messages.filter(
    (message): message is ToolResultMessage => message.role === "toolResult",
  );
}

describe("MCP over stdio (the SDK's server class in a child process)", () => {
  it("lists the tools as mcp__<server>__<tool>, starting only when asked", async () => {
    const servers = manager({ local: STDIO });
    expect(servers.status()[0]).toMatchObject({ name: "local", state: "stopped", tools: [] });
    await servers.start();
    const status = servers.status()[0]!;
    expect(status.state).toBe("ready");
    expect(status.transport).toBe("stdio");
    expect(status.tools).toEqual([
      "mcp__local__echo",
      "mcp__local__add",
      "mcp__local__picture",
      "mcp__local__broken",
    ]);
    const echo = servers.tools().find((tool) => tool.name === "mcp__local__echo")!;
    expect(echo.description).toBe("Echo the text back");
    // The model sees the server's JSON Schema as it is.
    expect(JSON.parse(JSON.stringify(echo.parameters))).toEqual({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
  });

  it("a call from the scripted model round-trips through the agent loop; invalid arguments never reach the server", async () => {
    const servers = manager({ local: STDIO });
    await servers.start();
    const provider = createScriptedProvider([
      script.toolCalls([
        { name: "mcp__local__echo", arguments: { text: "hello" } },
        { name: "mcp__local__add", arguments: { a: 2, b: "three" } },
        { name: "mcp__local__picture", arguments: {} },
        { name: "mcp__local__broken", arguments: {} },
      ]),
      script.text("done"),
    ]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream, tools: servers.tools() });
    await agent.prompt("use the tools");
    const [echo, add, picture, broken] = toolResults(agent);
    expect(echo).toMatchObject({ isError: false, content: [{ type: "text", text: "echo: hello" }] });
    expect(echo!.details).toEqual({ server: "local", tool: "echo" });
    expect(add!.isError).toBe(true);
    expect(JSON.stringify(add!.content)).toContain("/b: must be number");
    expect(picture!.content).toEqual([
      expect.objectContaining({ type: "image", mimeType: "image/png" }),
      { type: "text", text: "[resource link] report: file:///tmp/report.txt (text/plain)" },
    ]);
    expect(broken).toMatchObject({ isError: true, content: [{ type: "text", text: "it broke" }] });
    provider.assertDone();
  });

  it("a server that fails to start is one line naming it, and the others still work", async () => {
    const servers = manager({
      broken: { command: process.execPath, args: [fixture("fail-server.mjs")] },
      missing: { command: "/nonexistent/arbor-mcp-server" },
      local: STDIO,
    });
    await servers.start();
    const failures = servers.failures();
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(
      /^MCP server "broken" failed to start: .*\(stderr: fatal: missing API token\)$/,
    );
    expect(failures[1]).toMatch(/^MCP server "missing" failed to start: /);
    for (const line of failures) expect(line).not.toContain("\n");
    expect(servers.status().map((server) => server.state)).toEqual(["failed", "failed", "ready"]);
    expect(servers.tools().map((tool) => tool.name)).toContain("mcp__local__echo");
  });

  it("an allow list starts only the servers it names and keeps only its tools", async () => {
    const servers = manager({ local: STDIO, other: STDIO });
    await servers.start(["read", "mcp__local__echo"]);
    expect(servers.status().map((server) => server.state)).toEqual(["ready", "stopped"]);
    expect(servers.tools(["read", "mcp__local__echo"]).map((tool) => tool.name)).toEqual([
      "mcp__local__echo",
    ]);
    expect(servers.tools(["mcp__local"]).length).toBe(4);
  });

  it("close() stops the server: later calls are errors, not hangs", async () => {
    const servers = manager({ local: STDIO });
    await servers.start();
    const [echo] = servers.tools();
    await servers.close();
    expect(servers.status()[0]!.state).toBe("closed");
    await expect(
      echo!.execute(
        { text: "x" },
        { toolCallId: "1", signal: new AbortController().signal, onUpdate: () => {} },
      ),
    ).rejects.toThrow(/not running/);
  });
});

describe("MCP over streamable HTTP (127.0.0.1)", () => {
  it("lists and calls tools, sending the configured headers", async () => {
    const http = await startHttpServer();
    try {
      const servers = manager({ remote: { url: http.url, headers: { "x-api-key": "secret" } } });
      await servers.start();
      expect(servers.status()[0]).toMatchObject({ state: "ready", transport: "http" });
      const provider = createScriptedProvider([
        script.toolCall("mcp__remote__add", { a: 2, b: 3 }),
        script.text("five"),
      ]);
      const agent = new Agent({ model: provider.model, streamFn: provider.stream, tools: servers.tools() });
      await agent.prompt("add");
      const [add] = toolResults(agent);
      expect(add).toMatchObject({ isError: false, content: [{ type: "text", text: "5" }] });
      expect(add!.details).toEqual({ server: "remote", tool: "add", structuredContent: { sum: 5 } });
      provider.assertDone();
      expect(http.headers.some((headers: Record<string, string>) => headers["x-api-key"] === "secret")).toBe(
        true,
      );
    } finally {
      await http.close();
    }
  });

  it("an unreachable URL is a failed server, not a thrown error", async () => {
    const http = await startHttpServer();
    const url = http.url;
    await http.close();
    const servers = manager({ gone: { url } });
    await servers.start();
    expect(servers.failures()).toEqual([expect.stringMatching(/^MCP server "gone" failed to start: /)]);
  });
});

describe("configuration and mapping", () => {
  it("parseMcpServers accepts Claude Code's shape and names the bad server", () => {
    const servers = parseMcpServers({
      a: { command: "x", args: ["1"], env: { K: "v" } },
      b: { url: "http://h/mcp" },
    });
    expect(Object.keys(servers)).toEqual(["a", "b"]);
    expect(() => parseMcpServers({ bad: { args: [] } })).toThrow(McpError);
    expect(() => parseMcpServers({ bad: { args: [] } })).toThrow(/MCP server "bad"/);
    expect(() => parseMcpServers({ s: { type: "sse", url: "http://h" } })).toThrow(
      /SSE transport is not supported/,
    );
  });

  it("names are provider-safe and results map every block kind", () => {
    expect(mcpToolName("my.server", "do/it")).toBe("mcp__my_server__do_it");
    const result = mcpResultToToolResult(
      {
        content: [
          { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "A" } },
          { type: "audio", data: "x", mimeType: "audio/wav" },
        ],
      },
      "s",
      "t",
    );
    expect(result.content).toEqual([
      { type: "text", text: "[resource file:///a.txt (text/plain)]\nA" },
      { type: "text", text: "[audio audio/wav: not shown]" },
    ]);
    expect(mcpResultToToolResult({ structuredContent: { ok: 1 } }, "s", "t").content).toEqual([
      { type: "text", text: '{"ok":1}' },
    ]);
  });
});
