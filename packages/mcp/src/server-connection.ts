/**
 * One MCP server: started on the first `start()` (spawned over stdio, or connected over streamable HTTP),
 * its tools listed once, calls forwarded, and closed with `close()`. A failure to start is kept as the
 * server's `state: "failed"` and `error` (one line, with the last line the process wrote to stderr), never
 * thrown at the caller.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { McpError } from "./errors.js";
import { isHttpServer, type McpServerConfig } from "./server-config.js";

/** Where a server is in its life. */
export type McpServerState = "stopped" | "starting" | "ready" | "failed" | "closed";

/** A tool as the server lists it. */
export interface McpToolInfo {
  name: string;
  description?: string;
  /** The tool's JSON Schema for its arguments. */
  inputSchema: Record<string, unknown>;
}

/** Options of {@link McpServerConnection}. */
export interface McpConnectionOptions {
  /** The client's name and version sent to the server (default `arbor`, `0.0.0`). */
  clientInfo?: { name: string; version: string };
  /** The working directory of a stdio server without its own `cwd`. */
  cwd?: string;
  /** How long starting (connect + list tools) may take; default 30 000 ms. */
  startTimeoutMs?: number;
}

const DEFAULT_START_TIMEOUT_MS = 30_000;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One server of `mcpServers` and its client. */
export class McpServerConnection {
  private current: McpServerState = "stopped";
  private failure: McpError | undefined;
  private listed: McpToolInfo[] = [];
  private client: Client | undefined;
  private starting: Promise<void> | undefined;
  private stderrTail = "";

  constructor(
    /** The server's name in `mcpServers`. */
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly options: McpConnectionOptions = {},
  ) {}

  /** Where the server is: `stopped` until started, then `starting`, `ready` or `failed`; `closed` after `close()`. */
  get state(): McpServerState {
    return this.current;
  }

  /** Why it failed to start (set when `state` is `failed`). */
  get error(): McpError | undefined {
    return this.failure;
  }

  /** The tools it listed (empty until `ready`). */
  get tools(): readonly McpToolInfo[] {
    return this.listed;
  }

  /** `stdio` or `http`. */
  get transport(): "stdio" | "http" {
    return isHttpServer(this.config) ? "http" : "stdio";
  }

  /**
   * Starts the server and lists its tools.
   *
   * Contract: idempotent (concurrent and later calls share the first start); never rejects — a failure sets
   * `state` to `failed` and `error`; after `close()` it does nothing.
   */
  start(): Promise<void> {
    if (this.current === "closed") return Promise.resolve();
    this.starting ??= this.connect();
    return this.starting;
  }

  private createTransport(): Transport {
    const config = this.config;
    if (isHttpServer(config)) {
      return new StreamableHTTPClientTransport(new URL(config.url), {
        ...(config.headers === undefined ? {} : { requestInit: { headers: config.headers } }),
      });
    }
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      env: { ...getDefaultEnvironment(), ...config.env },
      stderr: "pipe",
      ...((config.cwd ?? this.options.cwd) ? { cwd: config.cwd ?? this.options.cwd } : {}),
    });
    transport.stderr?.on("data", (chunk: Buffer | string) => {
      this.stderrTail = `${this.stderrTail}${chunk.toString()}`.slice(-2000);
    });
    return transport;
  }

  /** Read through a method: `close()` may change the state while `connect()` awaits. */
  private isClosed(): boolean {
    return this.current === "closed";
  }

  private async connect(): Promise<void> {
    this.current = "starting";
    const client = new Client(this.options.clientInfo ?? { name: "arbor", version: "0.0.0" });
    const timeoutMs = this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      await Promise.race([client.connect(this.createTransport(), { timeout: timeoutMs }), timeout]);
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await Promise.race([client.listTools(cursor === undefined ? {} : { cursor }), timeout]);
        for (const tool of page.tools) {
          tools.push({
            name: tool.name,
            ...(tool.description === undefined ? {} : { description: tool.description }),
            inputSchema: tool.inputSchema as Record<string, unknown>,
          });
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      if (this.isClosed()) {
        await client.close();
        return;
      }
      this.client = client;
      this.listed = tools;
      this.current = "ready";
    } catch (error) {
      await client.close().catch(() => undefined);
      if (this.isClosed()) return;
      const lastLine = this.stderrTail.trim().split("\n").pop()?.trim();
      const detail = lastLine ? ` (stderr: ${lastLine})` : "";
      this.failure = new McpError(
        "mcp_start_failed",
        this.name,
        `MCP server "${this.name}" failed to start: ${messageOf(error)}${detail}`,
        { cause: error },
      );
      this.current = "failed";
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Calls one of its tools; resolves to the raw `tools/call` result.
   *
   * Contract: rejects with {@link McpError} (`mcp_closed`, `mcp_call_failed`) when the server is not ready or
   * the call fails in transport or protocol; a tool's own failure is a result with `isError: true`.
   */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const client = this.client;
    if (client === undefined || this.current !== "ready") {
      throw new McpError(
        "mcp_closed",
        this.name,
        `MCP server "${this.name}" is not running (${this.current}).`,
      );
    }
    try {
      return (await client.callTool(
        { name: tool, arguments: args },
        undefined,
        signal ? { signal } : {},
      )) as Record<string, unknown>;
    } catch (error) {
      throw new McpError(
        "mcp_call_failed",
        this.name,
        `MCP server "${this.name}", tool "${tool}": ${messageOf(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  /**
   * Stops the server (a stdio child is terminated).
   *
   * Contract: idempotent; never rejects.
   */
  async close(): Promise<void> {
    if (this.current === "closed") return;
    this.current = "closed";
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }
}
