/**
 * `arbor sessions list [--all] [--json] [--limit N]`: the sessions of the working directory (or of every
 * directory), newest activity first.
 */

import { describeStore, type SessionListItem, sessionListItem } from "@arbor/app-runtime";
import type { SessionStore, SessionSummary } from "@arbor/session-store";
import { clipText, formatTimestamp } from "@arbor/session-view";
import type { Command } from "commander";
import {
  parsePositiveInteger,
  runAction,
  type SessionsCommandDeps,
  withStore,
  writeLines,
} from "./context.js";

/** Sessions listed when `--limit` is not given. */
export const DEFAULT_LIST_LIMIT = 50;

/** Largest page asked of the store at once. */
const PAGE_SIZE = 100;

/**
 * The shortest prefixes (at least `minimum` characters) that tell the ids apart: the characters every id
 * shares with its neighbours in sorted order, plus one. O(n log n).
 */
export function shortIds(ids: readonly string[], minimum = 8): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const common = (a: string | undefined, b: string): number => {
    if (a === undefined) return 0;
    let length = 0;
    while (length < a.length && length < b.length && a[length] === b[length]) length++;
    return length;
  };
  const result = new Map<string, string>();
  sorted.forEach((id, index) => {
    const shared = Math.max(common(sorted[index - 1], id), common(sorted[index + 1], id));
    result.set(id, id.slice(0, Math.max(minimum, shared + 1)));
  });
  return result;
}

/** Reads up to `limit` sessions, page by page; `more` tells whether the store holds further ones. */
async function collect(
  store: SessionStore,
  cwd: string | undefined,
  limit: number,
): Promise<{ sessions: SessionSummary[]; more: boolean }> {
  const sessions: SessionSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listSessions({
      cwd,
      limit: Math.min(PAGE_SIZE, limit - sessions.length),
      cursor,
    });
    sessions.push(...page.sessions);
    cursor = page.nextCursor;
  } while (cursor !== undefined && sessions.length < limit);
  return { sessions, more: cursor !== undefined };
}

/** A directory cut from the left to fit `width` (`…/src/project`). */
function clipLeft(value: string, width: number): string {
  return value.length <= width ? value : `…${value.slice(value.length - width + 1)}`;
}

/** The text table: ID, UPDATED, MSGS, [CWD], TITLE (the name and/or the first message). */
function table(sessions: readonly SessionListItem[], showCwd: boolean): string[] {
  const ids = shortIds(sessions.map((session) => session.id));
  const rows = sessions.map((session) => {
    const title =
      session.name !== null
        ? session.firstMessage === null
          ? session.name
          : `${session.name} — ${session.firstMessage}`
        : (session.firstMessage ?? "(no user message)");
    return {
      id: ids.get(session.id) ?? session.id,
      updated: formatTimestamp(session.updatedAt),
      messages: String(session.messageCount),
      cwd: clipLeft(session.cwd, 40),
      title: clipText(title, 72),
    };
  });
  const width = (key: "id" | "updated" | "messages" | "cwd", heading: string) =>
    rows.reduce((widest, row) => Math.max(widest, row[key].length), heading.length);
  const idWidth = width("id", "ID");
  const updatedWidth = width("updated", "UPDATED");
  const messagesWidth = width("messages", "MSGS");
  const cwdWidth = width("cwd", "CWD");
  const line = (id: string, updated: string, messages: string, cwd: string, title: string) =>
    [
      id.padEnd(idWidth),
      updated.padEnd(updatedWidth),
      messages.padStart(messagesWidth),
      ...(showCwd ? [cwd.padEnd(cwdWidth)] : []),
      title,
    ]
      .join("  ")
      .trimEnd();
  return [
    line("ID", "UPDATED", "MSGS", "CWD", "TITLE"),
    ...rows.map((row) => line(row.id, row.updated, row.messages, row.cwd, row.title)),
  ];
}

/** Adds `list` to the `sessions` command. */
export function addListCommand(parent: Command, deps: SessionsCommandDeps): Command {
  return parent
    .command("list", { isDefault: true })
    .description("list sessions, newest first (those of the current directory unless --all)")
    .option("-a, --all", "list the sessions of every directory")
    .option("--json", "print one JSON array (fields: id, name, cwd, createdAt, updatedAt, messageCount, …)")
    .option(
      "-n, --limit <n>",
      `list at most n sessions (default ${DEFAULT_LIST_LIMIT})`,
      parsePositiveInteger,
    )
    .action(
      runAction(
        deps,
        "list",
        async (options: { all?: boolean; json?: boolean; limit?: number }, command: Command) => {
          const limit = options.limit ?? DEFAULT_LIST_LIMIT;
          const cwd = options.all === true ? undefined : deps.cwd;
          await withStore(deps, command, { readOnly: true }, async (store) => {
            const { sessions, more } = await collect(store, cwd, limit);
            // The one JSON shape of a listed session (`list_sessions` of the protocol answers with it too).
            const listed = sessions.map(sessionListItem);
            if (options.json === true) {
              deps.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
              return;
            }
            if (listed.length === 0) {
              writeLines(deps.stdout, [
                cwd === undefined
                  ? `No sessions in ${describeStore(store)}. Run \`arbor\` to start one.`
                  : `No sessions for ${cwd} in ${describeStore(store)}. ` +
                    "`arbor sessions list --all` lists the sessions of every directory; `arbor` starts one here.",
              ]);
              return;
            }
            const lines = table(listed, cwd === undefined);
            if (more) lines.push(`(newest ${listed.length} shown; more with --limit ${limit * 2})`);
            writeLines(deps.stdout, lines);
          });
        },
      ),
    );
}
