/**
 * `arbor demo [--port N] [--tour] [--pace MS] [--cwd DIR]`: the web demo of `@arbor/demo` — the session tree, live, in a
 * browser on 127.0.0.1 — with the root command's `--provider`, `--model`, `--base-url`, `--api-key`,
 * `--store` and `--no-session`. Loads the demo only when the command runs.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import type { RawCliOptions } from "../cli-options.js";
import type { CliIo } from "../io.js";

/** The options of `arbor demo` itself. */
interface DemoCommandOptions {
  port?: number;
  tour?: boolean;
  pace?: number;
  cwd?: string;
}

function parseWhole(max: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < 0 || number > max) {
      throw new InvalidArgumentError(`expected a whole number from 0 to ${max}`);
    }
    return number;
  };
}

/**
 * The demo's built page: `dist/web` of the installed `@arbor/demo` (this file may sit in a bundle);
 * undefined when the demo is not installed (it ships with a clone of the repository, not with the CLI).
 */
function demoWebRoot(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve("@arbor/demo/package.json")), "dist", "web");
  } catch {
    return undefined;
  }
}

/** Adds `demo` to the program; `exit` receives the exit code when the demo stops (Ctrl-C). */
export function addDemoCommand(program: Command, io: CliIo, exit: (code: number) => void): void {
  program
    .command("demo")
    .description("the web demo: the session tree, live, in a browser on 127.0.0.1 (offline by default)")
    .option("--port <n>", "the port (default 4173; 0 picks a free one)", parseWhole(65_535))
    .option("--tour", "run the scripted tour live, so the tree has something to show at once")
    .option(
      "--pace <ms>",
      "pause between the scripted model's streamed chunks (default 8)",
      parseWhole(10_000),
    )
    .option(
      "--cwd <dir>",
      "where the agent's tools run (default: a fresh temporary folder, never the current one by surprise)",
    )
    .exitOverride()
    .action(async (options: DemoCommandOptions, command: Command) => {
      const globals = command.optsWithGlobals() as RawCliOptions & DemoCommandOptions;
      const webRoot = demoWebRoot();
      if (webRoot === undefined) {
        io.stderr.write(
          "arbor demo: the web demo is not installed with this arbor; it comes with a clone of the repository: run `pnpm demo` there (see apps/demo/README.md)\n",
        );
        exit(1);
        return;
      }
      const { runDemo } = await import("@arbor/demo");
      exit(
        await runDemo(
          {
            webRoot,
            ...(options.port === undefined ? {} : { port: options.port }),
            ...(options.tour === true ? { tour: true } : {}),
            ...(options.pace === undefined ? {} : { pace: options.pace }),
            ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
            ...(globals.provider === undefined ? {} : { provider: globals.provider }),
            ...(globals.model === undefined ? {} : { model: globals.model }),
            ...(globals.baseUrl === undefined ? {} : { baseUrl: globals.baseUrl }),
            ...(globals.apiKey === undefined ? {} : { apiKey: globals.apiKey }),
            ...(globals.store === undefined ? {} : { store: globals.store }),
            ...(globals.session === false ? { persistent: false } : {}),
            ...(globals.extensions === false
              ? { extensions: false as const }
              : globals.extension === undefined
                ? {}
                : { extensions: globals.extension }),
          },
          { stdout: (text) => io.stdout.write(text), stderr: (text) => io.stderr.write(text) },
        ),
      );
    });
}
