import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { McpError, McpManager, mcpAgentTools, parseMcpServers } from "../src/index.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const STDIO = { command: process.execPath, args: [fixture("mcp-test-server.mjs"), "--stdio"] };

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((item) => item.close()));
});

describe("a server's toolOutputTokens", () => {
  it("becomes the maxOutputTokens of each of its tools; a server without it leaves them unset", async () => {
    const servers = new McpManager(
      parseMcpServers({ budgeted: { ...STDIO, toolOutputTokens: 1_234 }, plain: STDIO }),
      { startTimeoutMs: 15_000 },
    );
    managers.push(servers);
    await servers.start();
    const tools = servers.tools();
    const budgeted = tools.filter((tool) => tool.name.startsWith("mcp__budgeted__"));
    const plain = tools.filter((tool) => tool.name.startsWith("mcp__plain__"));
    expect(budgeted.length).toBeGreaterThan(0);
    expect(budgeted.map((tool) => tool.maxOutputTokens)).toEqual(budgeted.map(() => 1_234));
    expect(plain.length).toBe(budgeted.length);
    expect(plain.every((tool) => tool.maxOutputTokens === undefined && !("maxOutputTokens" in tool))).toBe(
      true,
    );
    const [connection] = servers.servers;
    expect(mcpAgentTools(connection!).every((tool) => tool.maxOutputTokens === 1_234)).toBe(true);
  });

  it("is validated: a whole number of at least 1, for stdio and HTTP servers alike", () => {
    expect(parseMcpServers({ web: { url: "http://127.0.0.1:1/mcp", toolOutputTokens: 500 } })).toEqual({
      web: { url: "http://127.0.0.1:1/mcp", toolOutputTokens: 500 },
    });
    for (const bad of [0, -5, 1.5, "2000"]) {
      expect(() => parseMcpServers({ local: { ...STDIO, toolOutputTokens: bad } })).toThrow(McpError);
      expect(() => parseMcpServers({ local: { ...STDIO, toolOutputTokens: bad } })).toThrow(
        /MCP server "local" at \/toolOutputTokens/,
      );
    }
  });
});
