/**
 * A ready server's tools as AgentTools named `mcp__<server>__<tool>` (shortened and made unique where needed,
 * see tool-names.ts): the server's JSON Schema goes to the model unchanged, arguments are validated against
 * it before the call (ajv), the call goes to the server under the tool's own name, and the result is mapped
 * onto tool result content.
 */
import type { AgentTool } from "@arbor/agent-core";
import { Type } from "@arbor/ai-providers";
import { compileArgumentValidator } from "./argument-validator.js";
import type { McpServerConnection } from "./server-connection.js";
import type { McpToolInfo } from "./tool-listing.js";
import { mcpToolName } from "./tool-names.js";
import { type McpToolResultDetails, mcpResultToToolResult } from "./tool-result.js";
import { assignMcpToolNames } from "./unique-tool-names.js";

/**
 * The AgentTool of one tool of a server, named `name` (default: {@link mcpToolName} of the server and tool).
 *
 * Contract: its `parameters` serialize to the tool's `inputSchema` (the agent loop's own TypeBox check
 * accepts any object); `prepareArguments` throws with the schema's problems, so an invalid call becomes an
 * error result without reaching the server; `execute` calls the server's tool by its own name, whatever the
 * AgentTool is called; `maxOutputTokens` is the server's `toolOutputTokens` when its config sets one.
 */
export function mcpAgentTool(connection: McpServerConnection, info: McpToolInfo, name?: string): AgentTool {
  const validate = info.validate ?? compileArgumentValidator(info.inputSchema).validate;
  const toolName = name ?? mcpToolName(connection.name, info.name);
  // `Type.Any(schema)`: the JSON Schema with TypeBox's `Any` kind — providers send the schema as it is.
  const parameters = Type.Any({ type: "object", ...info.inputSchema });
  const tool: AgentTool<typeof parameters, McpToolResultDetails> = {
    name: toolName,
    label: `${connection.name}: ${info.name}`,
    description: info.description ?? `The ${info.name} tool of the MCP server "${connection.name}".`,
    parameters,
    ...(connection.config.toolOutputTokens === undefined
      ? {}
      : { maxOutputTokens: connection.config.toolOutputTokens }),
    prepareArguments(raw) {
      const problem = validate(raw);
      if (problem !== undefined) throw new Error(`Invalid arguments for ${toolName}: ${problem}.`);
      return raw;
    },
    async execute(args, { signal }) {
      const result = await connection.callTool(info.name, (args ?? {}) as Record<string, unknown>, signal);
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
