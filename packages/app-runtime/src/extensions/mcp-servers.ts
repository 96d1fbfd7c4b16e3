/**
 * The `mcpServers` of the settings, started for a run. `@arbor/mcp` (and the MCP SDK under it, some 98
 * packages) is an optional peer of this package: it is imported only when servers are configured, and a
 * runtime that names none never loads or needs it. Its configuration schema is `@arbor/mcp`'s own
 * (`parseMcpServers`), checked when the servers start; the settings file only holds "an object per server".
 */
import type { AgentTool } from "@arbor/agent-core";
import { ArborUserError } from "../errors.js";
import type { Environment } from "../home.js";
import { useEnvironmentProxy } from "../network-proxy.js";
import type { ToolName } from "../tool-names.js";

/** The `mcpServers` field of a settings file: server name → its configuration (see docs/mcp.md). */
export type McpServerSettings = Readonly<Record<string, object>>;

/** One configured server as {@link McpConnections.status} reports it. */
export interface McpServerReport {
  name: string;
  transport: "stdio" | "http";
  /** `"ready"` once it answered; otherwise why not (`"failed"`, `"closed"`, …). */
  state: string;
  /** The tool names it offers (`mcp__<server>__<tool>`). */
  tools: string[];
  /** Why it failed, when it did. */
  error?: string;
}

/**
 * The started MCP servers as the runtime and the front ends use them (`@arbor/mcp`'s `McpManager` is
 * one; this type names no type of that optional package, so this package's types check without it).
 */
export interface McpConnections {
  /**
   * The servers' tools the allow list admits (all without one), as AgentTools.
   *
   * Contract: synchronous; the same names for the same servers and lists on every run.
   */
  tools(allowList?: readonly string[]): AgentTool[];
  /**
   * Each server's state and tools.
   *
   * Contract: synchronous, reads only.
   */
  status(): McpServerReport[];
  /**
   * Stops every server (child processes ended, HTTP sessions closed).
   *
   * Contract: never rejects; safe to call twice.
   */
  close(): Promise<void>;
}

/** The part of `@arbor/mcp` used here. */
interface McpModule {
  parseMcpServers(value: unknown): unknown;
  McpManager: new (
    servers: never,
    options: { cwd: string; clientInfo: { name: string; version: string } },
  ) => McpConnections & {
    start(allowList?: readonly string[]): Promise<void>;
    warnings(allowList?: readonly string[]): string[];
  };
}

/** The command that installs the optional peer, for the messages below. */
const INSTALL = "npm install @arbor/mcp";

/** Imports `@arbor/mcp`, or says in one line what to install. */
async function importMcp(): Promise<McpModule> {
  try {
    return (await import("@arbor/mcp")) as unknown as McpModule;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes("@arbor/mcp")) {
      throw new ArborUserError(
        "mcp_unavailable",
        `The settings name MCP servers (mcpServers), which need the @arbor/mcp package: run \`${INSTALL}\` where @arbor/app-runtime is installed, or remove mcpServers.`,
      );
    }
    throw error;
  }
}

/**
 * Starts the MCP servers of the settings that the run's tools allow (none with `tools: false`, all without an
 * allow list, else those the list names) and waits until each is ready or failed.
 *
 * Contract: `undefined` when no server is configured (nothing is imported). Rejects only with an
 * `ArborUserError`: `invalid_settings` for a configuration `@arbor/mcp` refuses (naming the server and
 * the field), `mcp_unavailable` when `@arbor/mcp` is not installed. Each failed server, and each tool a
 * started server listed but that cannot be offered, is one warning line.
 */
export async function startMcpServers(options: {
  servers: McpServerSettings | undefined;
  tools: readonly ToolName[] | false | undefined;
  cwd: string;
  /** Where the proxy variables are read (HTTP servers are reached through `HTTPS_PROXY`). */
  env: Environment;
  version: string;
  warn: (message: string) => void;
}): Promise<McpConnections | undefined> {
  if (options.servers === undefined || Object.keys(options.servers).length === 0) return undefined;
  const mcp = await importMcp();
  let servers: unknown;
  try {
    servers = mcp.parseMcpServers(options.servers);
  } catch (error) {
    throw new ArborUserError(
      "invalid_settings",
      `Invalid mcpServers in the settings: ${(error as Error).message}`,
    );
  }
  await useEnvironmentProxy(options.env);
  const manager = new mcp.McpManager(servers as never, {
    cwd: options.cwd,
    clientInfo: { name: "arbor", version: options.version },
  });
  if (options.tools === false) return manager;
  await manager.start(options.tools);
  for (const line of manager.warnings(options.tools)) options.warn(line);
  return manager;
}
