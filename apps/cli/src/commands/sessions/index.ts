/**
 * `arbor sessions …`: list, show, export, import, diff and merge sessions. `sessionsCommand(deps)` builds
 * the commander command; the program mounts it with `program.addCommand(sessionsCommand(deps))`.
 */
import { Command } from "commander";
import type { SessionsCommandDeps } from "./context.js";
import { addCopyCommand } from "./copy.js";
import { addDeleteCommands } from "./delete.js";
import { addDiffCommand } from "./diff.js";
import { addExportCommand } from "./export.js";
import { addImportCommand } from "./import.js";
import { addListCommand } from "./list.js";
import { addMergeCommand } from "./merge.js";
import { addRecoverCommand } from "./recover.js";
import { addShowCommand } from "./show.js";

export type { SessionsCommandDeps, SummarizerChoice } from "./context.js";

/**
 * The `sessions` command and its subcommands (`list` is the default):
 *
 * - `list [--all] [--json] [--limit N]`
 * - `show <id|path> [--tree] [--leaf E] [--limit N|all] [--full] [--no-fold]`
 * - `export <id|path> --format html|md|jsonl [-o FILE] [--leaf E]`
 * - `import <file> [--cwd DIR] [--dry-run]`
 * - `diff <a> <b> [--json] [--limit N]` (sides: `<session>[@<entry>]`, or `@<entry>` in a's session)
 * - `copy --from <url> --to <url> [ids…]` (every session of `--from` without ids)
 * - `merge <branch-leaf> [--into <leaf>] [--session S] [--no-summarize] [--message TEXT]`
 * - `recover [<id>|<file>] [--discard]` (what a failed save kept; alone: the list)
 * - `delete <session…> [--yes]` and `prune --older-than AGE [--cwd DIR|--all] [--dry-run] [--yes]`
 *
 * Every subcommand reads `--store <url>` from itself or a parent command (`optsWithGlobals`), so a global
 * `--store` on the program works too. Help and commander's own messages go to `deps.stdout` /
 * `deps.stderr`.
 *
 * Contract: an action never throws for a user's mistake or a situation the user can fix (an unknown
 * session, an ambiguous prefix, a locked session, an unreadable file, a store URL not available yet): it
 * writes `arbor sessions <name>: <message>` to `deps.stderr` and reports exit code 1 through
 * `deps.setExitCode` (default: `process.exitCode = 1`). Anything else is a bug and is rethrown. Commander's
 * usage errors (a missing argument, an unknown option) follow commander's rules: message on stderr, then
 * `process.exit(1)` unless the caller set `exitOverride()`.
 */
export function sessionsCommand(deps: SessionsCommandDeps): Command {
  const command = new Command("sessions")
    .description("list, show, export, import, copy, compare, merge, recover, delete and prune sessions")
    .option("--store <url>", "the session store: jsonl:DIR (default: $ARBOR_HOME, else ~/.arbor)")
    .configureOutput({
      writeOut: (text) => deps.stdout.write(text),
      writeErr: (text) => deps.stderr.write(text),
    })
    .showHelpAfterError("(arbor sessions --help shows the usage)");
  addListCommand(command, deps);
  addShowCommand(command, deps);
  addExportCommand(command, deps);
  addImportCommand(command, deps);
  addDiffCommand(command, deps);
  addMergeCommand(command, deps);
  addCopyCommand(command, deps);
  addRecoverCommand(command, deps);
  addDeleteCommands(command, deps);
  // `list` is the default: a word that names no subcommand would reach it as an argument.
  command.hook("preSubcommand", (parent, sub) => {
    const word = parent.args[0];
    if (word === undefined || word.startsWith("-") || word === sub.name()) return;
    const names = parent.commands.map((candidate) => candidate.name()).join(", ");
    parent.error(`arbor sessions: unknown subcommand "${word}"; choose one of ${names}`, {
      exitCode: 1,
      code: "arbor.unknownSubcommand",
    });
  });
  return command;
}
