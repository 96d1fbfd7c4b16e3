import { fileURLToPath } from "node:url";
import { Agent } from "@arbor/agent-core";
import type { ToolResultMessage } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { isValidToolName, McpManager, type McpServers, parseMcpServers } from "../src/index.js";
// @ts-expect-error: a plain JavaScript fixture (the servers the tests start).
import { HUGE_BYTES, LONG_TOOL_NAME, startMisbehavingHttpServer } from "./fixtures/misbehaving-server.mjs";

const SERVER = fileURLToPath(new URL("./fixtures/misbehaving-server.mjs", import.meta.url));
const stdio = (behavior: string, extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [SERVER, behavior],
  ...extra,
});

const managers: McpManager[] = [];
const closers: (() => Promise<void>)[] = [];
function manager(servers: McpServers): McpManager {
  const created = new McpManager(parseMcpServers(servers), { startTimeoutMs: 15_000 });
  managers.push(created);
  return created;
}
afterEach(async () => {
  await Promise.all(managers.splice(0).map((item) => item.close()));
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function http(behavior: string): Promise<string> {
  const server = await startMisbehavingHttpServer(behavior);
  closers.push(server.close);
  return server.url;
}

/** Runs one scripted turn that calls `calls`; resolves to the tool results, in order. */
async function callTools(
  servers: McpManager,
  calls: { name: string; arguments: Record<string, unknown> }[],
): Promise<ToolResultMessage[]> {
  const provider = createScriptedProvider([script.toolCalls(calls), script.text("done")]);
  const agent = new Agent({ model: provider.model, streamFn: provider.stream, tools: servers.tools() });
  await agent.prompt("use the tools");
  provider.assertDone();
  return agent.state.messages.filter(
    (message): message is ToolResultMessage => message.role === "toolResult",
  );
}

const textOf = (result: ToolResultMessage | undefined) =>
  (result?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("");

describe("names: every MCP tool gets a name the model APIs accept, mapped back for the call", () => {
  for (const transport of ["stdio", "http"] as const) {
    it(`a 100-character tool name is shortened to 64 and still reaches the tool (${transport})`, async () => {
      const config = transport === "stdio" ? stdio("overlong-names") : { url: await http("overlong-names") };
      const servers = manager({ long: config });
      await servers.start();
      const names = servers.tools().map((tool) => tool.name);
      expect(names).toEqual([expect.stringMatching(/^mcp__long__search_a+_[0-9a-f]{8}$/), "mcp__long__echo"]);
      for (const name of names) expect(isValidToolName(name)).toBe(true);
      expect(servers.status()[0]!.tools).toEqual(names);
      expect(servers.warnings()).toEqual([]);
      const [result] = await callTools(servers, [{ name: names[0]!, arguments: { text: "hi" } }]);
      expect(textOf(result)).toBe(`${LONG_TOOL_NAME}: hi`);
      expect(result!.details).toMatchObject({ server: "long", tool: LONG_TOOL_NAME });
    });
  }

  it("a tool listed twice: the first is kept, one warning line", async () => {
    const servers = manager({ dup: stdio("duplicate") });
    await servers.start();
    expect(servers.tools().map((tool) => tool.name)).toEqual(["mcp__dup__echo", "mcp__dup__other"]);
    expect(servers.warnings()).toEqual([
      'MCP server "dup": tool "echo" skipped: listed twice (the first is kept)',
    ]);
    expect(servers.status()[0]!.skipped).toEqual(servers.warnings());
  });

  it("`x.y` and `x_y` both stay usable under names of their own, each reaching its own tool", async () => {
    const servers = manager({ clean: stdio("cleaning") });
    await servers.start();
    const names = servers.tools().map((tool) => tool.name);
    expect(names).toEqual([expect.stringMatching(/^mcp__clean__x_y_[0-9a-f]{8}$/), "mcp__clean__x_y"]);
    const results = await callTools(
      servers,
      names.map((name) => ({ name, arguments: { text: name } })),
    );
    expect(results.map(textOf)).toEqual([`x.y: ${names[0]}`, `x_y: ${names[1]}`]);
    expect(servers.warnings()).toEqual([]);
  });

  it('tools named "" and "!!!" get valid names and are callable', async () => {
    const servers = manager({ odd: stdio("empty-names") });
    await servers.start();
    const names = servers.tools().map((tool) => tool.name);
    expect(names).toEqual([
      expect.stringMatching(/^mcp__odd__tool_[0-9a-f]{8}$/),
      expect.stringMatching(/^mcp__odd__tool_[0-9a-f]{8}$/),
      "mcp__odd__echo",
    ]);
    const results = await callTools(servers, [
      { name: names[0]!, arguments: { text: "a" } },
      { name: names[1]!, arguments: { text: "b" } },
    ]);
    expect(results.map(textOf)).toEqual([": a", "!!!: b"]);
  });

  it("the same servers give the same names on every start", async () => {
    const first = manager({ long: stdio("overlong-names"), clean: stdio("cleaning") });
    const second = manager({ long: stdio("overlong-names"), clean: stdio("cleaning") });
    await Promise.all([first.start(), second.start()]);
    expect(second.tools().map((tool) => tool.name)).toEqual(first.tools().map((tool) => tool.name));
  });

  it("names stay unique against reserved names, and the allow list admits a shortened tool by either name", async () => {
    const servers = manager({ long: stdio("overlong-names") });
    await servers.start([`mcp__long__${LONG_TOOL_NAME}`]);
    expect(servers.status()[0]!.state).toBe("ready");
    const [long] = servers.tools([`mcp__long__${LONG_TOOL_NAME}`]);
    expect(long!.name).toMatch(/^mcp__long__search_/);
    expect(servers.tools([long!.name]).map((tool) => tool.name)).toEqual([long!.name]);
    const reserved = servers.tools(undefined, { reserved: ["mcp__long__echo"] }).map((tool) => tool.name);
    expect(reserved[1]).toMatch(/^mcp__long__echo_[0-9a-f]{8}$/);
  });
});

describe("schemas: a broken inputSchema disables that tool only, with one line", () => {
  for (const transport of ["stdio", "http"] as const) {
    it(`not an object schema, an unknown type, a $ref to nothing (${transport})`, async () => {
      const config = transport === "stdio" ? stdio("broken-schemas") : { url: await http("broken-schemas") };
      const servers = manager({ schemas: config });
      await servers.start();
      expect(servers.status()[0]!.state).toBe("ready");
      expect(servers.tools().map((tool) => tool.name)).toEqual(["mcp__schemas__echo"]);
      const warnings = servers.warnings();
      expect(warnings).toEqual([
        'MCP server "schemas": tool "not_an_object" skipped: its inputSchema is of type "string", not an object schema',
        expect.stringMatching(
          /^MCP server "schemas": tool "bad_keyword" skipped: its inputSchema does not compile: schema is invalid: /,
        ),
        'MCP server "schemas": tool "dangling_ref" skipped: its inputSchema does not compile: can\'t resolve reference #/$defs/missing from id #',
      ]);
      for (const line of warnings) expect(line).not.toContain("\n");
      // An allow list that excludes the broken tools does not warn about them.
      expect(servers.warnings(["mcp__schemas__echo"])).toEqual([]);
      expect(servers.warnings(["mcp__schemas__dangling_ref"])).toHaveLength(1);
    });
  }
});

describe("failures are one line naming the server (and the tool), and never hang past the timeouts", () => {
  it("a server that never answers initialize fails after its startTimeoutMs (stdio and HTTP)", async () => {
    const servers = manager({
      quiet: stdio("silent", { startTimeoutMs: 500 }),
      remote: { url: await http("silent"), startTimeoutMs: 500 },
    });
    await servers.start();
    expect(servers.warnings()).toEqual([
      'MCP server "quiet" failed to start: no answer to initialize within 500 ms',
      'MCP server "remote" failed to start: no answer to initialize within 500 ms',
    ]);
  });

  it("a server that hangs on tools/list fails after its startTimeoutMs, naming tools/list", async () => {
    const servers = manager({ lister: stdio("hang-on-list", { startTimeoutMs: 1500 }) });
    await servers.start();
    expect(servers.warnings()).toEqual([
      'MCP server "lister" failed to start: no answer to tools/list within 1500 ms',
    ]);
  });

  it("a server that dies mid-call: an error result naming server, tool and its last stderr line", async () => {
    const servers = manager({ fragile: stdio("die-mid-call") });
    await servers.start();
    // One session: the tools were offered before the server died; the second call comes after.
    const provider = createScriptedProvider([
      script.toolCall("mcp__fragile__die", {}),
      script.toolCall("mcp__fragile__echo", { text: "x" }),
      script.text("done"),
    ]);
    const agent = new Agent({ model: provider.model, streamFn: provider.stream, tools: servers.tools() });
    await agent.prompt("use the tools");
    const [died, later] = agent.state.messages.filter(
      (message): message is ToolResultMessage => message.role === "toolResult",
    );
    expect(died!.isError).toBe(true);
    expect(textOf(died)).toMatch(
      /^MCP server "fragile", tool "die": .*Connection closed \(stderr: die: exiting in the middle of a call\)$/,
    );
    expect(servers.status()[0]!.state).toBe("failed");
    expect(servers.failures()).toEqual([
      'MCP server "fragile" stopped: its connection closed (stderr: die: exiting in the middle of a call)',
    ]);
    expect(later!.isError).toBe(true);
    expect(textOf(later)).toBe(
      'MCP server "fragile", tool "echo": the server is not running (stopped: its connection closed (stderr: die: exiting in the middle of a call)).',
    );
  });

  it("a call that gets no answer is an error after callTimeoutMs", async () => {
    const servers = manager({ slow: stdio("hang-on-call", { callTimeoutMs: 500 }) });
    await servers.start();
    const [hung] = await callTools(servers, [{ name: "mcp__slow__hang", arguments: {} }]);
    expect(hung!.isError).toBe(true);
    expect(textOf(hung)).toMatch(/^MCP server "slow", tool "hang": MCP error -32001: Request timed out$/);
  });

  for (const transport of ["stdio", "http"] as const) {
    it(`a malformed result is a one-line error result (${transport})`, async () => {
      const config =
        transport === "stdio" ? stdio("malformed-result") : { url: await http("malformed-result") };
      const servers = manager({ odd: config });
      await servers.start();
      const [result] = await callTools(servers, [{ name: "mcp__odd__malformed", arguments: {} }]);
      expect(result!.isError).toBe(true);
      expect(textOf(result)).toBe(
        'MCP server "odd", tool "malformed": a malformed result (its content is a string, not a list of blocks)',
      );
    });
  }

  it("a 5 MB result arrives whole (the harness fits it to the context window)", async () => {
    const servers = manager({ big: stdio("huge-result") });
    await servers.start();
    const [result] = await callTools(servers, [{ name: "mcp__big__huge", arguments: {} }]);
    expect(result!.isError).toBe(false);
    expect(textOf(result)).toHaveLength(HUGE_BYTES);
  });
});
