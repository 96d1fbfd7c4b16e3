/**
 * `arbor sessions recover [<id>|<file>] [--discard]`: applies the recovery files a failed save left (in
 * order, each after the entry it follows, or as a branch when the session moved on), or removes them with
 * `--discard`; without an argument, lists them. The logic is app-runtime's `recoverSessions`.
 */
import { recoverSessions, resolveArborHome } from "@arbor/app-runtime";
import type { Command } from "commander";
import { runAction, type SessionsCommandDeps, withStore, writeLines } from "./context.js";

/** Adds `recover` to the `sessions` command. */
export function addRecoverCommand(parent: Command, deps: SessionsCommandDeps): Command {
  return parent
    .command("recover")
    .description("apply what a failed save kept in a recovery file (--discard: drop it); alone: list them")
    .argument("[session]", "a session id (or unique prefix) or a recovery file's path")
    .option("--discard", "remove the recovery files instead of applying them")
    .action(
      runAction(
        deps,
        "recover",
        async (reference: string | undefined, options: { discard?: boolean }, command: Command) => {
          const home = deps.home ?? resolveArborHome(process.env);
          const discard = options.discard === true;
          await withStore(deps, command, { readOnly: reference === undefined || discard }, async (store) => {
            const given = reference === undefined ? {} : { reference };
            writeLines(deps.stdout, await recoverSessions(store, { home, cwd: deps.cwd, discard, ...given }));
          });
        },
      ),
    );
}
