/**
 * `arbor sessions diff <a> <b> [--json]`: where two branches diverge and what each holds after.
 *
 * Each side is `<session>` (its current branch) or `<session>@<entry>` (the branch ending at that entry;
 * an entry id or a unique prefix). A side written `@<entry>` names an entry of the other side's session,
 * so two branches of one session read `arbor sessions diff 01a2@976cce3b @46a34590`. `<session>` is an id,
 * a unique id prefix, or a path to a `.jsonl` file (a path that exists is never split at `@`).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import {
  ArborUserError,
  branchDiffResult,
  type ResolvedSession,
  resolveEntryReference,
  resolveSessionReference,
} from "@arbor/app-runtime";
import { Session } from "@arbor/session-store";
import {
  type BranchDiffView,
  branchDiffView,
  countOf,
  type DiffItem,
  type DiffSideResult,
  formatCount,
} from "@arbor/session-view";
import type { Command } from "commander";
import { STORE_FACTORIES } from "../../factories.js";
import {
  parsePositiveInteger,
  runAction,
  type SessionsCommandDeps,
  withStore,
  writeLines,
} from "./context.js";

/** A side as typed: a session reference (absent: the other side's session) and an entry reference. */
export interface SideReference {
  session: string | undefined;
  entry: string | undefined;
}

/**
 * Reads `<session>[@<entry>]` or `@<entry>`. A text that is an existing file is a session path whole.
 *
 * Contract: pure apart from checking whether `text` names an existing file under `cwd`.
 */
export function parseSideReference(text: string, cwd: string): SideReference {
  if (text.startsWith("@")) return { session: undefined, entry: text.slice(1) };
  const at = text.lastIndexOf("@");
  if (at <= 0 || existsSync(resolve(cwd, text))) return { session: text, entry: undefined };
  return { session: text.slice(0, at), entry: text.slice(at + 1) };
}

/** Entries listed per side in text output when `--limit` is not given. */
export const DEFAULT_DIFF_LIMIT = 12;

function fileLine(side: DiffSideResult): string | undefined {
  const parts: string[] = [];
  if (side.files.modifiedFiles.length > 0) parts.push(`modified ${side.files.modifiedFiles.join(", ")}`);
  if (side.files.readFiles.length > 0) parts.push(`read ${side.files.readFiles.join(", ")}`);
  return parts.length === 0 ? undefined : `  files: ${parts.join("; ")}`;
}

function itemLines(items: readonly DiffItem[], limit: number): string[] {
  const line = (entry: DiffItem) => `  ${entry.id} ${entry.preview}`;
  if (items.length <= limit) return items.map(line);
  const head = Math.ceil(limit / 2);
  const tail = limit - head;
  return [
    ...items.slice(0, head).map(line),
    `  … ${formatCount(items.length - limit)} more entries …`,
    ...items.slice(items.length - tail).map(line),
  ];
}

function sideLines(name: "a" | "b", side: DiffSideResult, limit: number): string[] {
  if (side.entries === 0) return [`Only in ${name}: nothing (its leaf is the common ancestor).`];
  const lines = [
    `Only in ${name}: ${countOf(side.entries, "entry", "entries")} (${countOf(side.messages, "message")}), ending at ${side.leafId}`,
  ];
  const files = fileLine(side);
  if (files !== undefined) lines.push(files);
  lines.push(...itemLines(side.items, limit));
  return lines;
}

const MATCHES: Record<BranchDiffView["matchedBy"], string> = {
  id: "shared entries have equal ids and contents",
  content: "shared entries have equal contents under other ids",
  mixed: "shared entries have equal contents, some under other ids",
  none: "",
};

/** The diff as text. */
export function diffTextLines(diff: BranchDiffView, limit: number): string[] {
  const heading = (name: string, side: DiffSideResult) =>
    `${name}: session ${side.sessionId}, leaf ${side.leafId ?? "(none)"} (${countOf(side.branchLength, "entry", "entries")} on the branch)`;
  const lines = [heading("a", diff.a), heading("b", diff.b)];
  if (diff.relation === "b-forked-from-a") lines.push("b was forked from a.");
  if (diff.relation === "a-forked-from-b") lines.push("a was forked from b.");
  lines.push("");
  const ancestor = diff.commonAncestor;
  if (ancestor === undefined) {
    lines.push("No common ancestor: the branches share no entry.");
  } else {
    const ids = ancestor.id === ancestor.idInB ? ancestor.id : `${ancestor.id} (in b: ${ancestor.idInB})`;
    const how = diff.sameSession ? "" : `; ${MATCHES[diff.matchedBy]}`;
    lines.push(`Common ancestor: ${ids}, entry ${formatCount(ancestor.position)} of both branches${how}`);
    lines.push(`  ${ancestor.item.preview}`);
  }
  lines.push("", ...sideLines("a", diff.a, limit), "", ...sideLines("b", diff.b, limit));
  return lines;
}

/** Adds `diff` to the `sessions` command. */
export function addDiffCommand(parent: Command, deps: SessionsCommandDeps): Command {
  return parent
    .command("diff")
    .description("show where two sessions or two branches diverge, and what each holds after")
    .argument("<a>", "<session>[@<entry>]: a session (its current branch) or the branch ending at an entry")
    .argument("<b>", "<session>[@<entry>], or @<entry> for another branch of a's session")
    .option("--json", "print the result as JSON")
    .option(
      "-n, --limit <n>",
      `entries listed per side (default ${DEFAULT_DIFF_LIMIT})`,
      parsePositiveInteger,
    )
    .action(
      runAction(
        deps,
        "diff",
        async (a: string, b: string, options: { json?: boolean; limit?: number }, command: Command) => {
          const left = parseSideReference(a, deps.cwd);
          const right = parseSideReference(b, deps.cwd);
          if (left.session === undefined) {
            throw new ArborUserError(
              "command_failed",
              `The first side must name a session ("${a}" starts with @); e.g. <session>@<entry>.`,
            );
          }
          await withStore(deps, command, { readOnly: true }, async (store) => {
            const resolved: ResolvedSession[] = [];
            try {
              const first = await resolveSessionReference(store, left.session!, {
                cwd: deps.cwd,
                stores: STORE_FACTORIES,
              });
              resolved.push(first);
              const sessionA = await Session.open(first.store, first.sessionId);
              let sessionB = sessionA;
              if (right.session !== undefined) {
                const second = await resolveSessionReference(store, right.session, {
                  cwd: deps.cwd,
                  stores: STORE_FACTORIES,
                });
                resolved.push(second);
                if (second.store !== first.store || second.sessionId !== first.sessionId) {
                  sessionB = await Session.open(second.store, second.sessionId);
                }
              }
              const leafA =
                left.entry === undefined ? sessionA.leafId : resolveEntryReference(sessionA, left.entry);
              const leafB =
                right.entry === undefined ? sessionB.leafId : resolveEntryReference(sessionB, right.entry);
              const diff = branchDiffView(
                { session: sessionA, leafId: leafA },
                { session: sessionB, leafId: leafB },
              );
              if (options.json === true)
                deps.stdout.write(`${JSON.stringify(branchDiffResult(diff), null, 2)}\n`);
              else writeLines(deps.stdout, diffTextLines(diff, options.limit ?? DEFAULT_DIFF_LIMIT));
            } finally {
              for (const entry of resolved) await entry.release();
            }
          });
        },
      ),
    );
}
