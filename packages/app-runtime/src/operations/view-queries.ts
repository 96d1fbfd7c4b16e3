/**
 * The read-only views of the current session a front end draws, each computed by `@arbor/session-view`:
 * the tree as a graph, one entry, a compaction's or branch summary's details, the context meter and the
 * transcript of the current path. The protocol's `get_graph`, `get_entry`, `get_summary`, `get_context`
 * and `get_transcript` answer with them.
 */
import { estimateContextTokens } from "@arbor/compaction";
import type { HarnessSession } from "@arbor/harness";
import type { Session } from "@arbor/session-store";
import {
  type CompactionNotice,
  type CompactionOutcomeWords,
  type ContextBreakdown,
  compactionNotice,
  type EntryView,
  entryRefs,
  previewView,
  type SessionGraph,
  SessionGraphCache,
  sessionContextBreakdown,
  summaryCoverage,
  toolCallFinder,
  viewEntry,
} from "@arbor/session-view";
import { OperationRefusedError } from "./operation-error.js";
import { entryOf } from "./operation-host.js";
import { pathTail } from "./path-tail.js";

/** Most entries listed in a summary's answer (the rest are counted). */
export const MAX_LISTED_ENTRIES = 500;

/** Most entries of the transcript sent (the latest of the path). */
export const TRANSCRIPT_ENTRIES = 400;

/** An entry as a list shows it: id, kind and a one-line preview. */
export interface EntryItem {
  id: string;
  kind: string;
  preview: string;
}

/** `get_graph`'s result: the session's id and its graph. */
export type GraphResult = { sessionId: string } & SessionGraph;

/** `get_entry`'s result: the entry's view, with its label (`tag`) when it has one. */
export type EntryResult = EntryView & { tag?: string };

/** `get_summary`'s result: a compaction's or branch summary's text, tokens, files and covered entries. */
export interface SummaryResult {
  id: string;
  type: "compaction" | "branch_summary";
  summary: string;
  /** A compaction's estimate of the context before it. */
  tokensBefore?: number;
  /** A compaction's estimate of the context right after it. */
  tokensAfter?: number;
  /** A branch summary's source leaf. */
  fromId?: string;
  readFiles: string[];
  modifiedFiles: string[];
  /** How many entries it covers. */
  coveredCount: number;
  /** The latest {@link MAX_LISTED_ENTRIES} of them. */
  covered: EntryItem[];
}

/**
 * `get_context`'s result: the meter's breakdown, and `notice` when the context is over the compaction
 * threshold and the last compaction freed nothing.
 */
export type ContextResult = ContextBreakdown & { notice?: CompactionNotice };

/** `get_transcript`'s result: the latest {@link TRANSCRIPT_ENTRIES} entries of the current path. */
export interface TranscriptResult {
  sessionId: string;
  /** Entries of the path before the first one sent. */
  earlier: number;
  entries: EntryView[];
}

function itemOf(session: Session, entryId: string): EntryItem {
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

/**
 * The graph kept for each open session (dropped with it): `get_graph` extends it from the entries appended
 * since the last call instead of walking the whole tree again (see `SessionGraphCache`).
 */
const graphs = new WeakMap<Session, SessionGraphCache>();

/**
 * The session's tree as graph nodes (`expanded`: runs to show entry by entry), kept per open session and
 * extended as entries are appended.
 *
 * Contract: reads only; equal to `sessionGraph` of the session at the time of the call.
 */
export function graphOf(session: HarnessSession, expanded: readonly string[] = []): GraphResult {
  const tree = session.session;
  let cache = graphs.get(tree);
  if (cache === undefined) {
    cache = new SessionGraphCache();
    graphs.set(tree, cache);
  }
  return { sessionId: session.id, ...cache.graph(tree, new Set(expanded)) };
}

/** One entry as a view. Contract: refuses with `not_found` for an unknown id. */
export function entryViewOf(session: HarnessSession, entryId: string): EntryResult {
  const tree = session.session;
  const entry = entryOf(tree, entryId);
  const label = tree.getLabel(entryId);
  const view = viewEntry(entry, entry, toolCallFinder(tree, entry.parentId));
  return { ...view, ...(label === undefined ? {} : { tag: label }) };
}

/**
 * A compaction's or branch summary's details.
 *
 * Contract: refuses with `not_found` for an unknown id, `invalid` for another entry type.
 */
export function summaryOf(session: HarnessSession, entryId: string): SummaryResult {
  const tree = session.session;
  const entry = entryOf(tree, entryId);
  if (entry.type !== "compaction" && entry.type !== "branch_summary") {
    throw new OperationRefusedError(
      `Entry ${entryId} is a ${entry.type}, not a compaction or branch summary.`,
      "invalid",
    );
  }
  const coverage = summaryCoverage(entryRefs(tree.getTree()));
  const marks = entry.type === "compaction" ? coverage.compactedBy : coverage.summarizedBy;
  const covered: string[] = [];
  for (const [id, summaryId] of marks) if (summaryId === entry.id) covered.push(id);
  const details = (entry.details ?? {}) as Record<string, unknown>;
  return {
    id: entry.id,
    type: entry.type,
    summary: entry.summary,
    ...(entry.type === "compaction"
      ? {
          tokensBefore: entry.tokensBefore,
          tokensAfter: estimateContextTokens(tree.buildContext(entry.id).messages).tokens,
        }
      : { fromId: entry.fromId }),
    readFiles: stringList(details.readFiles),
    modifiedFiles: stringList(details.modifiedFiles),
    coveredCount: covered.length,
    covered: covered.slice(-MAX_LISTED_ENTRIES).map((id) => itemOf(tree, id)),
  };
}

/** The context meter, with the notice `lastCompaction` calls for. Contract: reads only. */
export function contextOf(
  session: HarnessSession,
  lastCompaction: CompactionOutcomeWords | undefined,
): ContextResult {
  const breakdown = sessionContextBreakdown(session);
  const notice = compactionNotice(lastCompaction, { ...breakdown, tokens: breakdown.total });
  return notice === undefined ? breakdown : { ...breakdown, notice };
}

/**
 * The transcript of the current path (its latest entries).
 *
 * Contract: reads only; O(the entries sent + those appended since the last call), see `pathTail`.
 */
export function transcriptOf(session: HarnessSession): TranscriptResult {
  const { earlier, entries } = pathTail(session.session, TRANSCRIPT_ENTRIES);
  return {
    sessionId: session.id,
    earlier,
    entries: entries.map((ref) => viewEntry(ref.entry, ref, toolCallFinder(session.session, ref.parentId))),
  };
}
