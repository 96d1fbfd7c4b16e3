/**
 * `arbor eval compaction [sessions…] [--summarizer provider/model] [--recall] [--generate N] [--pruning]
 * [--json]`: compacts each session's current branch and scores the result with `@arbor/compaction/eval` —
 * artifact retention, continuation, compression, and (with `--recall` and a real `--summarizer`) recall
 * probes. Without `--summarizer` each session is compacted twice, offline: by the extractive (scripted)
 * summarizer and by the deterministic fallback. `--pruning` also handles each session without and with the
 * pruning layer (`comparePruning`) and prints that comparison. Session files are opened read-only through
 * the JSONL store; nothing is written. See docs/compaction-eval.md.
 *
 * Statically this module loads commander only; the action imports what it needs.
 */
import { type Command, InvalidArgumentError } from "commander";
import { PROVIDER_FACTORIES, STORE_FACTORIES } from "../factories.js";
import type { CliIo } from "../io.js";

/** Options of the command. */
interface EvalCompactionOptions {
  summarizer?: string;
  recall?: boolean;
  generate?: number;
  pruning?: boolean;
  json?: boolean;
}

function parseTurns(value: string): number {
  const turns = Number(value);
  if (!Number.isInteger(turns) || turns < 1 || turns > 100_000) {
    throw new InvalidArgumentError("expected a number of turns from 1 to 100000");
  }
  return turns;
}

/**
 * Adds `eval compaction` to the program; `exit` receives the exit code (0; 1 for a session file that cannot
 * be read, a summarizer that cannot be loaded, or nothing to evaluate, with one message on stderr).
 */
export function addEvalCommand(program: Command, io: CliIo, exit: (code: number) => void): void {
  const evalCommand = program.command("eval").description("evaluate Arbor's machinery on sessions");
  evalCommand
    .command("compaction")
    .description("compact session files and score artifact retention, continuation and compression")
    .argument("[sessions...]", "session files (.jsonl)")
    .option(
      "--summarizer <provider/model>",
      "summarize with this model (default: offline extractive + fallback)",
    )
    .option("--recall", "also ask recall probes of the --summarizer model, from the compacted context only")
    .option("--generate <turns>", "also evaluate a generated coding session of this many turns", parseTurns)
    .option("--pruning", "also compare each session without and with pruning old tool results first")
    .option("--json", "print the results as JSON")
    .exitOverride()
    .action(async (sessions: string[], options: EvalCompactionOptions) => {
      try {
        exit(await runEvalCompaction(sessions, options, io));
      } catch (error) {
        const marked =
          typeof error === "object" &&
          error !== null &&
          (error as Record<symbol, unknown>)[Symbol.for("arbor.error")] === true;
        const system = error as NodeJS.ErrnoException;
        if (!marked && typeof system?.syscall !== "string") throw error;
        io.stderr.write(`arbor eval compaction: ${(error as Error).message}\n`);
        exit(1);
      }
    });
}

async function runEvalCompaction(
  paths: string[],
  options: EvalCompactionOptions,
  io: CliIo,
): Promise<number> {
  const [evaluation, { MemorySessionStore, Session }, { resolveSessionReference }] = await Promise.all([
    import("@arbor/compaction/eval"),
    import("@arbor/session-store"),
    import("@arbor/app-runtime"),
  ]);
  if (paths.length === 0 && options.generate === undefined) {
    io.stderr.write(
      "arbor eval compaction: give session files (e.g. ~/.arbor/sessions/*/*.jsonl) or --generate <turns>.\n",
    );
    return 1;
  }
  if (options.recall === true && options.summarizer === undefined) {
    io.stderr.write("arbor eval compaction: --recall needs a real model: add --summarizer provider/model.\n");
    return 1;
  }
  const sessions: { name: string; entries: import("@arbor/session-store").SessionEntry[] }[] = [];
  const noStore = new MemorySessionStore();
  for (const path of paths) {
    const resolved = await resolveSessionReference(noStore, path, { cwd: io.cwd, stores: STORE_FACTORIES });
    try {
      const session = await Session.open(resolved.store, resolved.sessionId);
      sessions.push({ name: path.split(/[\\/]/).at(-1) ?? path, entries: session.getBranch() });
    } finally {
      await resolved.release();
    }
  }
  if (options.generate !== undefined) {
    sessions.push({
      name: `generated-${options.generate}-turns`,
      entries: evaluation.generateLongSession(options.generate),
    });
  }

  const runs: { summarizer?: import("@arbor/compaction").SummarizerTarget; recall: boolean }[] = [];
  if (options.summarizer !== undefined) {
    runs.push({ summarizer: await loadSummarizer(options.summarizer, io), recall: options.recall === true });
  } else {
    runs.push({ summarizer: evaluation.createExtractiveSummarizer(), recall: false }, { recall: false });
  }
  const results: import("@arbor/compaction/eval").SessionEvalResult[] = [];
  const pruning: import("@arbor/compaction/eval").PruneComparison[] = [];
  for (const session of sessions) {
    for (const run of runs) {
      const summarizer = run.summarizer === undefined ? {} : { summarizer: run.summarizer };
      results.push(
        await evaluation.evaluateCompaction(session, {
          ...summarizer,
          ...(run.recall && run.summarizer !== undefined ? { recall: { answerer: run.summarizer } } : {}),
        }),
      );
      if (options.pruning === true) pruning.push(await evaluation.comparePruning(session, summarizer));
    }
  }
  const table = `${evaluation.formatEvalTable(results)}\n`;
  const comparison = pruning.length === 0 ? "" : `\n${evaluation.formatPruneComparisonTable(pruning)}\n`;
  io.stdout.write(
    options.json === true
      ? `${JSON.stringify(pruning.length === 0 ? results : { results, pruning }, null, 2)}\n`
      : table + comparison,
  );
  return 0;
}

/** The model `--summarizer provider/model` names, with the settings, models file and keys of a session. */
async function loadSummarizer(reference: string, io: CliIo) {
  const { resolveArborHome, setUpProvider } = await import("@arbor/app-runtime");
  const { loaded } = await setUpProvider({
    cwd: io.cwd,
    env: io.env,
    home: resolveArborHome(io.env),
    providers: PROVIDER_FACTORIES,
    flags: summarizerFlags(reference),
  });
  return { model: loaded.model, stream: loaded.provider.stream.bind(loaded.provider) };
}

/** `provider/model` as the flags `--provider provider --model model`; a bare id names only the model. */
function summarizerFlags(reference: string): { provider?: string; model: string } {
  const slash = reference.indexOf("/");
  if (slash <= 0 || slash === reference.length - 1) return { model: reference };
  return { provider: reference.slice(0, slash), model: reference.slice(slash + 1) };
}
