/**
 * {@link McpManager}: the servers of one `mcpServers` map. Nothing is started until `start()` names the
 * servers a run needs (all of them, or those an allow list admits); they start concurrently, and each
 * problem — a server that failed to start, a tool it listed that cannot be offered — is one line in
 * `warnings()`. The tools of all servers are named together, so no two share a name; `close()` stops them all.
 */
import type { AgentTool } from "@arbor/agent-core";
import { mcpAgentTool } from "./mcp-tools.js";
import { quoted } from "./one-line.js";
import type { McpServers } from "./server-config.js";
import { type McpConnectionOptions, McpServerConnection, type McpServerState } from "./server-connection.js";
import type { McpSkippedTool, McpToolInfo } from "./tool-listing.js";
import { allowsMcpServer, allowsMcpTool, isMcpServerEntry, mcpToolName } from "./tool-names.js";
import { assignMcpToolNames } from "./unique-tool-names.js";

/** One server's state for a listing (`arbor mcp list`). */
export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http";
  state: McpServerState;
  /** The AgentTool names of its tools. */
  tools: string[];
  /** Why it failed, when it did. */
  error?: string;
  /** One line per tool it listed that is not offered (see {@link McpManager.warnings}). */
  skipped?: string[];
}

/** Options of {@link McpManager.tools}. */
export interface McpToolsOptions {
  /** Names the MCP tools must not take: the other tools offered with them (built-in ones). */
  reserved?: Iterable<string>;
}

interface NamedTool {
  server: McpServerConnection;
  info: McpToolInfo;
  name: string;
}

/** The servers of an `mcpServers` map. */
export class McpManager {
  /** The servers, in the map's order. */
  readonly servers: readonly McpServerConnection[];

  constructor(servers: McpServers, options: McpConnectionOptions = {}) {
    this.servers = Object.entries(servers).map(
      ([name, config]) => new McpServerConnection(name, config, options),
    );
  }

  /**
   * Starts the servers an allow list needs (`undefined`: every server) and waits until each is ready or failed.
   *
   * Contract: never rejects; a server whose tools the allow list excludes is not started.
   */
  async start(allowList?: readonly string[]): Promise<void> {
    const wanted = this.servers.filter(
      (server) => allowList === undefined || allowsMcpServer(allowList, server.name),
    );
    await Promise.all(wanted.map((server) => server.start()));
  }

  /** The tools of the ready servers, named together (see `assignMcpToolNames`). */
  private named(reserved?: Iterable<string>): NamedTool[] {
    const listed = this.servers.flatMap((server) =>
      server.state === "ready" ? server.tools.map((info) => ({ server, info })) : [],
    );
    const names = assignMcpToolNames(
      listed.map(({ server, info }) => ({ server: server.name, tool: info.name })),
      reserved,
    );
    return listed.map((entry, index) => ({ ...entry, name: names[index]! }));
  }

  /**
   * The AgentTools of the ready servers, filtered by the allow list when given.
   *
   * Contract: pure over the servers' current state; call after {@link start}. Every name is valid for the
   * model APIs, unique among them and not in `options.reserved`, and the same for the same servers and tool
   * lists on every run; an allow-list entry admits a tool by the rules of `allowsMcpTool`.
   */
  tools(allowList?: readonly string[], options: McpToolsOptions = {}): AgentTool[] {
    return this.named(options.reserved)
      .filter(
        ({ server, info, name }) =>
          allowList === undefined ||
          allowList.some((entry) => allowsMcpTool(entry, server.name, name, info.name)),
      )
      .map(({ server, info, name }) => mcpAgentTool(server, info, name));
  }

  /** One line per server that failed to start (or whose connection closed). */
  failures(): string[] {
    return this.servers.flatMap((server) => (server.error === undefined ? [] : [server.error.message]));
  }

  /**
   * Every problem a user should hear of, one line each: the servers that failed (as {@link failures}), then
   * each tool a started server listed but that is not offered — `MCP server "<name>": tool "<tool>" skipped:
   * <reason>` — leaving out tools the allow list excludes anyway.
   *
   * Contract: pure over the servers' current state; no line holds a line break.
   */
  warnings(allowList?: readonly string[]): string[] {
    const skipped = this.servers.flatMap((server) =>
      server.skipped
        .filter(
          ({ name }) =>
            allowList === undefined ||
            allowList.some((entry) => isMcpServerEntry(entry, server.name)) ||
            (name !== undefined &&
              allowList.some((entry) =>
                allowsMcpTool(entry, server.name, mcpToolName(server.name, name), name),
              )),
        )
        .map((tool) => skippedLine(server.name, tool)),
    );
    return [...this.failures(), ...skipped];
  }

  /** Every server's state and tools. */
  status(): McpServerStatus[] {
    const named = this.named();
    return this.servers.map((server) => ({
      name: server.name,
      transport: server.transport,
      state: server.state,
      tools: named.filter((tool) => tool.server === server).map((tool) => tool.name),
      ...(server.error === undefined ? {} : { error: server.error.message }),
      ...(server.skipped.length === 0
        ? {}
        : { skipped: server.skipped.map((tool) => skippedLine(server.name, tool)) }),
    }));
  }

  /**
   * Stops every server.
   *
   * Contract: idempotent; never rejects.
   */
  async close(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.close()));
  }
}

function skippedLine(server: string, tool: McpSkippedTool): string {
  const which =
    tool.name === undefined ? `the tool at position ${tool.position}` : `tool ${quoted(tool.name)}`;
  return `MCP server "${server}": ${which} skipped: ${tool.reason}`;
}
