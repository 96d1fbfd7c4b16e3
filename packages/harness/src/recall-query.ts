import type { AgentToolResult } from "@arbor/agent-core";
import type { Session } from "@arbor/session-store";
import { RecallIndex } from "./recall-index.js";
import type { RecallToolArguments, RecallToolDetails } from "./recall-parameters.js";
import { renderEntry } from "./recall-render.js";
import { type Recallable, type RecallScope, refusal } from "./recall-scope.js";
import { type Block, queryWords, score, truncateText, windowOf } from "./recall-window.js";

/** One call of the `recall` tool: checks the arguments, selects the entries and bounds the output. */

/** Entries returned for a query when `limit` is not given. */
const DEFAULT_SEARCH_LIMIT = 10;

/** Entries returned for `compactionId` alone when `limit` is not given. */
const DEFAULT_SPAN_LIMIT = 50;

export type RecallResult = AgentToolResult<RecallToolDetails>;

function newDetails(mode: RecallToolDetails["mode"]): RecallToolDetails {
  return { mode, entryIds: [], unknownIds: [], refusedIds: [], totalChars: 0 };
}

export function errorResult(text: string, details: RecallToolDetails = newDetails("entries")): RecallResult {
  return { content: [{ type: "text", text }], isError: true, details };
}

/** `1 entry`, `2 entries`. */
function entries(count: number): string {
  return `${count} ${count === 1 ? "entry" : "entries"}`;
}

/** What a call selected: the entries to show (or the overview's blocks), with a preface and notes. */
interface Selection {
  details: RecallToolDetails;
  blocks: Block[];
  preface: string;
  notes: string[];
}

/**
 * One call of the tool on `session`, with `index` the texts and scope kept for it (a fresh
 * `new RecallIndex(session, 0)` keeps nothing).
 */
export function recall(
  session: Session,
  args: RecallToolArguments,
  maxBytes: number,
  index: RecallIndex = new RecallIndex(session, 0),
): RecallResult {
  const { entryIds, query, compactionId, limit, offset = 0 } = args;
  if (entryIds !== undefined && query !== undefined)
    return errorResult("Give either entryIds or query, not both.");
  if (entryIds !== undefined && (!Array.isArray(entryIds) || entryIds.length === 0)) {
    return errorResult("entryIds must be a non-empty list of entry ids.");
  }
  if (query !== undefined && typeof query !== "string") return errorResult("query must be text.");
  if (!Number.isInteger(offset) || offset < 0) return errorResult("offset must be a whole number ≥ 0.");
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    return errorResult("limit must be a whole number ≥ 1.");
  }
  const { scope, candidates: all } = index.scope();
  if (scope.byId.size === 0) {
    return errorResult(
      "Nothing to recall: no summary on the current branch has replaced any entry, so everything is in your context.",
    );
  }
  if (compactionId !== undefined && !scope.summaries.some((summary) => summary.id === compactionId)) {
    const known = scope.summaries.map((summary) => `${summary.id} (${summary.type})`).join(", ");
    return errorResult(
      `"${compactionId}" is not a compaction or branch summary on the current branch. Those are: ${known || "(none)"}.`,
    );
  }
  const candidates =
    compactionId === undefined ? all : all.filter((recallable) => recallable.summaryId === compactionId);
  let selection: Selection | RecallResult;
  if (entryIds !== undefined) selection = selectIds(scope, entryIds, compactionId, limit);
  else if (query !== undefined)
    selection = selectMatches(scope, index, candidates, query, limit ?? DEFAULT_SEARCH_LIMIT);
  else if (compactionId !== undefined) {
    const chosen = candidates.slice(0, limit ?? DEFAULT_SPAN_LIMIT);
    selection = {
      details: newDetails("entries"),
      blocks: entryBlocks(chosen),
      preface: `${entries(candidates.length)} replaced by ${compactionId}; showing ${chosen.length}, exact originals in conversation order:`,
      notes:
        chosen.length < candidates.length
          ? [`${candidates.length - chosen.length} more left out by limit.`]
          : [],
    };
  } else selection = overview(scope, candidates, limit);
  return "content" in selection ? selection : bounded(selection, offset, maxBytes);
}

/** Entries by id. */
function selectIds(
  scope: RecallScope,
  entryIds: readonly string[],
  compactionId: string | undefined,
  limit: number | undefined,
): Selection | RecallResult {
  const details = newDetails("entries");
  const refused: string[] = [];
  const found: Recallable[] = [];
  for (const id of new Set(entryIds)) {
    const recallable = scope.byId.get(id);
    if (recallable !== undefined && (compactionId === undefined || recallable.summaryId === compactionId)) {
      found.push(recallable);
    } else if (!scope.session.has(id)) details.unknownIds.push(id);
    else {
      details.refusedIds.push(id);
      refused.push(refusal(scope, id, compactionId));
    }
  }
  const notes: string[] = [];
  if (details.unknownIds.length > 0) notes.push(`Unknown entry ids: ${details.unknownIds.join(", ")}.`);
  if (refused.length > 0) notes.push(`Not recalled: ${refused.join("; ")}.`);
  if (found.length === 0) return errorResult(`No entry recalled. ${notes.join(" ")}`, details);
  const chosen = found.sort((a, b) => a.order - b.order).slice(0, limit ?? found.length);
  if (chosen.length < found.length) notes.push(`${found.length - chosen.length} more left out by limit.`);
  const preface = `${entries(chosen.length)} recalled, exact originals in conversation order:`;
  return { details, blocks: entryBlocks(chosen), preface, notes };
}

/** A match of a query. */
interface Match {
  recallable: Recallable;
  score: number;
}

/** True when a match of `score` at `order` ranks before `match`: a higher score, then earlier in the conversation. */
function ranksBefore(score: number, order: number, match: Match): boolean {
  return score > match.score || (score === match.score && order < match.recallable.order);
}

/** The best matches of a query, best first. */
function selectMatches(
  scope: RecallScope,
  index: RecallIndex,
  candidates: readonly Recallable[],
  query: string,
  limit: number,
): Selection | RecallResult {
  const words = queryWords(query);
  if (words.length === 0)
    return errorResult("The query is empty: give words to search for.", newDetails("search"));
  const phrase = words.join(" ");
  // The best `limit` matches, kept sorted (no sort of every match), and how many match.
  const texts = index.texts(candidates);
  const best: Match[] = [];
  let matchCount = 0;
  for (let at = 0; at < candidates.length; at++) {
    const text = texts[at] ?? index.text(candidates[at]!.ref);
    const value = text === undefined ? 0 : score(text, words, phrase);
    if (value === 0) continue;
    matchCount++;
    const recallable = candidates[at]!;
    const worst = best.length === limit ? best[limit - 1]! : undefined;
    if (worst !== undefined && !ranksBefore(value, recallable.order, worst)) continue;
    let slot = best.length;
    while (slot > 0 && ranksBefore(value, recallable.order, best[slot - 1]!)) slot--;
    best.splice(slot, 0, { recallable, score: value });
    if (best.length > limit) best.pop();
  }
  const details: RecallToolDetails = { ...newDetails("search"), matchCount };
  if (matchCount === 0) {
    const text = `No replaced entry matches "${query}" (${entries(scope.byId.size)} can be recalled). Try other words, or call recall with no arguments for a list.`;
    return { content: [{ type: "text", text }], details: { ...details, totalChars: text.length } };
  }
  const chosen = best.map((match) => match.recallable);
  const notes =
    matchCount > limit
      ? [`${matchCount - limit} more entries match; raise limit (up to 100) to see them.`]
      : [];
  const preface = `${entries(matchCount)} match "${query}"; showing ${chosen.length}, best match first:`;
  return { details, blocks: entryBlocks(chosen), preface, notes };
}

/** Each entry whole: its header, then its body. */
function entryBlocks(chosen: readonly Recallable[]): Block[] {
  const blocks: Block[] = [];
  for (const recallable of chosen) {
    const entry = recallable.ref.entry();
    const rendered = entry === undefined ? undefined : renderEntry(entry);
    const text =
      rendered === undefined
        ? `### ${recallable.ref.id} · cannot be read`
        : `${rendered.header}\n${rendered.body}`;
    blocks.push({ text, id: recallable.ref.id });
  }
  return blocks;
}

/** The overview: each summary on the branch, then the id, kind and first line of each entry it replaced. */
function overview(
  scope: RecallScope,
  candidates: readonly Recallable[],
  limit: number | undefined,
): Selection {
  const chosen = candidates.slice(0, limit ?? candidates.length);
  const counts = new Map<string, number>();
  for (const { summaryId } of candidates) counts.set(summaryId, (counts.get(summaryId) ?? 0) + 1);
  const blocks: Block[] = [];
  let summaryId: string | undefined;
  for (const recallable of chosen) {
    if (recallable.summaryId !== summaryId) {
      summaryId = recallable.summaryId;
      const summary = scope.summaries.find((candidate) => candidate.id === summaryId);
      const kind =
        summary?.type === "branch_summary"
          ? "Branch summary"
          : summary?.type === "prune"
            ? "Prune"
            : "Compaction";
      const did = summary?.type === "prune" ? "made stubs of" : "replaced";
      const heading = `${kind} ${summaryId} (${summary?.timestamp}) ${did} ${entries(counts.get(summaryId) ?? 0)}:`;
      blocks.push({ text: blocks.length > 0 ? `\n${heading}` : heading });
    }
    const entry = recallable.ref.entry();
    const rendered = entry === undefined ? undefined : renderEntry(entry);
    const firstLine = (rendered?.body.trim().split("\n")[0] ?? "(cannot be read)").slice(0, 100);
    blocks.push({
      text: `- ${recallable.ref.id} · ${rendered?.what ?? recallable.ref.type} · ${firstLine}`,
      id: recallable.ref.id,
    });
  }
  const notes =
    chosen.length < candidates.length ? [`${candidates.length - chosen.length} more left out by limit.`] : [];
  const preface = `${entries(candidates.length)} can be recalled (pass ids as entryIds, or search with query):`;
  return { details: newDetails("list"), blocks, preface, notes };
}

/** The result text: preface, the window of the blocks that fits `maxBytes`, the cut note, the notes. */
function bounded(selection: Selection, offset: number, maxBytes: number): RecallResult {
  const { details, blocks, preface } = selection;
  const separator = details.mode === "list" ? "\n" : "\n\n";
  const total =
    blocks.reduce((sum, block) => sum + block.text.length, 0) +
    separator.length * Math.max(0, blocks.length - 1);
  if (offset > 0 && offset >= total) {
    return errorResult(`offset ${offset} is past the end of the output (${total} characters).`, details);
  }
  const notes = truncateText(selection.notes.join("\n"), Math.floor(maxBytes / 4));
  const reserved = Buffer.byteLength(preface) + Buffer.byteLength(notes) + 240;
  const window = windowOf(blocks, separator, offset, Math.max(200, maxBytes - reserved));
  details.totalChars = total;
  details.entryIds = window.ids;
  const parts = [offset > 0 ? `${preface} (continued from character ${offset})` : preface, window.text];
  if (window.next !== undefined) {
    details.nextOffset = window.next;
    parts.push(
      `[Output cut at character ${window.next} of ${total}. Call recall again with the same arguments and offset ${window.next} for the rest.]`,
    );
  }
  if (notes !== "") parts.push(notes);
  return { content: [{ type: "text", text: parts.join("\n\n") }], details };
}
