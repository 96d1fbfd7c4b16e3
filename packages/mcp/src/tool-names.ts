/** The names MCP tools get as AgentTools: `mcp__<server>__<tool>`. */

/** What every MCP tool name starts with. */
export const MCP_TOOL_PREFIX = "mcp__";

/** Characters a provider accepts in a tool name; anything else becomes `_`. */
function clean(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * The AgentTool name of a server's tool, e.g. `mcp__github__create_issue`.
 *
 * Contract: pure; characters other than letters, digits, `_` and `-` become `_`.
 */
export function mcpToolName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${clean(server)}__${clean(tool)}`;
}

/**
 * True when an allow-list entry admits a tool of `server`: the exact `mcp__<server>__<tool>` name, or
 * `mcp__<server>` for all of that server's tools.
 */
export function allowsMcpTool(entry: string, server: string, toolName: string): boolean {
  return entry === toolName || entry === `${MCP_TOOL_PREFIX}${clean(server)}`;
}

/** True when an allow list admits at least one tool of `server` (so the server must be started). */
export function allowsMcpServer(allowList: readonly string[], server: string): boolean {
  const prefix = `${MCP_TOOL_PREFIX}${clean(server)}`;
  return allowList.some((entry) => entry === prefix || entry.startsWith(`${prefix}__`));
}
