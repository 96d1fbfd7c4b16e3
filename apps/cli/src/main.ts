/**
 * `main(argv)`: parses the arguments and runs the command they name. The root command runs a session in one
 * of four modes — interactive (on a terminal), print (`-p`, or a prompt piped on stdin), `--mode json`,
 * `--mode rpc` — after choosing the provider (flags, settings, keys in the environment, a local server).
 * Statically this module loads only commander; everything else is imported when a command needs it.
 */
import type { ThinkingLevel } from "@arbor/ai-providers";
import type { PermissionMode } from "@arbor/app-runtime/names";
import type { Command } from "commander";
import { CommanderError } from "commander";
import { flagConflicts, type RawCliOptions } from "./cli-options.js";
import { preloadEsmExternals } from "./esm-externals.js";
import { askYesNo, type CliIo, colorEnabled, processIo } from "./io.js";
import type { OneShotPrompt } from "./modes/one-shot.js";
import { createProgram } from "./program.js";
import { holdTypeahead } from "./ui/typeahead.js";
import { VERSION } from "./version.js";
import { versionLine } from "./version-line.js";

/** Reads a stream to its end as UTF-8. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** True for errors whose message is meant for the user: Arbor's typed errors and failed system calls. */
function isUserFacing(error: unknown): error is Error {
  const marked =
    typeof error === "object" &&
    error !== null &&
    (error as Record<symbol, unknown>)[Symbol.for("arbor.error")] === true;
  if (marked) return true;
  const system = error as NodeJS.ErrnoException | undefined;
  return error instanceof Error && typeof system?.code === "string" && typeof system.syscall === "string";
}

async function usageError(message: string): Promise<never> {
  const { ArborUserError } = await import("@arbor/app-runtime");
  throw new ArborUserError("usage", message);
}

/**
 * The prompt of a one-shot run: `-p`'s text and the words after the flags, then stdin when it is piped —
 * as `piped` (data sent as it is, its `@words` not attached) when there is a prompt before it.
 */
async function promptOf(
  options: RawCliOptions,
  words: readonly string[],
  io: CliIo,
): Promise<OneShotPrompt | undefined> {
  const parts: string[] = [];
  if (typeof options.print === "string") parts.push(options.print);
  if (words.length > 0) parts.push(words.join(" "));
  const given = parts.length > 0 ? parts.join(" ") : undefined;
  const readsStdin = io.stdin.isTTY !== true && (options.print !== undefined || given === undefined);
  if (!readsStdin) return given === undefined ? undefined : { text: given };
  const piped = (await readAll(io.stdin)).replace(/\s+$/, "");
  if (piped === "") return given === undefined ? undefined : { text: given };
  return given === undefined ? { text: piped } : { text: given, piped };
}

/** The flags that choose the provider and model. */
function providerFlags(options: RawCliOptions) {
  return {
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.replay === undefined ? {} : { replay: options.replay }),
  };
}

/** The root command: a session in the mode the flags choose. */
async function runSession(options: RawCliOptions, words: string[], io: CliIo): Promise<number> {
  const problems = flagConflicts(options);
  if (problems.length > 0) await usageError(problems.join("\n"));
  const mode = options.mode ?? "text";
  if (mode === "rpc" && words.length > 0)
    await usageError("--mode rpc takes no prompt: send a prompt command.");
  const oneShot =
    mode !== "rpc" && (options.print !== undefined || io.stdin.isTTY !== true || mode === "json");
  const prompt = oneShot ? await promptOf(options, words, io) : undefined;
  if (oneShot && (prompt === undefined || `${prompt.text}${prompt.piped ?? ""}`.trim() === "")) {
    await usageError(
      mode === "json"
        ? '--mode json needs a prompt: -p "…", or pipe it on stdin.'
        : 'No prompt: give one with -p "…" or on stdin, or run arbor in a terminal for the interactive mode.',
    );
  }

  const [{ createAppRuntime, exitWhenStalled }, { EXPORTERS, PROVIDER_FACTORIES, STORE_FACTORIES }] =
    await Promise.all([import("@arbor/app-runtime"), import("./factories.js")]);
  // Keys typed while the interactive mode starts are held for its editor (not echoed, Enter kept).
  const typeahead = oneShot || mode === "rpc" ? undefined : holdTypeahead(io.stdin);
  try {
    const sessionChoice =
      options.continue === true || options.resume === true
        ? ({ kind: "continue" } as const)
        : typeof options.resume === "string"
          ? ({ kind: "open", reference: options.resume } as const)
          : typeof options.session === "string"
            ? ({ kind: "open-or-create", reference: options.session } as const)
            : options.fork !== undefined
              ? ({ kind: "fork", reference: options.fork } as const)
              : ({ kind: "new" } as const);
    const runtime = await createAppRuntime({
      cwd: io.cwd,
      env: io.env,
      providers: PROVIDER_FACTORIES,
      stores: STORE_FACTORIES,
      exporters: EXPORTERS,
      version: VERSION,
      flags: providerFlags(options),
      ...(options.record === undefined ? {} : { record: options.record }),
      persistent: options.session !== false,
      session: sessionChoice,
      ...(options.store === undefined ? {} : { store: options.store }),
      ...(options.tools === undefined ? {} : { tools: options.tools }),
      extensions: options.extensions === false ? false : (options.extension ?? []),
      ...(options.thinking === undefined ? {} : { thinkingLevel: options.thinking as ThinkingLevel }),
      ...(options.permissions === undefined ? {} : { permissions: options.permissions as PermissionMode }),
      ...(options.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
      ...(options.appendSystemPrompt === undefined ? {} : { appendSystemPrompt: options.appendSystemPrompt }),
      onWarning: (message) => io.stderr.write(`arbor: ${message}\n`),
    });
    // Never Node's silent exit code 13 when the run waits on what cannot happen: a message and exit 1.
    const stalled = exitWhenStalled(runtime, (text) => io.stderr.write(text));
    try {
      if (mode === "rpc") {
        const { runRpcMode } = await import("./modes/rpc-mode.js");
        return await runRpcMode(runtime, io);
      }
      if (prompt !== undefined && mode === "json") {
        const { runJsonMode } = await import("./modes/one-shot.js");
        return await runJsonMode(runtime, prompt, io);
      }
      if (prompt !== undefined) {
        const { runPrintMode } = await import("./modes/one-shot.js");
        return await runPrintMode(runtime, prompt, io);
      }
      const { runInteractive } = await loadInteractiveUi();
      typeahead?.release();
      return await runInteractive(runtime, {
        ...(words.length > 0 ? { initialPrompt: words.join(" ") } : {}),
        stdin: io.stdin as NodeJS.ReadStream,
        stdout: io.stdout as NodeJS.WriteStream,
        stderr: io.stderr as NodeJS.WriteStream,
        color: colorEnabled(io.stdout, io.env),
      });
    } finally {
      await runtime.dispose();
      stalled();
    }
  } finally {
    typeahead?.cancel();
  }
}

/** The `sessions` command with the program's store, settings and summarizer. */
async function sessionsCommandFor(io: CliIo, report: (code: number) => void): Promise<Command> {
  const [{ sessionsCommand }, runtime, { PROVIDER_FACTORIES, STORE_FACTORIES }] = await Promise.all([
    import("./commands/sessions/index.js"),
    import("@arbor/app-runtime"),
    import("./factories.js"),
  ]);
  const home = runtime.resolveArborHome(io.env);
  return sessionsCommand({
    openStore: async (url, options) => {
      let storeUrl = url;
      if (storeUrl === undefined) storeUrl = runtime.loadSettings(home, io.cwd).settings.store;
      return runtime.openStore(storeUrl, {
        ...options,
        env: io.env,
        cwd: io.cwd,
        home,
        stores: STORE_FACTORIES,
      });
    },
    cwd: io.cwd,
    home,
    env: io.env,
    stdout: io.stdout,
    stderr: io.stderr,
    setExitCode: report,
    ...(io.stdin.isTTY === true ? { confirm: (question: string) => askYesNo(io, question) } : {}),
    resolveSummarizer: async (recorded) => {
      // The session's own model first (when its provider has a key here), then the configured default.
      for (const flags of [
        ...(recorded === undefined ? [] : [{ provider: recorded.provider, model: recorded.id }]),
        undefined,
      ]) {
        try {
          const { loaded } = await runtime.setUpProvider({
            cwd: io.cwd,
            env: io.env,
            home,
            providers: PROVIDER_FACTORIES,
            ...(flags === undefined ? {} : { flags }),
          });
          return { stream: loaded.provider.stream.bind(loaded.provider), model: loaded.model };
        } catch {
          // Not available here: the next choice.
        }
      }
      return undefined;
    },
  });
}

function exitOverrideEverywhere(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) exitOverrideEverywhere(sub);
}

/**
 * Runs `arbor` with these arguments (without `node` and the script) and resolves to the exit code.
 *
 * Contract: never rejects for a user's mistake or a situation the user can fix (a bad flag, an invalid
 * settings file, no provider, an unknown session): the message goes to `io.stderr` and the code is 1
 * (commander's usage errors: its code). Other failures are bugs: their stack goes to stderr, code 1.
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let exitCode = 0;
  const report = (code: number) => {
    exitCode = code;
  };
  try {
    // The real `sessions` command loads the store's code: only when it runs, or for completion's script.
    const sessions =
      argv.includes("sessions") || argv[0] === "completion"
        ? await sessionsCommandFor(io, report)
        : undefined;
    const program = createProgram(
      io,
      versionLine(),
      {
        run: (options, words) => runSession(options, words, io),
        models: async (options, globals) => {
          const { runModelsCommand } = await import("./commands/models.js");
          return runModelsCommand(options, globals, io);
        },
        tour: async (options, globals) => {
          const { runTour } = await import("./commands/tour/tour.js");
          return runTour(
            { ...options, ...(globals.store === undefined ? {} : { store: globals.store }) },
            io,
          );
        },
        exit: report,
      },
      sessions,
    );
    exitOverrideEverywhere(program);
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (isUserFacing(error)) {
      io.stderr.write(`arbor: ${error.message}\n`);
      const code = (error as { exitCode?: unknown }).exitCode;
      return typeof code === "number" ? code : 1;
    }
    io.stderr.write(
      `arbor: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

/**
 * Loads the interactive UI with `CI` and `CONTINUOUS_INTEGRATION` hidden for the moment of the import: ink
 * decides when it loads whether it runs in CI, and there renders only the last frame, so a terminal whose
 * shell sets `CI` would show no editor. The variables are back before anything runs (the tools see them).
 */
async function loadInteractiveUi(): Promise<typeof import("./ui/run-interactive.js")> {
  const names = ["CI", "CONTINUOUS_INTEGRATION"] as const;
  const saved = names.map((name) => [name, process.env[name]] as const);
  for (const name of names) delete process.env[name];
  try {
    await preloadEsmExternals();
    return await import("./ui/run-interactive.js");
  } finally {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  }
}
