/**
 * `arbor sessions merge <branch-leaf> --into <leaf>`: folds what a branch concluded into another branch as
 * a `branch_summary` entry appended after `<leaf>` (its `fromId` is the merged branch's leaf), so the
 * conversation continues from there knowing what the other branch found. The merged branch's entries stay
 * in the log; the session's leaf becomes the new summary.
 *
 * The summary comes from compaction's `generateBranchSummary` with the model `resolveSummarizer` gives; with
 * `--no-summarize`, or no model, it is a deterministic digest (the branch's last assistant text and its file
 * operations), marked as such. The entry is written through `Session.flush`, so the store's lock and its
 * last-entry check apply: a session another process is writing to is refused, not corrupted.
 */

import { ArborUserError, resolveEntryReference, resolveSessionReference } from "@arbor/app-runtime";
import {
  type BranchSummaryDetails,
  collectEntriesForBranchSummary,
  entryMessage,
  FileOperationTracker,
  formatFileOperations,
  generateBranchSummary,
  truncateMiddle,
} from "@arbor/compaction";
import { Session, type SessionEntry, type SessionStore } from "@arbor/session-store";
import { countOf } from "@arbor/session-view";
import type { Command } from "commander";
import { STORE_FACTORIES } from "../../factories.js";
import {
  runAction,
  type SessionsCommandDeps,
  type SummarizerChoice,
  withStore,
  writeLines,
} from "./context.js";
import { parseSideReference } from "./diff.js";

/** Longest last-assistant text kept in a deterministic merge summary. */
const MAX_DIGEST_CHARS = 6_000;

/** What a merge records in the summary entry's `details.merge`. */
export interface MergeDetails {
  sourceLeafId: string;
  targetLeafId: string;
  commonAncestorId: string | null;
  /** Entries of the merged branch (after the common ancestor). */
  entries: number;
  /** `model`: summarized by a model; `deterministic`: the digest without one. */
  summarizedBy: "model" | "deterministic";
}

/** The file operations of a branch's entries (tool calls that failed are skipped; earlier summaries' lists kept). */
function branchFiles(entries: readonly SessionEntry[]): string {
  const failed = new Set<string>();
  for (const entry of entries) {
    const message = entryMessage(entry);
    if (message?.role === "toolResult" && message.isError) failed.add(message.toolCallId);
  }
  const files = new FileOperationTracker();
  for (const entry of entries) {
    if (entry.type === "branch_summary" || entry.type === "compaction") files.addDetails(entry.details);
    const message = entryMessage(entry);
    if (message !== undefined) files.addMessage(message, failed);
  }
  return formatFileOperations(files.result());
}

/**
 * The summary without a model: a marker line, the branch's last assistant text (cut to 6,000 characters),
 * and its file operations.
 *
 * Contract: pure; deterministic.
 */
export function deterministicMergeSummary(entries: readonly SessionEntry[], sourceLeafId: string): string {
  let last: string | undefined;
  for (let index = entries.length - 1; index >= 0 && last === undefined; index--) {
    const message = entryMessage(entries[index]!);
    if (message?.role !== "assistant") continue;
    const text = message.content
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("\n")
      .trim();
    if (text !== "") last = text;
  }
  return (
    [
      `[Merged without a model: the last assistant message of branch ${sourceLeafId} and its file operations. ` +
        `The branch's ${countOf(entries.length, "entry", "entries")} are still in the session log.]`,
      "",
      "## Last assistant message",
      last === undefined
        ? "(none: the branch holds no assistant text)"
        : truncateMiddle(last, MAX_DIGEST_CHARS),
    ].join("\n") + branchFiles(entries)
  );
}

interface MergeOptions {
  into: string;
  session?: string;
  summarize: boolean;
  message?: string;
}

/** The session a merge works on: `--session`, else `<session>@<entry>` in the branch argument, else the cwd's latest. */
async function sessionReference(
  store: SessionStore,
  branch: string,
  options: MergeOptions,
  deps: SessionsCommandDeps,
): Promise<{ session: string; branchEntry: string }> {
  const side = parseSideReference(branch, deps.cwd);
  if (options.session !== undefined) return { session: options.session, branchEntry: side.entry ?? branch };
  if (side.session !== undefined && side.entry !== undefined)
    return { session: side.session, branchEntry: side.entry };
  const latest = (await store.listSessions({ cwd: deps.cwd, limit: 1 })).sessions[0];
  if (latest === undefined) {
    throw new ArborUserError(
      "command_failed",
      `No session in ${deps.cwd} to merge in; name one with --session <id|path> (or <session>@<entry>).`,
    );
  }
  deps.stderr.write(`Using the latest session of ${deps.cwd}: ${latest.id} (--session picks another).\n`);
  return { session: latest.id, branchEntry: branch };
}

/** Summarizes the branch with the model, or undefined when the model gave nothing usable. */
async function modelSummary(
  entries: readonly SessionEntry[],
  summarizer: SummarizerChoice,
): Promise<{ summary: string; details: BranchSummaryDetails } | undefined> {
  const outcome = await generateBranchSummary(entries, {
    stream: summarizer.stream,
    model: summarizer.model,
  });
  if (outcome.kind === "aborted")
    throw new ArborUserError("command_failed", `Summarizing the branch was aborted: ${outcome.message}`);
  return outcome.kind === "summarized" ? { summary: outcome.summary, details: outcome.details } : undefined;
}

/** Adds `merge` to the `sessions` command. */
export function addMergeCommand(parent: Command, deps: SessionsCommandDeps): Command {
  return parent
    .command("merge")
    .description("fold a branch's conclusion into another branch as a summary entry")
    .argument("<branch-leaf>", "the last entry of the branch to fold in ([<session>@]<entry>)")
    .requiredOption(
      "--into <leaf>",
      "the entry of the branch that receives the summary (it continues from it)",
    )
    .option("-s, --session <session>", "the session (default: the latest session of the current directory)")
    .option("--no-summarize", "do not ask a model: use the branch's last assistant text and file operations")
    .option("-m, --message <text>", "a note put first in the summary, like a merge commit's message")
    .action(
      runAction(deps, "merge", async (branch: string, options: MergeOptions, command: Command) => {
        await withStore(deps, command, { readOnly: false }, async (store) => {
          const reference = await sessionReference(store, branch, options, deps);
          const resolved = await resolveSessionReference(store, reference.session, {
            cwd: deps.cwd,
            stores: STORE_FACTORIES,
          });
          try {
            if (resolved.external) {
              throw new ArborUserError(
                "command_failed",
                `${resolved.location} is outside the store, which merge does not write to. ` +
                  "Import it first (`arbor sessions import <file>`), then merge in the imported session.",
              );
            }
            const session = await Session.open(resolved.store, resolved.sessionId);
            const into = parseSideReference(options.into, deps.cwd);
            const source = resolveEntryReference(session, reference.branchEntry);
            const target = resolveEntryReference(session, into.entry ?? options.into);
            if (source === target)
              throw new ArborUserError(
                "command_failed",
                `The branch and the target are the same entry (${source}).`,
              );
            const { entries, commonAncestorId } = collectEntriesForBranchSummary(session, source, target);
            if (entries.length === 0) {
              throw new ArborUserError(
                "command_failed",
                `Nothing to merge: ${source} is on the branch to ${target}, which already holds it.`,
              );
            }
            const summarizer = options.summarize ? await deps.resolveSummarizer?.() : undefined;
            const fromModel = summarizer === undefined ? undefined : await modelSummary(entries, summarizer);
            const merge: MergeDetails = {
              sourceLeafId: source,
              targetLeafId: target,
              commonAncestorId,
              entries: entries.length,
              summarizedBy: fromModel === undefined ? "deterministic" : "model",
            };
            const body = fromModel?.summary ?? deterministicMergeSummary(entries, source);
            const heading =
              `Merged from branch ${source}, which left this conversation ` +
              `${commonAncestorId === null ? "at its start" : `after ${commonAncestorId}`}.`;
            const note =
              options.message === undefined || options.message.trim() === "" ? [] : [options.message.trim()];
            if (session.leafId !== target) session.moveTo(target);
            const entry = session.appendBranchSummary({
              fromId: source,
              summary: [heading, ...note, body].join("\n\n"),
              details: { ...(fromModel?.details ?? {}), merge },
            });
            await session.flush();
            const how =
              summarizer === undefined
                ? options.summarize
                  ? "deterministic summary (no model configured)"
                  : "deterministic summary (--no-summarize)"
                : fromModel === undefined
                  ? "deterministic summary (the model returned nothing)"
                  : fromModel.details.fallback !== undefined
                    ? `summarized without the model, which failed: ${fromModel.details.fallback.message}`
                    : `summarized by ${summarizer.model.provider}/${summarizer.model.id}`;
            writeLines(deps.stdout, [
              `Merged branch ${source} (${countOf(entries.length, "entry", "entries")}) into ${target}: ` +
                `branch_summary ${entry.id}, ${how}.`,
              `Session ${session.id} now continues from ${entry.id}.`,
            ]);
          } finally {
            await resolved.release();
          }
        });
      }),
    );
}
