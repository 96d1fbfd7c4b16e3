/**
 * The errors of `@arbor/mcp`. A server that fails to start or a call that fails is data for the caller (a
 * server's `state` and `error`, a tool result with `isError`); these classes are what that data holds, and
 * what is thrown for misuse (an invalid server configuration).
 */
import { ArborError } from "@arbor/ai-providers";

/** Codes of {@link McpError}. */
export type McpErrorCode = "invalid_mcp_config" | "mcp_start_failed" | "mcp_call_failed" | "mcp_closed";

/** An MCP server or its configuration went wrong; `server` names it. */
export class McpError extends ArborError {
  constructor(
    code: McpErrorCode,
    /** The server's name in `mcpServers`. */
    readonly server: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.name = "McpError";
  }
}
