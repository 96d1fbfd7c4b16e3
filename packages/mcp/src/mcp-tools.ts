/**
 * A ready server's tools as AgentTools named `mcp__<server>__<tool>` (shortened and made unique where needed,
 * see tool-names.ts): plain JSON Schema tools — the server's JSON Schema goes to the model unchanged and the
 * agent loop validates arguments against it (agent-core's one rule for JSON Schema tools, see
 * docs/tool-schemas.md), the call goes to the server under the tool's own name, and the result is mapped onto
 * tool result content.
 */
import type { AgentTool, JsonSchema } from "@arbor/agent-core";
import type { McpServerConnection } from "./server-connection.js";
import type { McpToolInfo } from "./tool-listing.js";
import { mcpToolName } from "./tool-names.js";
import { type McpToolResultDetails, mcpResultToToolResult } from "./tool-result.js";
import { assignMcpToolNames } from "./unique-tool-names.js";

/**
 * The AgentTool of one tool of a server, named `name` (default: {@link mcpToolName} of the server and tool).
 *
 * Contract: its `parameters` is the tool's `inputSchema` (with `type: "object"` when the server left it out);
 * the agent loop validates each call against it (with agent-core's repairs: `"5"` → `5`, defaults filled), so
 * an invalid call becomes an error result without reaching the server and `execute` sends the repaired
 * arguments; `execute` calls the server's tool by its own name, whatever the AgentTool is called;
 * `maxOutputTokens` is the server's `toolOutputTokens` when its config sets one.
 */
export function mcpAgentTool(connection: McpServerConnection, info: McpToolInfo, name?: string): AgentTool {
  const toolName = name ?? mcpToolName(connection.name, info.name);
  const parameters: JsonSchema = { type: "object", ...info.inputSchema };
  const tool: AgentTool<JsonSchema, McpToolResultDetails> = {
    name: toolName,
    label: `${connection.name}: ${info.name}`,
    description: info.description ?? `The ${info.name} tool of the MCP server "${connection.name}".`,
    parameters,
    ...(connection.config.toolOutputTokens === undefined
      ? {}
      : { maxOutputTokens: connection.config.toolOutputTokens }),
    async execute(args, { signal }) {
      const result = await connection.callTool(info.name, args, signal);
      return mcpResultToToolResult(result, connection.name, info.name);
    },
  };
  return tool as AgentTool;
}

/**
 * Every tool of a ready server (none for a server that is not ready), with names unique among them.
 *
 * Contract: the names are those {@link assignMcpToolNames} gives the server's tools alone; `McpManager`
 * names the tools of all its servers together.
 */
export function mcpAgentTools(connection: McpServerConnection): AgentTool[] {
  if (connection.state !== "ready") return [];
  const names = assignMcpToolNames(
    connection.tools.map((info) => ({ server: connection.name, tool: info.name })),
  );
  return connection.tools.map((info, index) => mcpAgentTool(connection, info, names[index]));
}
