/**
 * `arbor extensions list`: the extensions a session would load — from `~/.arbor/extensions/` (the Arbor
 * home), `.arbor/extensions/` and `--extension` — with what each registered, and those that failed (file,
 * hook, message). Loading runs each extension's default export, as a session start would.
 */
import type { Command } from "commander";
import type { RawCliOptions } from "../cli-options.js";
import type { CliIo } from "../io.js";

/** Options of `arbor extensions list`. */
export interface ExtensionsListOptions {
  json?: boolean;
}

/**
 * Lists the extensions; resolves to the exit code (1 when one failed to load).
 *
 * Contract: writes the listing to stdout (JSON with `--json`), never starts a session.
 */
export async function runExtensionsList(
  options: ExtensionsListOptions,
  globals: RawCliOptions,
  io: CliIo,
): Promise<number> {
  const runtime = await import("@arbor/app-runtime");
  const extensions = await import("@arbor/app-runtime/extensions");
  const home = runtime.resolveArborHome(io.env);
  if (globals.extensions === false) {
    io.stdout.write(
      options.json
        ? `${JSON.stringify({ loaded: [], failures: [] })}\n`
        : "Extensions are off (--no-extensions).\n",
    );
    return 0;
  }
  const host = await extensions.loadRuntimeExtensions({
    cwd: io.cwd,
    home,
    extensions: globals.extension ?? [],
    warn: () => undefined,
  });
  const { loaded, failures } = host;
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ loaded, failures, commands: host.commandList() })}\n`);
    return failures.length > 0 ? 1 : 0;
  }
  if (loaded.length === 0 && failures.length === 0) {
    io.stdout.write(`No extensions (looked in ${home}/extensions and .arbor/extensions).\n`);
    return 0;
  }
  for (const extension of loaded) {
    const parts = [
      extension.tools.length > 0 ? `tools ${extension.tools.join(", ")}` : undefined,
      extension.commands.length > 0
        ? `commands ${extension.commands.map((name) => `/${name}`).join(", ")}`
        : undefined,
      extension.providers.length > 0 ? `providers ${extension.providers.join(", ")}` : undefined,
      extension.hooks.length > 0 ? `hooks ${[...new Set(extension.hooks)].join(", ")}` : undefined,
      extension.events.length > 0 ? `events ${[...new Set(extension.events)].join(", ")}` : undefined,
    ].filter((part): part is string => part !== undefined);
    io.stdout.write(`✓ ${extension.path} (${extension.origin})\n`);
    if (parts.length > 0) io.stdout.write(`    ${parts.join("; ")}\n`);
  }
  for (const failure of failures) io.stdout.write(`✗ ${extensions.describeExtensionFailure(failure)}\n`);
  return failures.length > 0 ? 1 : 0;
}

/** Adds `extensions list` to the program. */
export function addExtensionsCommand(program: Command, io: CliIo, exit: (code: number) => void): void {
  const extensions = program.command("extensions").description("the extensions sessions load");
  extensions
    .command("list")
    .description("list the extensions, where each came from and what it registered (and failures)")
    .option("--json", "one JSON object")
    .exitOverride()
    .action(async (options: ExtensionsListOptions, command: Command) => {
      exit(await runExtensionsList(options, command.optsWithGlobals() as RawCliOptions, io));
    });
}
