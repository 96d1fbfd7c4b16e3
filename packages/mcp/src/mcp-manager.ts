/**
 * {@link McpManager}: the servers of one `mcpServers` map. Nothing is started until `start()` names the
 * servers a run needs (all of them, or those an allow list admits); they start concurrently, each failure is
 * one line in `failures()`, and `close()` stops them all.
 */
import type { AgentTool } from "@arbor/agent-core";
import { mcpAgentTools } from "./mcp-tools.js";
import type { McpServers } from "./server-config.js";
import { type McpConnectionOptions, McpServerConnection, type McpServerState } from "./server-connection.js";
import { allowsMcpServer, allowsMcpTool } from "./tool-names.js";

/** One server's state for a listing (`arbor mcp list`). */
export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http";
  state: McpServerState;
  /** The AgentTool names of its tools. */
  tools: string[];
  /** Why it failed, when it did. */
  error?: string;
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

  /**
   * The AgentTools of the ready servers, filtered by the allow list when given.
   *
   * Contract: pure over the servers' current state; call after {@link start}.
   */
  tools(allowList?: readonly string[]): AgentTool[] {
    const tools = this.servers.flatMap((server) =>
      mcpAgentTools(server).filter(
        (tool) =>
          allowList === undefined || allowList.some((entry) => allowsMcpTool(entry, server.name, tool.name)),
      ),
    );
    return tools;
  }

  /** One line per server that failed to start. */
  failures(): string[] {
    return this.servers.flatMap((server) => (server.error === undefined ? [] : [server.error.message]));
  }

  /** Every server's state and tools. */
  status(): McpServerStatus[] {
    return this.servers.map((server) => ({
      name: server.name,
      transport: server.transport,
      state: server.state,
      tools: mcpAgentTools(server).map((tool) => tool.name),
      ...(server.error === undefined ? {} : { error: server.error.message }),
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
