/**
 * The commander program of `arbor`: the root command's flags and the subcommands (`sessions`, `models`,
 * `tour`). Defining it loads commander only; every action imports what it needs when it runs.
 */
import { Command, Option } from "commander";
import {
  collect,
  OUTPUT_MODES,
  parsePermissionMode,
  parseThinkingLevel,
  parseToolList,
  type RawCliOptions,
} from "./cli-options.js";
import { addCompletionCommand } from "./commands/completion.js";
import { addDemoCommand } from "./commands/demo.js";
import { addEvalCommand } from "./commands/eval-compaction.js";
import { addExtensionsCommand } from "./commands/extensions.js";
import { addMcpCommand } from "./commands/mcp.js";
import type { CliIo } from "./io.js";

/** What the program's actions call; `main.ts` implements them. */
export interface ProgramActions {
  /** The root command: a session in one of the modes. */
  run(options: RawCliOptions, promptWords: string[]): Promise<number>;
  models(options: { json?: boolean; all?: boolean }, globals: RawCliOptions): Promise<number>;
  tour(options: { pace?: number }, globals: RawCliOptions): Promise<number>;
  /**
   * Receives the exit code of the action that ran.
   *
   * Contract: must not throw.
   */
  exit(code: number): void;
}

function parseNonNegativeInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new Error("expected a whole number of milliseconds");
  return number;
}

const EXAMPLES = `
Examples:
  arbor                                   interactive session (on a terminal)
  arbor -p "explain src/index.ts"         print the answer and exit
  git diff | arbor -p "review this"       the prompt can come on stdin (appended to -p's text)
  arbor --mode json -p "run the tests"    one JSON event per line
  arbor --mode rpc                        JSON-lines commands on stdin (see the README)
  arbor -c                                continue the newest session of this directory
  arbor -r 0193ab --provider anthropic    resume a session with another provider
  arbor --provider scripted -p help       the offline scripted model (no key)
  arbor tour                              an offline tour of everything Arbor does
  arbor sessions list                     the sessions of this directory

Environment:
  ANTHROPIC_API_KEY, OPENAI_API_KEY       keys of the built-in providers (presets: OPENROUTER_API_KEY,
                                          GROQ_API_KEY, DEEPSEEK_API_KEY, VLLM_API_KEY; models.json: apiKeyEnv)
  ANTHROPIC_BASE_URL, OPENAI_BASE_URL     another endpoint for --provider anthropic / openai
  ARBOR_LOCAL_SERVER_URL                  the local server tried without a key (default
                                          http://127.0.0.1:11434/v1, Ollama's)
  ARBOR_HOME                              settings, models.json, sessions, extensions (default ~/.arbor)
  ARBOR_COMPILE_CACHE                     the compiled CLI's cache (default ~/.cache/arbor; off: none)
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY       a proxy for every provider and MCP request
  NO_COLOR, FORCE_COLOR                   colours off / on

Reference: https://github.com/arbor-dev/arbor/blob/main/docs/reference/cli.md`;

/**
 * The program, with its output going to `io`. `version` answers `-v`; `actions` run the commands. The real
 * `sessions` command is passed in when the arguments name it (it loads the session store); otherwise a
 * placeholder keeps it in the help.
 *
 * Contract: `exitOverride()` is set on the program and the commands defined here, so commander throws
 * `CommanderError` instead of exiting.
 */
export function createProgram(
  io: CliIo,
  version: string,
  actions: ProgramActions,
  sessions?: Command,
): Command {
  const program = new Command("arbor")
    .description("Arbor: a coding agent whose sessions are trees — resume, fork, compact and summarize them.")
    .version(version, "-v, --version", "print the version")
    .helpOption("-h, --help", "show this help")
    .argument("[prompt...]", "the first prompt (interactive) or the prompt (print mode)")
    .option(
      "--provider <name>",
      "anthropic, openai, ollama, vllm, llama-cpp, lm-studio, openrouter, groq, deepseek, scripted, or one of models.json",
    )
    .option("--model <provider/id>", "the model, e.g. anthropic/claude-sonnet-5-5 (or an id of --provider)")
    .option("--base-url <url>", "an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    .option("--api-key <key>", "the API key (default: the provider's environment variable; never saved)")
    .option(
      "--thinking <level>",
      "thinking level: off, minimal, low, medium, high, xhigh",
      parseThinkingLevel,
    )
    .option(
      "--permissions <mode>",
      "auto (default: every tool runs), ask (ask before write, edit, bash, MCP), edits (ask for bash, MCP), plan (read-only)",
      parsePermissionMode,
    )
    .option(
      "--tools <list>",
      "only these tools (comma-separated: read,write,edit,bash,ls,grep,find,recall, mcp__<server>[__<tool>])",
      parseToolList,
    )
    .option("--no-tools", "no tools at all")
    .option("--extension <path>", "load an extension file (repeatable)", collect)
    .option("--no-extensions", "load no extensions (not even ~/.arbor/extensions, .arbor/extensions)")
    .option("-c, --continue", "continue the newest session of this directory")
    .option(
      "-r, --resume [session]",
      "resume a session (id, unique id prefix, or .jsonl path); alone: the newest",
    )
    .option(
      "--session <session>",
      "use this session (id or path), creating it with this id when there is none",
    )
    .option("--no-session", "do not save the session (kept in memory only)")
    .option("--fork <session>", "start a new session holding another session's current branch")
    .option("--store <url>", "the session store: jsonl:DIR (default $ARBOR_HOME, else ~/.arbor)")
    .option("--record <file>", "append every model interaction to a cassette file")
    .option("--replay <file>", "answer from a cassette file instead of a provider (offline)")
    .option("--system-prompt <text>", "replace the role statement and guidelines of the system prompt")
    .option("--append-system-prompt <text>", "add text at the end of the system prompt")
    .addOption(
      new Option("--mode <mode>", "output: text, json (events as JSON lines) or rpc").choices(OUTPUT_MODES),
    )
    .option("-p, --print [prompt]", "print the final answer and exit (the prompt: this text, then stdin)")
    .addHelpText("after", EXAMPLES)
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .showHelpAfterError("(arbor --help shows the usage)")
    .exitOverride()
    .action(async (words: string[], options: RawCliOptions) => {
      actions.exit(await actions.run(options, words));
    });

  program
    .command("models")
    .description("list the models of the configured providers (the default marked *)")
    .option("--json", "one JSON object per model")
    .option("--all", "also the catalogs of providers without a key")
    .exitOverride()
    .action(async (options: { json?: boolean; all?: boolean }, command: Command) => {
      actions.exit(await actions.models(options, command.optsWithGlobals() as RawCliOptions));
    });

  program
    .command("tour")
    .description("an offline tour: a scripted session through the real harness, tools and store (no key)")
    .option(
      "--pace <ms>",
      "pause between streamed chunks (default 6; 0: as fast as possible)",
      parseNonNegativeInteger,
    )
    .exitOverride()
    .action(async (options: { pace?: number }, command: Command) => {
      actions.exit(await actions.tour(options, command.optsWithGlobals() as RawCliOptions));
    });

  addEvalCommand(program, io, (code) => actions.exit(code));
  addDemoCommand(program, io, (code) => actions.exit(code));
  addExtensionsCommand(program, io, (code) => actions.exit(code));
  addMcpCommand(program, io, (code) => actions.exit(code));
  if (sessions !== undefined) program.addCommand(sessions);
  else program.command("sessions").description("list, show, export, import, compare and merge sessions");
  addCompletionCommand(program, io, (code) => actions.exit(code));
  return program;
}
