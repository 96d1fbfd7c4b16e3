/**
 * `arbor mcp list`: the MCP servers of `settings.json` (`mcpServers`), each started to list its tools, with
 * its transport, its state and, for a server that failed to start, why. The servers are stopped again.
 */
import type { Command } from "commander";
import type { CliIo } from "../io.js";

/** Options of `arbor mcp list`. */
export interface McpListOptions {
  json?: boolean;
}

/**
 * Lists the servers; resolves to the exit code (1 when one failed to start).
 *
 * Contract: starts every configured server and stops it before returning; an invalid settings file is an
 * `ArborUserError` (the caller prints it).
 */
export async function runMcpList(options: McpListOptions, io: CliIo): Promise<number> {
  const runtime = await import("@arbor/app-runtime");
  const { startMcpServers } = await import("@arbor/app-runtime/extensions");
  const home = runtime.resolveArborHome(io.env);
  const servers = runtime.loadSettings(home, io.cwd).settings.mcpServers ?? {};
  if (Object.keys(servers).length === 0) {
    io.stdout.write(
      options.json
        ? "[]\n"
        : `No MCP servers (add "mcpServers" to ${home}/settings.json or .arbor/settings.json).\n`,
    );
    return 0;
  }
  const manager = await startMcpServers({
    servers,
    tools: undefined,
    cwd: io.cwd,
    env: io.env,
    version: runtime.VERSION,
    warn: () => undefined,
  });
  try {
    const status = manager?.status() ?? [];
    if (options.json) {
      io.stdout.write(`${JSON.stringify(status)}\n`);
    } else {
      for (const server of status) {
        io.stdout.write(
          `${server.state === "ready" ? "✓" : "✗"} ${server.name} (${server.transport}) ${server.state}\n`,
        );
        if (server.error !== undefined) io.stdout.write(`    ${server.error}\n`);
        for (const tool of server.tools) io.stdout.write(`    ${tool}\n`);
      }
    }
    return status.some((server) => server.state !== "ready") ? 1 : 0;
  } finally {
    await manager?.close();
  }
}

/** Adds `mcp list` to the program. */
export function addMcpCommand(program: Command, io: CliIo, exit: (code: number) => void): void {
  const mcp = program.command("mcp").description("the MCP servers of settings.json");
  mcp
    .command("list")
    .description("start each server, list its state and tools, and stop it")
    .option("--json", "one JSON array")
    .exitOverride()
    .action(async (options: McpListOptions) => {
      exit(await runMcpList(options, io));
    });
}
