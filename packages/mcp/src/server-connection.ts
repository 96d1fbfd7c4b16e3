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
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "./errors.js";
import { describeFailure, oneLine, quoted } from "./one-line.js";
import { isHttpServer, type McpServerConfig } from "./server-config.js";
import { type McpSkippedTool, type McpToolInfo, readToolList } from "./tool-listing.js";

/** Where a server is in its life. */
export type McpServerState = "stopped" | "starting" | "ready" | "failed" | "closed";

/** Options of {@link McpServerConnection}. */
export interface McpConnectionOptions {
  /** The client's name and version sent to the server (default `arbor`, `0.0.0`). */
  clientInfo?: { name: string; version: string };
  /** The working directory of a stdio server without its own `cwd`. */
  cwd?: string;
  /** How long starting (initialize + tools/list) may take, unless the server's config says; default 30 000 ms. */
  startTimeoutMs?: number;
  /** How long a tool call may wait for its answer, unless the server's config says; default 60 000 ms. */
  callTimeoutMs?: number;
}

const DEFAULT_START_TIMEOUT_MS = 30_000;
const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/** Most `tools/list` pages read (a server that pages forever fails to start instead of hanging). */
const MAX_PAGES = 100;

/** One server of `mcpServers` and its client. */
export class McpServerConnection {
  private current: McpServerState = "stopped";
  private failure: McpError | undefined;
  /** What {@link failure} says after the server's name, e.g. `stopped: its connection closed`. */
  private failureReason: string | undefined;
  private listed: McpToolInfo[] = [];
  private skippedTools: McpSkippedTool[] = [];
  private client: Client | undefined;
  private starting: Promise<void> | undefined;
  private stderrTail = "";

  constructor(
    /** The server's name in `mcpServers`. */
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly options: McpConnectionOptions = {},
  ) {}

  /**
   * Where the server is: `stopped` until started, then `starting`, `ready` or `failed` (also when a ready
   * server's connection closes: a stdio server that exited); `closed` after `close()`.
   */
  get state(): McpServerState {
    return this.current;
  }

  /** Why it failed (set when `state` is `failed`): one line naming the server. */
  get error(): McpError | undefined {
    return this.failure;
  }

  /** The tools it listed that can be offered (empty until `ready`). */
  get tools(): readonly McpToolInfo[] {
    return this.listed;
  }

  /** The tools it listed that are not offered, each with its reason (see `readToolList`). */
  get skipped(): readonly McpSkippedTool[] {
    return this.skippedTools;
  }

  /** `stdio` or `http`. */
  get transport(): "stdio" | "http" {
    return isHttpServer(this.config) ? "http" : "stdio";
  }

  private get startTimeoutMs(): number {
    return this.config.startTimeoutMs ?? this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  }

  private get callTimeoutMs(): number {
    return this.config.callTimeoutMs ?? this.options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  }

  /**
   * Starts the server and lists its tools.
   *
   * Contract: idempotent (concurrent and later calls share the first start); never rejects — a failure sets
   * `state` to `failed` and `error`; after `close()` it does nothing. It settles within the start timeout
   * (`startTimeoutMs`, default 30 s), plus the time a stdio server that ignores its closed stdin takes to be
   * terminated (at most 4 s).
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

  /** ` (stderr: <the last line the server wrote>)`, or nothing. */
  private stderrDetail(): string {
    const lastLine = this.stderrTail.trim().split(/\r?\n/).pop()?.trim();
    return lastLine ? ` (stderr: ${oneLine(lastLine, 200)})` : "";
  }

  private async connect(): Promise<void> {
    this.current = "starting";
    const client = new Client(this.options.clientInfo ?? { name: "arbor", version: "0.0.0" });
    const timeoutMs = this.startTimeoutMs;
    let waitingFor = "initialize";
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer to ${waitingFor} within ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      // The SDK's own timeouts are longer: the message above names what was awaited.
      const requestOptions = { timeout: timeoutMs + 1000 };
      await Promise.race([client.connect(this.createTransport(), requestOptions), timeout]);
      waitingFor = "tools/list";
      const listed: unknown[] = [];
      const cursors = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; page === 0 || cursor !== undefined; page++) {
        if (page === MAX_PAGES) throw new Error(`tools/list: more than ${MAX_PAGES} pages`);
        const params = cursor === undefined ? {} : { cursor };
        const answer = await Promise.race([
          client.request({ method: "tools/list", params }, ResultSchema, requestOptions),
          timeout,
        ]);
        if (!Array.isArray(answer.tools)) throw new Error("tools/list answered without a tools list");
        listed.push(...answer.tools);
        const next = answer.nextCursor;
        // A cursor seen before would list the same page again: the listing ends there.
        cursor = typeof next === "string" && !cursors.has(next) ? next : undefined;
        if (cursor !== undefined) cursors.add(cursor);
      }
      if (this.isClosed()) {
        await client.close();
        return;
      }
      const listing = readToolList(listed);
      this.client = client;
      this.listed = listing.tools;
      this.skippedTools = listing.skipped;
      this.current = "ready";
      client.onclose = () => this.lost();
    } catch (error) {
      await client.close().catch(() => undefined);
      if (this.isClosed()) return;
      this.fail(
        "mcp_start_failed",
        `failed to start: ${describeFailure(error)}${this.stderrDetail()}`,
        error,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** The connection of a ready server closed without `close()` (a stdio server exited). */
  private lost(): void {
    if (this.current !== "ready") return;
    this.client = undefined;
    this.fail("mcp_closed", `stopped: its connection closed${this.stderrDetail()}`);
  }

  /** Sets `failed`, with the error `MCP server "<name>" <what>` (and `what` kept for later calls). */
  private fail(code: "mcp_start_failed" | "mcp_closed", what: string, cause?: unknown): void {
    this.current = "failed";
    this.failureReason = what;
    this.failure = new McpError(code, this.name, `MCP server "${this.name}" ${what}`, { cause });
  }

  /**
   * Calls one of its tools; resolves to the raw `tools/call` result (an object; its `content`, when present,
   * a list).
   *
   * Contract: rejects with {@link McpError} (`mcp_closed`, `mcp_call_failed`) when the server is not ready,
   * when the call fails in transport or protocol, when no answer comes within `callTimeoutMs` (default 60 s),
   * or when the answer is not a result of that shape; the message is one line naming the server and the
   * tool. A tool's own failure is a result with `isError: true`.
   */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const client = this.client;
    const where = `MCP server "${this.name}", tool ${quoted(tool)}`;
    if (client === undefined || this.current !== "ready") {
      const why = this.failureReason ?? `it is ${this.current}`;
      throw new McpError("mcp_closed", this.name, `${where}: the server is not running (${why}).`);
    }
    let result: Record<string, unknown>;
    try {
      result = await client.request(
        { method: "tools/call", params: { name: tool, arguments: args } },
        ResultSchema,
        {
          timeout: this.callTimeoutMs,
          ...(signal ? { signal } : {}),
        },
      );
    } catch (error) {
      const exited = this.failure === undefined ? "" : this.stderrDetail();
      throw new McpError("mcp_call_failed", this.name, `${where}: ${describeFailure(error)}${exited}`, {
        cause: error,
      });
    }
    if (result.content !== undefined && !Array.isArray(result.content)) {
      throw new McpError(
        "mcp_call_failed",
        this.name,
        `${where}: a malformed result (its content is ${describeShape(result.content)}, not a list of blocks)`,
      );
    }
    return result;
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

function describeShape(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return "a string";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
