/**
 * `arbor sessions delete <session…> [--yes]` and `arbor sessions prune --older-than AGE [--cwd DIR | --all]
 * [--dry-run] [--yes]`: remove sessions from the store. Both list what they would delete and ask first (a
 * terminal) or need `--yes` (a script); a session another process is writing is refused, never deleted.
 */
import { resolve } from "node:path";
import {
  ArborUserError,
  deleteSessions,
  parseAge,
  resolveSessionReference,
  type SessionDeletion,
  sessionsToPrune,
} from "@arbor/app-runtime";
import type { SessionStore, SessionSummary } from "@arbor/session-store";
import { clipText, formatTimestamp, messageText } from "@arbor/session-view";
import { type Command, InvalidArgumentError } from "commander";
import { STORE_FACTORIES } from "../../factories.js";
import { runAction, type SessionsCommandDeps, withStore, writeLines } from "./context.js";

/** One line per session: id, last activity, messages, name or directory. */
function describe(session: SessionSummary): string {
  const title = session.name ?? session.firstMessage?.replace(/\s+/g, " ") ?? session.cwd;
  return `  ${session.id}  ${formatTimestamp(session.updatedAt)}  ${session.messageCount} msgs  ${clipText(title, 60)}`;
}

/** Asks before deleting (or requires `--yes`); false when the user said no. */
async function confirmed(deps: SessionsCommandDeps, count: number, yes: boolean): Promise<boolean> {
  if (yes) return true;
  const what = count === 1 ? "this session" : `these ${count} sessions`;
  if (deps.confirm === undefined) {
    throw new ArborUserError("usage", `Nothing deleted: add --yes to delete ${what} without being asked.`);
  }
  return deps.confirm(`Delete ${what}? This cannot be undone. [y/N] `);
}

/** Deletes `sessions` after listing them and asking; reports what was deleted and what was refused. */
async function deleteListed(
  deps: SessionsCommandDeps,
  store: SessionStore,
  sessions: readonly SessionSummary[],
  yes: boolean,
): Promise<void> {
  writeLines(deps.stdout, sessions.map(describe));
  if (!(await confirmed(deps, sessions.length, yes))) {
    writeLines(deps.stdout, ["Nothing deleted."]);
    return;
  }
  report(
    deps,
    await deleteSessions(
      store,
      sessions.map((session) => session.id),
    ),
  );
}

function report(deps: SessionsCommandDeps, result: SessionDeletion): void {
  const count = result.deleted.length;
  writeLines(deps.stdout, [`Deleted ${count} session${count === 1 ? "" : "s"}.`]);
  writeLines(
    deps.stderr,
    result.refused.map((refusal) => `arbor sessions: not deleted ${refusal.id}: ${refusal.reason}`),
  );
  if (result.refused.length > 0) {
    if (deps.setExitCode !== undefined) deps.setExitCode(1);
    else process.exitCode = 1;
  }
}

/** Commander parser of `--older-than`. */
function ageOption(value: string): number {
  const age = parseAge(value);
  if (age === undefined) throw new InvalidArgumentError("expected an age such as 90m, 12h, 30d or 8w.");
  return age;
}

/** Adds `delete` and `prune` to the `sessions` command. */
export function addDeleteCommands(command: Command, deps: SessionsCommandDeps): void {
  command
    .command("delete")
    .description("delete sessions (ids, id prefixes or files in the store), after asking")
    .argument("<sessions...>", "the sessions to delete")
    .option("-y, --yes", "delete without asking")
    .action(
      runAction(deps, "delete", async (references: string[], options: { yes?: boolean }, sub: Command) => {
        await withStore(deps, sub, { readOnly: false }, async (store) => {
          const sessions: SessionSummary[] = [];
          for (const reference of references) {
            const resolved = await resolveSessionReference(store, reference, {
              cwd: deps.cwd,
              stores: STORE_FACTORIES,
            });
            await resolved.release();
            if (resolved.external) {
              throw new ArborUserError(
                "usage",
                `${reference} is a file outside the store: delete it as a file.`,
              );
            }
            sessions.push(await summaryOf(store, resolved.sessionId));
          }
          await deleteListed(deps, store, sessions, options.yes === true);
        });
      }),
    );
  command
    .command("prune")
    .description("delete the sessions older than an age (this directory's, or --all), after asking")
    .requiredOption("--older-than <age>", "last activity older than this: 90m, 12h, 30d, 8w", ageOption)
    .option("--cwd <dir>", "the sessions of this directory (default: the current one)")
    .option("--all", "the sessions of every directory")
    .option("--dry-run", "only list what would be deleted")
    .option("-y, --yes", "delete without asking")
    .action(
      runAction(
        deps,
        "prune",
        async (
          options: { olderThan: number; cwd?: string; all?: boolean; dryRun?: boolean; yes?: boolean },
          sub: Command,
        ) => {
          if (options.all === true && options.cwd !== undefined) {
            throw new ArborUserError("usage", "Give --cwd or --all, not both.");
          }
          const cwd = options.all === true ? undefined : resolve(deps.cwd, options.cwd ?? ".");
          await withStore(deps, sub, { readOnly: options.dryRun === true }, async (store) => {
            const sessions = await sessionsToPrune(store, {
              olderThanMs: options.olderThan,
              ...(cwd === undefined ? {} : { cwd }),
            });
            const where = cwd === undefined ? "in any directory" : `of ${cwd}`;
            if (sessions.length === 0) {
              writeLines(deps.stdout, [`No session ${where} is that old.`]);
              return;
            }
            if (options.dryRun === true) {
              writeLines(deps.stdout, [
                ...sessions.map(describe),
                `${sessions.length} would be deleted (--dry-run).`,
              ]);
              return;
            }
            await deleteListed(deps, store, sessions, options.yes === true);
          });
        },
      ),
    );
}

/** The listing line of one session (its id is known to exist). */
async function summaryOf(store: SessionStore, sessionId: string): Promise<SessionSummary> {
  const { header, entries } = await store.readSession(sessionId);
  const messages = entries.filter((stored) => stored.type === "message").map((stored) => stored.entry());
  const firstUser = messages.find((entry) => entry.type === "message" && entry.message.role === "user");
  const firstMessage = firstUser?.type === "message" ? messageText(firstUser.message) : "";
  return {
    id: header.id,
    cwd: header.cwd,
    createdAt: header.timestamp,
    updatedAt: entries.at(-1)?.entry().timestamp ?? header.timestamp,
    messageCount: messages.length,
    ...(firstMessage === "" ? {} : { firstMessage }),
  };
}
