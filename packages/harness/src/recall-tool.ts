import { type AgentTool, type AgentToolResult, type Static, Type } from "@arbor/agent-core";
import { InvalidArgumentError } from "@arbor/ai-providers";
import { readCoveredSpan } from "@arbor/compaction";
import type { Session, SessionEntry, SessionEntryRef } from "@arbor/session-store";

/**
 * The `recall` tool: the exact original entries that a summary replaced in the model's context. A
 * compaction keeps its history in the append-only session (its `details.covered` names the span), so the
 * agent can pull back what the summary lost — exact code, an error message, a command's output.
 *
 * Recallable are the entries a summary on the current branch stands for: every message (and custom
 * message, branch summary) on the branch before the latest compaction's `firstKeptEntryId` — found from
 * the compactions' `firstKeptEntryId`, so compactions written by the pi agent or by a hook count too —
 * and the entries of abandoned branches that a `branch_summary` on the branch covers (from its
 * `details.covered`). Entries still in the context, entries of other branches and non-message entries
 * are refused with a note: recall never duplicates the context and never leaks unrelated branches.
 */

/** The tool's name. */
export const RECALL_TOOL_NAME = "recall";

/** Default bound of one result's text, in UTF-8 bytes (about 5,000 tokens). */
export const DEFAULT_RECALL_MAX_BYTES = 20_000;

/** Smallest `maxBytes` accepted: room for an entry's header and the notes. */
const MIN_MAX_BYTES = 1_000;

/** Entries returned for a query when `limit` is not given. */
const DEFAULT_SEARCH_LIMIT = 10;

/** Entries returned for `compactionId` alone when `limit` is not given. */
const DEFAULT_SPAN_LIMIT = 50;

/** The tool's parameters (TypeBox). */
export const RecallToolParameters = Type.Object({
  entryIds: Type.Optional(
    Type.Array(Type.String(), {
      minItems: 1,
      maxItems: 100,
      description: "Ids of entries to return (from an earlier recall result).",
    }),
  ),
  query: Type.Optional(
    Type.String({
      description:
        "Words to search for in the replaced entries (case-insensitive; entries with all words and the exact phrase rank first).",
    }),
  ),
  compactionId: Type.Optional(
    Type.String({
      description: "Only entries replaced by this compaction (or branch summary). Alone: all of its entries.",
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, description: "Most entries to return (query default: 10)." }),
  ),
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: "Continue a cut result from this character (the cut result names it).",
    }),
  ),
});

/** Arguments of the `recall` tool. */
export type RecallToolArguments = Static<typeof RecallToolParameters>;

/** `details` of a `recall` result (for UIs and hooks; the model sees only the text). */
export interface RecallToolDetails {
  /** `entries`: by id or by compaction; `search`: by query; `list`: the overview (no arguments). */
  mode: "entries" | "search" | "list";
  /** The entries shown (whole or in part), in output order. */
  entryIds: string[];
  /** Requested ids the session does not hold. */
  unknownIds: string[];
  /** Requested ids that exist but are not recallable (in the context, another branch, not a message). */
  refusedIds: string[];
  /** Search: how many entries matched. */
  matchCount?: number;
  /** Characters of the whole output; the text shows `offset` up to `nextOffset` (or the end). */
  totalChars: number;
  /** Set when the output was cut: the `offset` that continues it. */
  nextOffset?: number;
}

/** Options of {@link createRecallTool}. */
export interface RecallToolOptions {
  /**
   * The session to recall from, asked at each call (so the tool follows a harness that switches sessions).
   *
   * Contract: returns the live session; a throw becomes an error result.
   */
  getSession: () => Session;
  /** Bound of one result's text in UTF-8 bytes (default {@link DEFAULT_RECALL_MAX_BYTES}, at least 1,000). */
  maxBytes?: number;
}

const DESCRIPTION = [
  "Recall the exact original messages that were replaced by a summary of earlier conversation (they are kept in the session log).",
  "Use it when the summary lacks a detail you need: exact code, an error message, a command's output, a decision's wording.",
  "Give `query` to search the replaced messages (best matches first), or `entryIds` for specific entries (ids appear in recall results);",
  "with no arguments it lists what can be recalled. Results are bounded; a cut result says which `offset` continues it.",
].join(" ");

/** A recallable entry and the summary that replaced it. */
interface Recallable {
  ref: SessionEntryRef;
  /** The compaction or branch summary whose summary stands for it. */
  summaryId: string;
  /** Conversation order: path position, then abandoned branches after the path. */
  order: number;
}

/** What the current branch's summaries replaced. */
interface RecallScope {
  session: Session;
  /** Position of each entry of the current path. */
  positions: Map<string, number>;
  /** Replaced entries by id. */
  byId: Map<string, Recallable>;
  /** The compactions and branch summaries on the current path, in path order. */
  summaries: { id: string; type: string; timestamp: string }[];
}

const CONTEXT_TYPES: ReadonlySet<string> = new Set(["message", "custom_message", "branch_summary"]);

/**
 * Finds the replaced entries of the current branch. Costs O(path length) reading only tree fields, plus
 * parsing the compactions and branch summaries on the path and the abandoned spans those summaries cover —
 * never the rest of the session.
 */
function collectScope(session: Session): RecallScope {
  const path = session.getPath();
  const positions = new Map<string, number>();
  for (const [position, ref] of path.entries()) positions.set(ref.id, position);
  const scope: RecallScope = { session, positions, byId: new Map(), summaries: [] };
  const ranges: { id: string; end: number }[] = [];
  const branchSummaries: SessionEntry[] = [];
  for (const [position, ref] of path.entries()) {
    if (ref.type !== "compaction" && ref.type !== "branch_summary") continue;
    const entry = ref.entry();
    if (entry === undefined) continue;
    scope.summaries.push({ id: entry.id, type: entry.type, timestamp: entry.timestamp });
    if (entry.type === "branch_summary") branchSummaries.push(entry);
    else if (entry.type === "compaction") {
      const kept = positions.get(entry.firstKeptEntryId);
      ranges.push({ id: entry.id, end: kept !== undefined && kept <= position ? kept : position });
    }
  }
  // Compaction i replaced what lies between the kept starts of compactions i-1 and i (its own
  // `firstKeptEntryId`); the latest one's kept start ends everything hidden from the context.
  const hiddenEnd = ranges.at(-1)?.end ?? 0;
  let range = 0;
  for (let position = 0; position < hiddenEnd; position++) {
    while (range < ranges.length - 1 && ranges[range]!.end <= position) range++;
    const ref = path[position]!;
    if (CONTEXT_TYPES.has(ref.type)) {
      scope.byId.set(ref.id, { ref, summaryId: ranges[range]!.id, order: position });
    }
  }
  let order = path.length;
  for (const summary of branchSummaries) {
    for (const ref of abandonedSpan(session, summary, positions)) {
      if (!scope.byId.has(ref.id)) scope.byId.set(ref.id, { ref, summaryId: summary.id, order: order++ });
    }
  }
  return scope;
}

/** The context entries of the abandoned branch a branch summary covers (`details.covered`), oldest first. */
function abandonedSpan(
  session: Session,
  summary: SessionEntry,
  positions: Map<string, number>,
): SessionEntryRef[] {
  const span = readCoveredSpan((summary as { details?: unknown }).details);
  if (span === undefined || !session.has(span.lastEntryId) || positions.has(span.lastEntryId)) return [];
  const refs: SessionEntryRef[] = [];
  let id: string | null = span.lastEntryId;
  while (id !== null && !positions.has(id)) {
    const entry = session.getEntry(id);
    if (entry === undefined) break;
    if (CONTEXT_TYPES.has(entry.type)) refs.push(refOf(entry));
    if (id === span.firstEntryId) break;
    id = entry.parentId;
  }
  return refs.reverse();
}

function refOf(entry: SessionEntry): SessionEntryRef {
  return { id: entry.id, type: entry.type, parentId: entry.parentId, label: undefined, entry: () => entry };
}

// ---------------------------------------------------------------------------------------------------------
// Rendering

interface Rendered {
  /** `### <id> · <what> · <time>` */
  header: string;
  /** What the entry is: `user`, `assistant (provider/model)`, `tool result of read (call …)`, … */
  what: string;
  body: string;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined ? "" : JSON.stringify(content);
  return content
    .map((block: { type?: string; text?: string; mimeType?: string; data?: string }) => {
      if (block.type === "text") return block.text ?? "";
      if (block.type === "image") {
        const bytes = Math.floor(((block.data?.length ?? 0) * 3) / 4);
        return `[image ${block.mimeType ?? ""}, ${bytes} bytes, not included]`;
      }
      return JSON.stringify(block);
    })
    .join("\n");
}

function renderMessage(message: Record<string, unknown>): { what: string; body: string } {
  switch (message.role) {
    case "user":
      return { what: "user", body: contentText(message.content) };
    case "assistant": {
      const parts: string[] = [];
      for (const block of (message.content ?? []) as Record<string, unknown>[]) {
        if (block.type === "text") parts.push(String(block.text ?? ""));
        else if (block.type === "thinking") {
          parts.push(
            block.redacted === true ? "[thinking, redacted]" : `[thinking]\n${String(block.thinking)}`,
          );
        } else if (block.type === "toolCall") {
          parts.push(`[tool call ${String(block.name)}, id ${String(block.id)}]\n${json(block.arguments)}`);
        } else parts.push(json(block));
      }
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        parts.push(`[response ${message.stopReason}: ${String(message.errorMessage ?? "no message")}]`);
      }
      return {
        what: `assistant (${String(message.provider)}/${String(message.model)})`,
        body: parts.join("\n\n"),
      };
    }
    case "toolResult":
      return {
        what: `tool result of ${String(message.toolName)} (call ${String(message.toolCallId)})${message.isError === true ? ", error" : ""}`,
        body: contentText(message.content),
      };
    case "custom":
      return { what: `custom message (${String(message.customType)})`, body: contentText(message.content) };
    case "bashExecution": {
      const status =
        message.cancelled === true
          ? "\n[cancelled]"
          : typeof message.exitCode === "number" && message.exitCode !== 0
            ? `\n[exit code ${message.exitCode}]`
            : "";
      return {
        what: "shell command run by the user",
        body: `$ ${String(message.command)}\n${String(message.output ?? "")}${status}`,
      };
    }
    default:
      return { what: `${String(message.role)} message`, body: json(message) };
  }
}

function renderEntry(entry: SessionEntry): Rendered {
  let what: string;
  let body: string;
  if (entry.type === "message") ({ what, body } = renderMessage(entry.message as Record<string, unknown>));
  else if (entry.type === "custom_message") {
    what = `custom message (${entry.customType})`;
    body = contentText(entry.content);
  } else if (entry.type === "branch_summary") {
    what = "summary of an abandoned branch";
    body = entry.summary;
  } else {
    what = `${entry.type} entry`;
    body = json(entry);
  }
  return { header: `### ${entry.id} · ${what} · ${entry.timestamp}`, what, body };
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Search and output bounds

/** Words of a query: lowercase, split at whitespace, surrounding punctuation removed, duplicates dropped. */
function queryWords(query: string): string[] {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "") || word)
    .filter((word) => word !== "");
  return [...new Set(words)];
}

function occurrences(text: string, word: string, cap: number): number {
  let count = 0;
  for (
    let index = text.indexOf(word);
    index >= 0 && count < cap;
    index = text.indexOf(word, index + word.length)
  ) {
    count++;
  }
  return count;
}

/**
 * Score of a text for a query: 100 per distinct word found, 50 more when the whole phrase (of two or more
 * words) occurs, plus up to 10 for repeated occurrences; 0 when no word occurs.
 */
function score(lower: string, words: readonly string[], phrase: string): number {
  let found = 0;
  let repeats = 0;
  for (const word of words) {
    const count = occurrences(lower, word, 10);
    if (count > 0) found++;
    repeats += count;
  }
  if (found === 0) return 0;
  const phraseBonus = words.length > 1 && lower.includes(phrase) ? 50 : 0;
  return found * 100 + phraseBonus + Math.min(10, repeats);
}

/** A piece of the output: an entry (with its id) or a heading. */
interface Block {
  text: string;
  id?: string;
}

/**
 * The part of the blocks' text (joined by `separator`) from `offset` that fits `budget` bytes: whole blocks
 * while they fit, or — when not even the first one fits — that block cut (see {@link cutWithin}).
 */
function windowOf(
  blocks: readonly Block[],
  separator: string,
  offset: number,
  budget: number,
): { text: string; next: number | undefined; ids: string[] } {
  const full = blocks.map((block) => block.text).join(separator);
  const ids: string[] = [];
  let position = 0;
  let end = offset;
  let next = offset;
  let bytes = 0;
  for (const block of blocks) {
    const blockEnd = position + block.text.length;
    if (blockEnd > offset || position >= offset) {
      const piece = Buffer.byteLength(full.slice(end, blockEnd));
      if (bytes + piece > budget) {
        if (end === offset) {
          end = cutWithin(full, offset, budget);
          next = end;
          if (block.id !== undefined) ids.push(block.id);
        }
        break;
      }
      bytes += piece;
      end = blockEnd;
      // A continuation starts at the next block, not at the separator.
      next = blockEnd + separator.length;
      if (block.id !== undefined) ids.push(block.id);
    }
    position = blockEnd + separator.length;
  }
  return { text: full.slice(offset, end), next: next < full.length ? next : undefined, ids };
}

/** The largest end ≤ the text's length such that `text.slice(start, end)` fits `budget` bytes. */
function cutWithin(text: string, start: number, budget: number): number {
  let end = Math.min(text.length, start + budget);
  for (let bytes = Buffer.byteLength(text.slice(start, end)); bytes > budget && end > start; ) {
    end = Math.min(end - 1, start + Math.floor(((end - start) * budget) / bytes));
    bytes = Buffer.byteLength(text.slice(start, end));
  }
  const code = text.charCodeAt(end - 1);
  if (end > start && end < text.length && code >= 0xd800 && code <= 0xdbff) end--;
  const newline = text.lastIndexOf("\n", end - 1);
  if (end < text.length && newline > start + (end - start) * 0.8) end = newline + 1;
  return end;
}

// ---------------------------------------------------------------------------------------------------------
// The tool

type RecallResult = AgentToolResult<RecallToolDetails>;

function newDetails(mode: RecallToolDetails["mode"]): RecallToolDetails {
  return { mode, entryIds: [], unknownIds: [], refusedIds: [], totalChars: 0 };
}

function errorResult(text: string, details: RecallToolDetails = newDetails("entries")): RecallResult {
  return { content: [{ type: "text", text }], isError: true, details };
}

/** `1 entry`, `2 entries`. */
function entries(count: number): string {
  return `${count} ${count === 1 ? "entry" : "entries"}`;
}

/** Why an id that the session holds is not recallable. */
function refusal(scope: RecallScope, id: string, compactionId: string | undefined): string {
  const recallable = scope.byId.get(id);
  if (recallable !== undefined) return `${id} (replaced by ${recallable.summaryId}, not by ${compactionId})`;
  const type = scope.session.getEntry(id)?.type;
  if (type !== undefined && !CONTEXT_TYPES.has(type)) return `${id} (a ${type} entry, not a message)`;
  if (scope.positions.has(id)) return `${id} (already in your context)`;
  return `${id} (on another branch, not replaced by a summary on this one)`;
}

/**
 * Creates the `recall` tool. Arguments (all optional):
 *
 * - `entryIds`: return these entries, in conversation order; unknown and non-recallable ids are named in
 *   a note, and the result is an error only when none is recallable;
 * - `query`: search the replaced entries (case-insensitive words: entries with more of the words, with the
 *   exact phrase, with more occurrences rank higher; ties in conversation order) and return the best
 *   `limit` (default 10), best first;
 * - `compactionId`: restrict to what that compaction (or branch summary) replaced; alone, return its
 *   entries (the first `limit`, default 50);
 * - `limit`: most entries (1–100); `offset`: continue a cut output;
 * - none: list what can be recalled — each summary with the id and first line of each entry it replaced.
 *
 * Each entry is shown whole and exact: a header (`### <id> · <role, model / tool, call id> · <time>`),
 * then text, thinking, tool calls with their JSON arguments, tool results (images are named, not
 * included). The text is bounded by `maxBytes`: whole entries while they fit (the first one cut when even
 * it does not), then a note naming the `offset` that continues it.
 *
 * Contract: `execute` never throws — bad arguments, unknown ids and a failing `getSession` are error
 * results. A call reads the tree fields of the current branch (O(branch length)) and parses only the
 * summaries on it and the entries it returns or searches; never the rest of the session. Throws
 * `InvalidArgumentError` at creation when `maxBytes` is not a number ≥ 1,000.
 */
export function createRecallTool(
  options: RecallToolOptions,
): AgentTool<typeof RecallToolParameters, RecallToolDetails> {
  const maxBytes = options.maxBytes ?? DEFAULT_RECALL_MAX_BYTES;
  if (typeof maxBytes !== "number" || !(maxBytes >= MIN_MAX_BYTES)) {
    throw new InvalidArgumentError(
      `createRecallTool: maxBytes must be at least ${MIN_MAX_BYTES}, got ${maxBytes}.`,
    );
  }
  return {
    name: RECALL_TOOL_NAME,
    label: "Recall",
    description: DESCRIPTION,
    parameters: RecallToolParameters,
    execute(args) {
      try {
        return recall(options.getSession(), args ?? {}, Math.floor(Math.min(maxBytes, 1e9)));
      } catch (error) {
        return errorResult(`recall failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}

/** What a call selected: the entries to show (or the overview's blocks), with a preface and notes. */
interface Selection {
  details: RecallToolDetails;
  blocks: Block[];
  preface: string;
  notes: string[];
}

function recall(session: Session, args: RecallToolArguments, maxBytes: number): RecallResult {
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
  const scope = collectScope(session);
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
  const candidates = [...scope.byId.values()]
    .filter((recallable) => compactionId === undefined || recallable.summaryId === compactionId)
    .sort((a, b) => a.order - b.order);
  let selection: Selection | RecallResult;
  if (entryIds !== undefined) selection = selectIds(scope, entryIds, compactionId, limit);
  else if (query !== undefined)
    selection = selectMatches(scope, candidates, query, limit ?? DEFAULT_SEARCH_LIMIT);
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

/** The best matches of a query, best first. */
function selectMatches(
  scope: RecallScope,
  candidates: readonly Recallable[],
  query: string,
  limit: number,
): Selection | RecallResult {
  const words = queryWords(query);
  if (words.length === 0)
    return errorResult("The query is empty: give words to search for.", newDetails("search"));
  const phrase = words.join(" ");
  const matches: { recallable: Recallable; score: number }[] = [];
  for (const recallable of candidates) {
    const entry = recallable.ref.entry();
    const value = entry === undefined ? 0 : score(renderEntry(entry).body.toLowerCase(), words, phrase);
    if (value > 0) matches.push({ recallable, score: value });
  }
  matches.sort((a, b) => b.score - a.score || a.recallable.order - b.recallable.order);
  const details: RecallToolDetails = { ...newDetails("search"), matchCount: matches.length };
  if (matches.length === 0) {
    const text = `No replaced entry matches "${query}" (${entries(scope.byId.size)} can be recalled). Try other words, or call recall with no arguments for a list.`;
    return { content: [{ type: "text", text }], details: { ...details, totalChars: text.length } };
  }
  const chosen = matches.slice(0, limit).map((match) => match.recallable);
  const notes =
    matches.length > limit
      ? [`${matches.length - limit} more entries match; raise limit (up to 100) to see them.`]
      : [];
  const preface = `${entries(matches.length)} match "${query}"; showing ${chosen.length}, best match first:`;
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
      const kind = summary?.type === "branch_summary" ? "Branch summary" : "Compaction";
      const heading = `${kind} ${summaryId} (${summary?.timestamp}) replaced ${entries(counts.get(summaryId) ?? 0)}:`;
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

/** A text cut to at most `maxBytes` bytes, ending with `…` when cut. */
function truncateText(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  return `${text.slice(0, cutWithin(text, 0, maxBytes - 3))}…`;
}
