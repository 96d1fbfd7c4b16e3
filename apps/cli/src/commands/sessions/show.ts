/**
 * `arbor sessions show <id|path> [--tree]`: a session's header facts, then its current branch as readable
 * text (the newest entries, `--limit`), or with `--tree` the whole tree as an outline (retried failures
 * hidden unless `--all`).
 */

import { type ResolvedSession, resolveEntryReference, type TreeStats, treeStats } from "@arbor/app-runtime";
import { type Session, summarizeSessionNotices } from "@arbor/session-store";
import {
  countOf,
  entryTextLines,
  formatCount,
  formatTimestamp,
  treeTextLines,
  viewEntry,
  withoutRetriedFailures,
} from "@arbor/session-view";
import { type Command, InvalidArgumentError as CommanderArgumentError } from "commander";
import { runAction, type SessionsCommandDeps, withSession, writeLines } from "./context.js";

/** Entries of the branch shown when `--limit` is not given (the newest ones). */
export const DEFAULT_SHOW_LIMIT = 100;

/** The facts at the top of `show`: id, name, directory, dates, file, counts, model, warnings. */
export function sessionHeaderLines(
  session: Session,
  resolved: ResolvedSession,
  stats: TreeStats,
  /** True when only part of the session was read: the warnings and notes are those of that part. */
  partial = false,
): string[] {
  const rows: [string, string][] = [["Session", session.id]];
  if (session.name !== undefined) rows.push(["Name", session.name]);
  rows.push(["Directory", session.cwd]);
  rows.push(["Created", formatTimestamp(session.header.timestamp)]);
  if (session.header.parentSession !== undefined) rows.push(["Forked from", session.header.parentSession]);
  if (resolved.location !== undefined) {
    rows.push([
      "File",
      resolved.external ? `${resolved.location} (outside the store; read-only)` : resolved.location,
    ]);
  }
  const branches = stats.leaves === 1 ? "1 branch" : `${formatCount(stats.leaves)} branches`;
  rows.push([
    "Entries",
    `${formatCount(stats.entries)} (${countOf(stats.messages, "message")}), ${branches}, leaf ${session.leafId ?? "(none)"}`,
  ]);
  // The model and thinking level at the leaf, as a resumed session takes them (what `buildContext` reports).
  const { model, thinkingLevel } = session.settingsAt();
  if (model !== undefined || thinkingLevel !== undefined) {
    const modelName = model === undefined ? "" : `${model.provider}/${model.modelId}`;
    const thinking = thinkingLevel === undefined ? "" : `thinking ${thinkingLevel}`;
    rows.push(["Model", [modelName, thinking].filter((part) => part !== "").join(", ")]);
  }
  // One line per kind (see `Session.warnings`); fields filled in while reading are notes, not warnings.
  const read = partial ? " (in the entries shown; --limit all reads them all)" : "";
  for (const warning of session.warnings) rows.push(["Warning", warning]);
  for (const note of summarizeSessionNotices(session.notices, "note")) rows.push(["Note", `${note}${read}`]);
  const width = Math.max(...rows.map(([key]) => key.length)) + 2;
  return rows.map(([key, value]) => `${key.padEnd(width)}${value}`);
}

/** `--limit`: a positive integer or `all`. */
function parseLimit(value: string): number {
  if (value === "all") return Number.POSITIVE_INFINITY;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new CommanderArgumentError('expected a positive integer or "all".');
  return number;
}

/** The branch ending at `leafId` as text: its newest `limit` entries, each with its content. */
export function branchTextLines(
  session: Session,
  leafId: string | null,
  options: { limit: number; full: boolean },
): string[] {
  const path = session.getPath(leafId);
  if (path.length === 0) return ["(the branch is empty)"];
  const shown = Number.isFinite(options.limit) ? path.slice(-options.limit) : path;
  const lines = [`Branch to ${leafId} (${countOf(path.length, "entry", "entries")}):`, ""];
  const omitted = path.length - shown.length;
  if (omitted > 0) {
    lines.push(`… ${formatCount(omitted)} earlier entries not shown (--limit all shows them)`, "");
  }
  for (const ref of shown) {
    const view = viewEntry(ref.entry(), ref);
    lines.push(
      ...entryTextLines(view, { full: options.full, label: ref.label, leaf: ref.id === session.leafId }),
      "",
    );
  }
  lines.pop();
  return lines;
}

/** Adds `show` to the `sessions` command. */
export function addShowCommand(parent: Command, deps: SessionsCommandDeps): Command {
  return parent
    .command("show")
    .description("show a session: its facts and current branch, or with --tree its whole tree")
    .argument("<session>", "a session id (or a unique prefix) or a path to a .jsonl session file")
    .option("-t, --tree", "print the whole tree, one line per entry")
    .option("--leaf <entry>", "show the branch ending at this entry instead of the current one")
    .option(
      "-n, --limit <n>",
      `show the newest n entries of the branch, or "all" (default ${DEFAULT_SHOW_LIMIT})`,
      parseLimit,
    )
    .option("--full", "print long tool output, summaries and thinking whole")
    .option("--no-fold", "with --tree: print every entry (long plain spans are folded by default)")
    .option("-a, --all", "with --tree: also print retried failures (hidden by default)")
    .action(
      runAction(
        deps,
        "show",
        async (
          reference: string,
          options: {
            tree?: boolean;
            leaf?: string;
            limit?: number;
            full?: boolean;
            fold: boolean;
            all?: boolean;
          },
          command: Command,
        ) => {
          await withSession(deps, command, reference, { readOnly: true }, async (session, resolved) => {
            const roots = session.getTree();
            // The body first: the warnings above it then include what reading it found.
            const lines: string[] = [];
            let partial = false;
            if (options.tree === true) {
              const pruned = options.all === true ? undefined : withoutRetriedFailures(roots);
              lines.push(...treeTextLines(session, { fold: options.fold, roots: pruned?.roots ?? roots }));
              if (pruned !== undefined && pruned.hiddenFailures > 0) {
                lines.push(
                  "",
                  `(${countOf(pruned.hiddenFailures, "retried failure")} hidden: ${countOf(pruned.hiddenEntries, "entry", "entries")}; --all shows them)`,
                );
              }
            } else {
              const leafId =
                options.leaf === undefined ? session.leafId : resolveEntryReference(session, options.leaf);
              const limit = options.limit ?? DEFAULT_SHOW_LIMIT;
              lines.push(...branchTextLines(session, leafId, { limit, full: options.full === true }));
              partial = limit < session.getPath(leafId).length;
            }
            const header = sessionHeaderLines(session, resolved, treeStats(roots), partial);
            writeLines(deps.stdout, [...header, "", ...lines]);
          });
        },
      ),
    );
}
