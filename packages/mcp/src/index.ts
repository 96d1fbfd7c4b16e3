/**
 * @arbor/mcp — Arbor's Model Context Protocol client, through the official `@modelcontextprotocol/sdk`:
 * `mcpServers` (Claude Code's shape: `command`/`args`/`env` for stdio, `url`/`headers` for streamable HTTP),
 * servers started on demand and stopped with `close()`, and each server's tools as AgentTools named
 * `mcp__<server>__<tool>` (at most 64 characters, unique, shortened with a hash where needed), their
 * arguments validated against the server's JSON Schema. A server or tool that misbehaves is one warning
 * line, never a thrown error. See docs/mcp.md.
 */

export { type ArgumentValidator, compileArgumentValidator } from "./argument-validator.js";
export { McpError, type McpErrorCode } from "./errors.js";
export { McpManager, type McpServerStatus, type McpToolsOptions } from "./mcp-manager.js";
export { mcpAgentTool, mcpAgentTools } from "./mcp-tools.js";
export {
  isHttpServer,
  type McpHttpServerConfig,
  McpHttpServerSchema,
  type McpServerConfig,
  McpServerConfigSchema,
  type McpServers,
  McpServersSchema,
  type McpStdioServerConfig,
  McpStdioServerSchema,
  parseMcpServers,
} from "./server-config.js";
export { type McpConnectionOptions, McpServerConnection, type McpServerState } from "./server-connection.js";
export { type McpSkippedTool, type McpToolInfo, type McpToolListing, readToolList } from "./tool-listing.js";
export {
  allowsMcpServer,
  allowsMcpTool,
  hashedMcpToolName,
  isMcpServerEntry,
  isValidToolName,
  MAX_SERVER_PART_LENGTH,
  MAX_TOOL_NAME_LENGTH,
  MCP_TOOL_PREFIX,
  mcpServerPart,
  mcpToolName,
  plainMcpToolName,
} from "./tool-names.js";
export { type McpToolResultDetails, mcpResultToToolResult } from "./tool-result.js";
export { assignMcpToolNames, type McpToolIdentity } from "./unique-tool-names.js";
export { VERSION } from "./version.js";
