/**
 * `arbor sessions merge <branch-leaf> [--into <leaf>]`: folds what a branch concluded into another branch
 * (default: the session's current leaf) as a `branch_summary` entry appended after `<leaf>` (its `fromId` is
 * the merged branch's leaf), so the
 * conversation continues from there knowing what the other branch found. The merged branch's entries stay
 * in the log; the session's leaf becomes the new summary.
 *
 * The merge is `AppRuntime.merge()` (the harness's `mergeBranch()`: its hooks, phases, events and busy
 * guard) on the session opened in an app runtime of its own: the summary comes from the model
 * `resolveSummarizer` gives (the session's recorded model when it can be loaded, else the default); with `--no-summarize`, or no model, it is the deterministic digest of
 * `@arbor/compaction` (the branch's last assistant text and its file operations), marked as such — the
 * runtime's own model (the offline demo model) is never asked. The entry is written at the harness's save
 * point, so the writer lease, the store's lock and its last-entry check apply: a session another process
 * is writing to is refused, not corrupted.
 */
import type { Model } from "@arbor/ai-providers";
import {
  ArborUserError,
  createAppRuntime,
  type MergeResult,
  resolveEntryReference,
  resolveSessionReference,
} from "@arbor/app-runtime";
import { Session, type SessionStore } from "@arbor/session-store";
import { countOf } from "@arbor/session-view";
import type { Command } from "commander";
import { STORE_FACTORIES } from "../../factories.js";
import {
  runAction,
  type SessionsCommandDeps,
  type SummarizerChoice,
  storeUrlOf,
  withStore,
  writeLines,
} from "./context.js";
import { parseSideReference } from "./diff.js";

interface MergeOptions {
  into?: string;
  session?: string;
  summarize: boolean;
  message?: string;
}

/** The session a merge works on: `--session`, else `<session>@<entry>` in the branch argument, else the cwd's latest. */
async function sessionReference(
  store: SessionStore,
  branch: string,
  options: MergeOptions,
  command: Command,
  deps: SessionsCommandDeps,
): Promise<{ session: string; branchEntry: string }> {
  const side = parseSideReference(branch, deps.cwd);
  // Under `arbor`, the program's own `--session <session>` takes the long form before merge sees it.
  const global = (command.optsWithGlobals() as { session?: unknown }).session;
  const named = options.session ?? (typeof global === "string" ? global : undefined);
  if (named !== undefined) return { session: named, branchEntry: side.entry ?? branch };
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

/**
 * A stand-in for a model the session records, so that the session opens with that model and the merge
 * (which moves the leaf) records no model change; merge never calls it (summaries go to the summarizer).
 */
function recordedModel(reference: string): Model {
  const slash = reference.indexOf("/");
  return {
    id: reference.slice(slash + 1),
    name: reference,
    provider: reference.slice(0, Math.max(0, slash)),
    api: "openai-completions",
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 200_000,
    maxTokens: 8_192,
  };
}

/** How the summary was made, for the output line. */
function howSummarized(
  result: Extract<MergeResult, { kind: "merged" }>,
  summarizer: SummarizerChoice | undefined,
  summarize: boolean,
): string {
  if (summarizer === undefined) {
    return summarize
      ? "deterministic summary (no model configured)"
      : "deterministic summary (--no-summarize)";
  }
  if (result.merge.summarizedBy === "hook") return "summarized by a hook";
  if (result.merge.summarizedBy === "deterministic")
    return "deterministic summary (the model returned nothing)";
  if (result.fallback !== undefined) return `summarized without the model, which failed: ${result.fallback}`;
  return `summarized by ${summarizer.model.provider}/${summarizer.model.id}`;
}

/**
 * Opens the session in an app runtime of its own (the offline demo model as its provider, which merge
 * never asks; the summarizer, when there is one, as the harness's) and merges there; rejects with what the
 * store refused.
 */
async function mergeInRuntime(
  command: Command,
  sessionId: string,
  references: { branch: string; into: string | undefined },
  options: MergeOptions,
  deps: SessionsCommandDeps,
  recorded: { provider: string; id: string } | undefined,
): Promise<{ result: MergeResult; summarizer: SummarizerChoice | undefined; sessionId: string }> {
  const summarizer = options.summarize ? await deps.resolveSummarizer?.(recorded) : undefined;
  const store = storeUrlOf(command);
  const runtime = await createAppRuntime({
    cwd: deps.cwd,
    env: deps.env ?? {},
    ...(deps.home === undefined ? {} : { home: deps.home }),
    providers: { scripted: () => import("@arbor/app-runtime/demo") },
    stores: STORE_FACTORIES,
    ...(store === undefined ? {} : { store }),
    flags: { provider: "scripted" },
    tools: false,
    extensions: false,
    harnessOptions: {
      resolveModel: recordedModel,
      ...(summarizer === undefined
        ? {}
        : { summarizer: { model: summarizer.model, streamFn: summarizer.stream } }),
      onError: () => undefined,
    },
  });
  try {
    // Opened (not resumed): the session keeps its recorded model; nothing is written but the merge.
    const session = await runtime.openSession(sessionId);
    const storeErrors: unknown[] = [];
    session.subscribe((event) => {
      if (event.type === "save_error") storeErrors.push(event.error);
    });
    const result = await runtime.merge({
      sourceLeafId: resolveEntryReference(session.session, references.branch),
      // Without --into: the session's current leaf.
      ...(references.into === undefined
        ? {}
        : { into: resolveEntryReference(session.session, references.into) }),
      summarize: summarizer !== undefined,
      ...(options.message === undefined ? {} : { message: options.message }),
    });
    if (storeErrors.length > 0) throw storeErrors[0];
    return { result, summarizer, sessionId: session.id };
  } finally {
    await runtime.dispose();
  }
}

/** Adds `merge` to the `sessions` command. */
export function addMergeCommand(parent: Command, deps: SessionsCommandDeps): Command {
  return parent
    .command("merge")
    .description("fold a branch's conclusion into another branch as a summary entry")
    .argument("<branch-leaf>", "the last entry of the branch to fold in ([<session>@]<entry>)")
    .option(
      "--into <leaf>",
      "the entry of the branch that receives the summary (it continues from it; default: the current leaf)",
    )
    .option("-s, --session <session>", "the session (default: the latest session of the current directory)")
    .option("--no-summarize", "do not ask a model: use the branch's last assistant text and file operations")
    .option("-m, --message <text>", "a note put first in the summary, like a merge commit's message")
    .action(
      runAction(deps, "merge", async (branch: string, options: MergeOptions, command: Command) => {
        // The session is named and checked on a read-only store, then merged in a runtime of its own.
        const target = await withStore(deps, command, { readOnly: true }, async (store) => {
          const reference = await sessionReference(store, branch, options, command, deps);
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
            // The model the session records at its leaf: the summary is asked of it when it can be loaded.
            const model = (await Session.open(resolved.store, resolved.sessionId)).buildContext().model;
            return {
              sessionId: resolved.sessionId,
              branchEntry: reference.branchEntry,
              recorded: model === undefined ? undefined : { provider: model.provider, id: model.modelId },
            };
          } finally {
            await resolved.release();
          }
        });
        const into = options.into === undefined ? undefined : parseSideReference(options.into, deps.cwd);
        const { result, summarizer, sessionId } = await mergeInRuntime(
          command,
          target.sessionId,
          { branch: target.branchEntry, into: into === undefined ? undefined : (into.entry ?? options.into) },
          options,
          deps,
          target.recorded,
        );
        if (result.kind === "cancelled")
          throw new ArborUserError("command_failed", "The merge was cancelled by a hook.");
        if (result.kind === "aborted")
          throw new ArborUserError("command_failed", "Summarizing the branch was aborted.");
        const { sourceLeafId, targetLeafId, entries } = result.merge;
        writeLines(deps.stdout, [
          `Merged branch ${sourceLeafId} (${countOf(entries, "entry", "entries")}) into ${targetLeafId}: ` +
            `branch_summary ${result.entryId}, ${howSummarized(result, summarizer, options.summarize)}.`,
          `Session ${sessionId} now continues from ${result.entryId}.`,
        ]);
      }),
    );
}
