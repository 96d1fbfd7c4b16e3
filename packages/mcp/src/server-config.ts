/**
 * The `mcpServers` configuration, in Claude Code's shape: a map from a server name to either a command to
 * spawn (stdio: `command`, `args`, `env`, `cwd`) or a streamable HTTP endpoint (`url`, `headers`), each with
 * optional `startTimeoutMs`, `callTimeoutMs` and `toolOutputTokens` (its tools' `maxOutputTokens`). TypeBox
 * schemas are the source of truth; {@link parseMcpServers} validates a value read from a settings file.
 */
import { type Static, Type } from "@arbor/ai-providers";
import { Value } from "@sinclair/typebox/value";
import { McpError } from "./errors.js";

/** The options every server may set: timeouts (milliseconds) and the output budget of its tools (tokens). */
const serverOptions = {
  startTimeoutMs: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: "how long starting (initialize + tools/list) may take; default 30 000",
    }),
  ),
  callTimeoutMs: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: "how long one tool call may wait for its answer; default 60 000",
    }),
  ),
  toolOutputTokens: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        "most tokens of one result of this server's tools the model sees (longer output is cut to its head and " +
        "tail, kept whole in the session for recall); default: the session's tool-output budget " +
        "(compaction.toolOutputTokens, or 10% of the model's window, at most 25 000)",
    }),
  ),
};

/** A server started as a child process and spoken to over its stdin/stdout. */
export const McpStdioServerSchema = Type.Object(
  {
    type: Type.Optional(Type.Literal("stdio")),
    command: Type.String({ minLength: 1, description: "the program to run" }),
    args: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: "added to a minimal environment" }),
    ),
    cwd: Type.Optional(Type.String({ minLength: 1 })),
    ...serverOptions,
  },
  { additionalProperties: false },
);

/** A server reached over MCP's streamable HTTP transport. */
export const McpHttpServerSchema = Type.Object(
  {
    type: Type.Optional(Type.Union([Type.Literal("http"), Type.Literal("streamable-http")])),
    url: Type.String({ minLength: 1, description: "the server's endpoint, e.g. http://127.0.0.1:3000/mcp" }),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    ...serverOptions,
  },
  { additionalProperties: false },
);

/** One entry of `mcpServers`. */
export const McpServerConfigSchema = Type.Union([McpStdioServerSchema, McpHttpServerSchema]);

/** `mcpServers`: server name → configuration. */
export const McpServersSchema = Type.Record(
  Type.String({ pattern: "^[A-Za-z0-9_-]+$" }),
  McpServerConfigSchema,
  {
    description: "MCP servers by name: { command, args?, env? } or { url, headers? }",
  },
);

/** A stdio server's configuration. */
export type McpStdioServerConfig = Static<typeof McpStdioServerSchema>;
/** An HTTP server's configuration. */
export type McpHttpServerConfig = Static<typeof McpHttpServerSchema>;
/** One server's configuration. */
export type McpServerConfig = Static<typeof McpServerConfigSchema>;
/** `mcpServers`. */
export type McpServers = Static<typeof McpServersSchema>;

/** True for a configuration that names a URL (streamable HTTP). */
export function isHttpServer(config: McpServerConfig): config is McpHttpServerConfig {
  return typeof (config as { url?: unknown }).url === "string";
}

/**
 * Validates `mcpServers` as read from a file.
 *
 * @throws {McpError} (`invalid_mcp_config`) naming the server and what is wrong with it.
 */
export function parseMcpServers(value: unknown): McpServers {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new McpError("invalid_mcp_config", "", "mcpServers must be an object of servers by name.");
  }
  for (const [name, config] of Object.entries(value as Record<string, unknown>)) {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) {
      throw new McpError(
        "invalid_mcp_config",
        name,
        `MCP server name "${name}": use letters, digits, _ and - only.`,
      );
    }
    if (typeof config === "object" && config !== null && (config as { type?: unknown }).type === "sse") {
      throw new McpError(
        "invalid_mcp_config",
        name,
        `MCP server "${name}": the SSE transport is not supported; give the server's streamable HTTP url.`,
      );
    }
    const schema =
      typeof (config as { url?: unknown })?.url === "string" ? McpHttpServerSchema : McpStdioServerSchema;
    if (!Value.Check(schema, config)) {
      const [first] = Value.Errors(schema, config);
      const where = first?.path === "" || first === undefined ? "" : ` at ${first.path}`;
      throw new McpError(
        "invalid_mcp_config",
        name,
        `MCP server "${name}"${where}: ${first?.message ?? "invalid"} (give { command, args?, env? } or { url, headers? }).`,
      );
    }
  }
  return value as McpServers;
}
