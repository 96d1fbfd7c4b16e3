/**
 * @arbor/mcp — Arbor's Model Context Protocol client, through the official `@modelcontextprotocol/sdk`:
 * `mcpServers` (Claude Code's shape: `command`/`args`/`env` for stdio, `url`/`headers` for streamable HTTP),
 * servers started on demand and stopped with `close()`, and each server's tools as AgentTools named
 * `mcp__<server>__<tool>`, their arguments validated against the server's JSON Schema. See docs/mcp.md.
 */

import { createRequire } from "node:module";

export { type ArgumentValidator, compileArgumentValidator } from "./argument-validator.js";
export { McpError, type McpErrorCode } from "./errors.js";
export { McpManager, type McpServerStatus } from "./mcp-manager.js";
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
export {
  type McpConnectionOptions,
  McpServerConnection,
  type McpServerState,
  type McpToolInfo,
} from "./server-connection.js";
export { allowsMcpServer, allowsMcpTool, MCP_TOOL_PREFIX, mcpToolName } from "./tool-names.js";
export { type McpToolResultDetails, mcpResultToToolResult } from "./tool-result.js";

/** The package version (read from its package.json). */
export const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;
