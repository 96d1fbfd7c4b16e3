/**
 * What each demo command does (see `demo-commands.ts`), on the runtime's current session. Everything the
 * page shows is computed by `@arbor/session-view` (graph, entry views, context breakdown) and
 * `@arbor/session-store` (diff); the operations are the harness session's own (label, navigate, prompt,
 * merge), so hooks, phases, events and the busy guard apply as in the CLI.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { estimateContextTokens } from "@arbor/compaction";
import { copySessions, diffBranches, type Session, SessionExistsError } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import {
  compactionNotice,
  entryRefs,
  previewView,
  sessionContextBreakdown,
  sessionGraph,
  summaryCoverage,
  viewEntry,
} from "@arbor/session-view";
import type { DemoCommand, DemoCommandOf, DemoCommandType } from "./demo-commands.js";
import type { DemoHub } from "./demo-hub.js";
import { isSessionId } from "./security.js";

/** What a handler needs. */
export interface DemoCommandContext {
  hub: DemoHub;
  /**
   * Keeps track of work that outlives the command (a run); its failure becomes an `error` event.
   *
   * Contract: must not throw.
   */
  track: (work: Promise<unknown>) => void;
}

/** A command refused for a reason the user can act on (an unknown entry, a busy session). */
export class DemoCommandError extends Error {
  readonly code = "demo_command_refused";
  constructor(message: string) {
    super(message);
    this.name = "DemoCommandError";
  }
}

/** Most entries listed in a summary's or a diff's answer (the rest are counted). */
export const MAX_LISTED_ENTRIES = 500;

/** Most entries of the transcript sent to the chat (the latest of the path). */
export const TRANSCRIPT_ENTRIES = 400;

function entryOf(session: Session, entryId: string) {
  const entry = session.getEntry(entryId);
  if (entry === undefined) throw new DemoCommandError(`This session has no entry ${entryId}.`);
  return entry;
}

function itemOf(session: Session, entryId: string) {
  const entry = session.getEntry(entryId);
  const view = viewEntry(entry, {
    id: entryId,
    type: entry?.type ?? "unknown",
    parentId: entry?.parentId ?? null,
  });
  return { id: entryId, kind: view.kind, preview: previewView(view, 100) };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function assertIdle(hub: DemoHub): void {
  const session = hub.runtime.session;
  if (session.isBusy) throw new DemoCommandError(`The session is busy (${session.phase}); wait or abort.`);
}

type Handlers = {
  [K in DemoCommandType]: (command: DemoCommandOf<K>, context: DemoCommandContext) => Promise<unknown>;
};

const HANDLERS: Handlers = {
  async get_graph(command, { hub }) {
    const graph = sessionGraph(hub.runtime.session.session, { expanded: new Set(command.expanded ?? []) });
    return { sessionId: hub.runtime.session.id, ...graph };
  },
  async get_entry(command, { hub }) {
    const session = hub.runtime.session.session;
    const entry = entryOf(session, command.entryId);
    const label = session.getLabel(command.entryId);
    return { ...viewEntry(entry, entry), ...(label === undefined ? {} : { tag: label }) };
  },
  async get_summary(command, { hub }) {
    const session = hub.runtime.session.session;
    const entry = entryOf(session, command.entryId);
    if (entry.type !== "compaction" && entry.type !== "branch_summary") {
      throw new DemoCommandError(
        `Entry ${command.entryId} is a ${entry.type}, not a compaction or branch summary.`,
      );
    }
    const coverage = summaryCoverage(entryRefs(session.getTree()));
    const marks = entry.type === "compaction" ? coverage.compactedBy : coverage.summarizedBy;
    const covered: string[] = [];
    for (const [id, summaryId] of marks) if (summaryId === entry.id) covered.push(id);
    const details = (entry.details ?? {}) as Record<string, unknown>;
    const tokensAfter =
      entry.type === "compaction"
        ? estimateContextTokens(session.buildContext(entry.id).messages).tokens
        : undefined;
    return {
      id: entry.id,
      type: entry.type,
      summary: entry.summary,
      ...(entry.type === "compaction" ? { tokensBefore: entry.tokensBefore, tokensAfter } : {}),
      ...(entry.type === "branch_summary" ? { fromId: entry.fromId } : {}),
      readFiles: stringList(details.readFiles),
      modifiedFiles: stringList(details.modifiedFiles),
      coveredCount: covered.length,
      covered: covered.slice(-MAX_LISTED_ENTRIES).map((id) => itemOf(session, id)),
    };
  },
  async get_context(_command, { hub }) {
    const breakdown = sessionContextBreakdown(hub.runtime.session);
    const notice = compactionNotice(hub.lastCompaction, { ...breakdown, tokens: breakdown.total });
    return notice === undefined ? breakdown : { ...breakdown, notice };
  },
  async get_transcript(_command, { hub }) {
    const session = hub.runtime.session.session;
    const path = session.getPath();
    const shown = path.slice(-TRANSCRIPT_ENTRIES);
    return {
      sessionId: session.id,
      earlier: path.length - shown.length,
      entries: shown.map((ref) => viewEntry(ref.entry(), ref)),
    };
  },
  async label(command, { hub }) {
    entryOf(hub.runtime.session.session, command.entryId);
    const label = command.label === null || command.label.trim() === "" ? undefined : command.label.trim();
    await hub.runtime.session.label(command.entryId, label);
    return { entryId: command.entryId, label: label ?? null };
  },
  async edit(command, { hub, track }) {
    const harnessSession = hub.runtime.session;
    const entry = entryOf(harnessSession.session, command.entryId);
    if (entry.type !== "message" || (entry.message as { role?: unknown }).role !== "user") {
      throw new DemoCommandError(`Entry ${command.entryId} is not a user message; only those can be edited.`);
    }
    assertIdle(hub);
    const moved = await harnessSession.navigateTree(entry.parentId, { summarize: false });
    if (moved.kind !== "moved")
      throw new DemoCommandError(`Could not go back before the message (${moved.kind}).`);
    track(harnessSession.prompt(command.text));
    return { parentId: entry.parentId };
  },
  async diff(command, { hub }) {
    const session = hub.runtime.session.session;
    entryOf(session, command.a);
    entryOf(session, command.b);
    const diff = diffBranches({ session, leafId: command.a }, { session, leafId: command.b });
    const side = (result: typeof diff.a) => ({
      leafId: result.leafId,
      branchLength: result.branchLength,
      messages: result.messages,
      after: result.after.slice(0, MAX_LISTED_ENTRIES).map((ref) => itemOf(session, ref.id)),
      afterCount: result.after.length,
    });
    return {
      commonAncestorId: diff.commonAncestor?.a.id ?? null,
      a: side(diff.a),
      b: side(diff.b),
    };
  },
  async merge(command, { hub }) {
    const harnessSession = hub.runtime.session;
    entryOf(harnessSession.session, command.sourceLeafId);
    const into = command.into ?? harnessSession.session.leafId;
    if (into === null)
      throw new DemoCommandError("The current branch is empty: pick the branch to merge into.");
    entryOf(harnessSession.session, into);
    assertIdle(hub);
    return harnessSession.mergeBranch(command.sourceLeafId, {
      into,
      ...(command.summarize === undefined ? {} : { summarize: command.summarize }),
      ...(command.message === undefined ? {} : { message: command.message }),
    });
  },
  async list_sessions(command, { hub }) {
    const runtime = hub.runtime;
    const page = await runtime.store.listSessions({
      limit: command.limit ?? 20,
      ...(command.cursor === undefined ? {} : { cursor: command.cursor }),
      ...(command.all === false ? { cwd: runtime.cwd } : {}),
    });
    return {
      sessions: page.sessions.map((summary) => ({
        id: summary.id,
        name: summary.name ?? null,
        cwd: summary.cwd,
        createdAt: summary.createdAt,
        updatedAt: summary.updatedAt,
        messageCount: summary.messageCount,
        parentSession: summary.parentSession ?? null,
        firstMessage: summary.firstMessage ?? null,
        current: summary.id === runtime.session.id,
      })),
      nextCursor: page.nextCursor ?? null,
    };
  },
  async new_session(_command, { hub }) {
    assertIdle(hub);
    const session = await hub.runtime.newSession();
    return { sessionId: session.id };
  },
  async open_session(command, { hub }) {
    assertIdle(hub);
    if (command.sessionId !== hub.runtime.session.id) await hub.runtime.openSession(command.sessionId);
    return { sessionId: hub.runtime.session.id };
  },
  async import_session(command, { hub }) {
    assertIdle(hub);
    const folder = mkdtempSync(join(tmpdir(), "arbor-demo-import-"));
    try {
      const file = join(folder, "import.jsonl");
      writeFileSync(file, command.text, { mode: 0o600 });
      const opened = await JsonlSessionStore.openFile(file, { readOnly: true });
      try {
        if (!isSessionId(opened.sessionId)) {
          throw new DemoCommandError("The file's session id cannot name a session here.");
        }
        let existed = false;
        let warnings: string[] = [];
        try {
          const copied = await copySessions(opened.store, hub.runtime.store, [opened.sessionId]);
          warnings = copied.warnings;
        } catch (error) {
          if (!(error instanceof SessionExistsError)) throw error;
          existed = true;
        }
        await hub.runtime.openSession(opened.sessionId);
        return {
          sessionId: opened.sessionId,
          existed,
          entries: hub.runtime.session.session.entryCount,
          warnings,
        };
      } finally {
        await opened.store.close?.();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
};

/**
 * Runs a validated demo command on the hub's current session; resolves to the answer's data.
 *
 * Contract: rejects with a {@link DemoCommandError} (or the harness's own error) whose message is for the
 * user; never changes anything before its checks pass.
 */
export function runDemoCommand(command: DemoCommand, context: DemoCommandContext): Promise<unknown> {
  const handler = HANDLERS[command.type] as (
    command: DemoCommand,
    context: DemoCommandContext,
  ) => Promise<unknown>;
  return handler(command, context);
}
