/**
 * A ready server's tools as AgentTools named `mcp__<server>__<tool>`: the server's JSON Schema goes to the
 * model unchanged, arguments are validated against it before the call (ajv), and the result is mapped onto
 * tool result content.
 */
import type { AgentTool } from "@arbor/agent-core";
import { Type } from "@arbor/ai-providers";
import { compileArgumentValidator } from "./argument-validator.js";
import type { McpServerConnection, McpToolInfo } from "./server-connection.js";
import { mcpToolName } from "./tool-names.js";
import { type McpToolResultDetails, mcpResultToToolResult } from "./tool-result.js";

/**
 * The AgentTool of one tool of a server.
 *
 * Contract: its `parameters` serialize to the tool's `inputSchema` (the agent loop's own TypeBox check
 * accepts any object); `prepareArguments` throws with the schema's problems, so an invalid call becomes an
 * error result without reaching the server.
 */
export function mcpAgentTool(connection: McpServerConnection, info: McpToolInfo): AgentTool {
  const { validate } = compileArgumentValidator(info.inputSchema);
  const name = mcpToolName(connection.name, info.name);
  // `Type.Any(schema)`: the JSON Schema with TypeBox's `Any` kind — providers send the schema as it is.
  const parameters = Type.Any({ type: "object", ...info.inputSchema });
  const tool: AgentTool<typeof parameters, McpToolResultDetails> = {
    name,
    label: `${connection.name}: ${info.name}`,
    description: info.description ?? `The ${info.name} tool of the MCP server "${connection.name}".`,
    parameters,
    prepareArguments(raw) {
      const problem = validate(raw);
      if (problem !== undefined) throw new Error(`Invalid arguments for ${name}: ${problem}.`);
      return raw;
    },
    async execute(args, { signal }) {
      const result = await connection.callTool(info.name, (args ?? {}) as Record<string, unknown>, signal);
      return mcpResultToToolResult(result, connection.name, info.name);
    },
  };
  return tool as AgentTool;
}

/** Every tool of a ready server (none for a server that is not ready). */
export function mcpAgentTools(connection: McpServerConnection): AgentTool[] {
  if (connection.state !== "ready") return [];
  return connection.tools.map((info) => mcpAgentTool(connection, info));
}
