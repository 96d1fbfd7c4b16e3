import type { SessionMessage } from "./context-messages.js";
import { type ContextRepair, ContextRepairer } from "./context-repair.js";
import type { CompactionEntry } from "./entries.js";
import { compactionSummaryMessage, entryMessage } from "./entry-message.js";
import { prunedToolResult } from "./pruned-tool-result.js";
import { NONE, type SessionIndex } from "./session-index.js";

/** The model a context was last used with: the latest `model_change` or assistant message on the path. */
export interface ContextModel {
  provider: string;
  modelId: string;
}

/** What {@link buildSessionContext} returns: the messages for the model and the settings of the path. */
export interface SessionContext {
  /** The messages, oldest first, repaired so that every tool call has exactly one result. */
  messages: SessionMessage[];
  /**
   * The entry each message comes from (same index). The compaction summary names the compaction entry; a
   * synthetic tool result names the entry of the assistant message whose call it answers.
   */
  entryIds: string[];
  /** The leaf the context was built for. */
  leafId: string | null;
  /** The latest `thinking_level_change` on the path (undefined: never set). */
  thinkingLevel: string | undefined;
  /** The latest `model_change` or assistant message on the path (undefined: none). */
  model: ContextModel | undefined;
  /** The latest `active_tools_change` on the path (undefined: never set). */
  activeToolNames: string[] | undefined;
  /** The compaction the context starts from (the latest on the path), if any. */
  compactionId: string | undefined;
  /** What was repaired (see `repairToolPairs`). */
  repairs: ContextRepair[];
  /** The entries of the tool results shown as stubs (`prune` entries on the path named them), in order. */
  prunedEntryIds: string[];
}

/** The entries of a compaction's kept span (from `firstKeptEntryId` to its parent), computed once. */
export function keptSpan(index: SessionIndex, compaction: number, entry: CompactionEntry): readonly number[] {
  const cached = index.keptSpans.get(compaction);
  if (cached !== undefined) return cached;
  let span: number[] = [];
  if (entry.firstKeptEntryId !== entry.id) {
    let found = false;
    for (let node = index.parentOf(compaction); node !== NONE; node = index.parentOf(node)) {
      span.push(node);
      if (index.idOf(node) === entry.firstKeptEntryId) {
        found = true;
        break;
      }
    }
    if (found) span.reverse();
    else {
      span = [];
      index.warn(
        "compaction_span",
        "compactions keep from an entry that is not on their path; nothing before them is kept",
        `Compaction "${entry.id}" keeps from "${entry.firstKeptEntryId}", which is not on its path; ` +
          "nothing before the compaction is kept.",
        entry.id,
      );
    }
  }
  index.keptSpans.set(compaction, span);
  return span;
}

/**
 * Builds the context of the path that ends at `leafId` (docs/session-format.md):
 *
 * 1. Walk from the leaf towards the root until the latest compaction on the path (found in O(1): every
 *    node knows its nearest compaction ancestor). Without one, the walk reaches the root.
 * 2. With a compaction: its summary (a `compactionSummary` message) comes first, then the entries of its
 *    kept span (from `firstKeptEntryId` up to the compaction; computed once per compaction), then the
 *    entries after it.
 * 3. `message` entries give their message, `custom_message` a `custom` message, `branch_summary` a
 *    `branchSummary` message; other entries (and older compactions inside the kept span) give none.
 *    Entries that cannot be read or are invalid for their type are left out (reported in the index's
 *    warnings).
 *    A tool result named by a `prune` entry later on the path (in the span) gives its stub instead
 *    (`prunedToolResult`); the prune entries are found by their type on the span's walk, so only they and
 *    the span's own entries are parsed.
 * 4. Thinking level, model and active tools come from the settings entries on the path (each node knows
 *    its nearest settings ancestor, so this follows a chain of settings entries only); an assistant
 *    message later on the path than the latest `model_change` sets the model.
 * 5. `repairToolPairs` pairs every tool call with exactly one result.
 *
 * The last context built for an index is kept: asked again for the same leaf, or for a leaf further down
 * its path with no compaction in between (entries appended since), it visits and repairs only the new
 * entries (the repair re-runs from the last assistant message, whose turn the new entries may close). New
 * entries that hold a `prune` make it build again (a prune changes earlier messages; it is rare).
 *
 * Contract: reads (and parses) only the entries of the context span and the settings chain, never the
 * rest of the session; costs O(entries on the path since the latest compaction + its kept span), or,
 * after appends to the last built leaf's path, O(new entries) plus a copy of the arrays.
 */
export function buildSessionContext(index: SessionIndex, leafId: string | null): SessionContext {
  // The context of a leaf never changes (entries are only appended): the last one built is reused, and
  // when the leaf has moved down its path (entries appended to it) only the new entries are visited and
  // repaired, so a context is built and repaired once per span, however often it is asked for.
  const leaf = leafId === null ? undefined : index.orderOf(leafId);
  if (leaf === undefined) return emptyContext(leafId);
  const cached = lastBuilt.get(index);
  if (cached !== undefined && (cached.leaf === leaf || extend(index, cached, leaf)))
    return copyContext(cached.context);
  lastBuilt.delete(index); // until the new one is complete
  const built = buildUncached(index, leaf);
  lastBuilt.set(index, built);
  return copyContext(built.context);
}

/** A built context and what extending it to a later leaf of its path needs. */
interface Built {
  /** The order of the leaf it was built for. */
  leaf: number;
  /** Its arrays are the repairer's (copied before they are handed out). */
  context: SessionContext;
  repairer: ContextRepairer;
  lastAssistantOrder: number;
  lastAssistant: { provider: string; model: string } | undefined;
}

/** The last context built per index. */
const lastBuilt = new WeakMap<SessionIndex, Built>();

function emptyContext(leafId: string | null): SessionContext {
  return {
    messages: [],
    entryIds: [],
    leafId,
    thinkingLevel: undefined,
    model: undefined,
    activeToolNames: undefined,
    compactionId: undefined,
    repairs: [],
    prunedEntryIds: [],
  };
}

/** A context whose arrays are the caller's own (the messages are shared). */
function copyContext(context: SessionContext): SessionContext {
  const copy: SessionContext = {
    ...context,
    messages: [...context.messages],
    entryIds: [...context.entryIds],
    repairs: [...context.repairs],
    prunedEntryIds: [...context.prunedEntryIds],
  };
  if (context.activeToolNames !== undefined) copy.activeToolNames = [...context.activeToolNames];
  if (context.model !== undefined) copy.model = { ...context.model };
  return copy;
}

/** Messages of visited entries, with the last assistant message among them. */
class Visited {
  readonly messages: SessionMessage[] = [];
  readonly entryIds: string[] = [];
  readonly prunedEntryIds: string[] = [];
  lastAssistantOrder = NONE;
  lastAssistant: { provider: string; model: string } | undefined;

  /** @param pruned - the order of the latest `prune` entry of the span naming each entry id */
  constructor(
    private readonly index: SessionIndex,
    private readonly pruned: ReadonlyMap<string, number> = new Map(),
  ) {}

  /** Adds the message of an entry, if it gives one (step 3). */
  visit(node: number): void {
    const { index } = this;
    const type = index.typeOf(node);
    if (type !== "message" && type !== "custom_message" && type !== "branch_summary") return;
    const entry = index.validEntry(node);
    let message = entry === undefined ? undefined : entryMessage(entry);
    if (message === undefined) return;
    const id = index.idOf(node);
    if (message.role === "toolResult" && (this.pruned.get(id) ?? NONE) > node) {
      message = prunedToolResult(message, id);
      this.prunedEntryIds.push(id);
    }
    this.messages.push(message);
    this.entryIds.push(id);
    if (message.role === "assistant") {
      this.lastAssistantOrder = node;
      this.lastAssistant = message;
    }
  }
}

/**
 * Brings a built context to a later leaf of its path with no compaction in between: visits and repairs
 * the new entries only. False (and `built` unchanged) when the leaf is not such a descendant, or the
 * repair must start over (see `ContextRepairer.extend`).
 */
function extend(index: SessionIndex, built: Built, leaf: number): boolean {
  if (leaf < built.leaf || index.compactionAnchorOf(leaf) !== index.compactionAnchorOf(built.leaf))
    return false;
  const tail: number[] = [];
  let node = leaf;
  for (; node > built.leaf; node = index.parentOf(node)) {
    if (index.typeOf(node) === "prune") return false;
    tail.push(node);
  }
  if (node !== built.leaf) return false;
  const visited = new Visited(index);
  for (let position = tail.length - 1; position >= 0; position--) visited.visit(tail[position] as number);
  if (!built.repairer.extend(visited.messages, visited.entryIds)) return false;
  built.leaf = leaf;
  built.context.prunedEntryIds.push(...visited.prunedEntryIds);
  if (visited.lastAssistant !== undefined) {
    built.lastAssistantOrder = visited.lastAssistantOrder;
    built.lastAssistant = visited.lastAssistant;
  }
  built.context.leafId = index.idOf(leaf);
  applySettings(index, built);
  return true;
}

function buildUncached(index: SessionIndex, leaf: number): Built {
  const context = emptyContext(index.idOf(leaf));

  // The path from the leaf back to the latest (valid) compaction on it, or to the root.
  const tail: number[] = [];
  let compaction: { order: number; entry: CompactionEntry } | undefined;
  let anchor = index.compactionAnchorOf(leaf);
  for (let node = leaf; node !== NONE; node = index.parentOf(node)) {
    if (node === anchor) {
      const entry = index.validEntry(node);
      if (entry?.type === "compaction") {
        compaction = { order: node, entry };
        break;
      }
      const parent = index.parentOf(node);
      anchor = parent === NONE ? NONE : index.compactionAnchorOf(parent);
    }
    tail.push(node);
  }

  const kept = compaction === undefined ? [] : keptSpan(index, compaction.order, compaction.entry);
  const visited = new Visited(index, prunedInSpan(index, kept, tail));
  if (compaction !== undefined) {
    visited.messages.push(compactionSummaryMessage(compaction.entry));
    visited.entryIds.push(compaction.entry.id);
    context.compactionId = compaction.entry.id;
  }
  for (const node of kept) visited.visit(node);
  for (let position = tail.length - 1; position >= 0; position--) visited.visit(tail[position] as number);

  const repairer = new ContextRepairer();
  repairer.extend(visited.messages, visited.entryIds);
  context.messages = repairer.messages;
  context.entryIds = repairer.entryIds;
  context.repairs = repairer.repairs;
  context.prunedEntryIds = visited.prunedEntryIds;
  const built: Built = {
    leaf,
    context,
    repairer,
    lastAssistantOrder: visited.lastAssistantOrder,
    lastAssistant: visited.lastAssistant,
  };
  applySettings(index, built);
  return built;
}

/**
 * The entry ids the `prune` entries of a span name, each with the order of the latest prune naming it
 * (step 3). Prune entries before the span are irrelevant: what they named is summarized. Only the span's
 * prune entries are parsed (their type is in the index).
 */
function prunedInSpan(
  index: SessionIndex,
  kept: readonly number[],
  tail: readonly number[],
): Map<string, number> {
  const pruned = new Map<string, number>();
  const collect = (node: number) => {
    if (index.typeOf(node) !== "prune") return;
    const entry = index.validEntry(node);
    if (entry?.type !== "prune") return;
    for (const id of entry.entryIds) {
      if ((pruned.get(id) ?? NONE) < node) pruned.set(id, node);
    }
  };
  for (const node of kept) collect(node);
  for (const node of tail) collect(node);
  return pruned;
}

/** The settings entries on a leaf's path: the latest thinking level, active tools and model change. */
interface PathSettingEntries {
  thinkingLevel: string | undefined;
  activeToolNames: string[] | undefined;
  modelChange: { order: number; model: ContextModel } | undefined;
}

/** Walks the settings anchors of a leaf's path, parsing only settings entries (step 4). */
function settingEntries(index: SessionIndex, leaf: number): PathSettingEntries {
  const found: PathSettingEntries = {
    thinkingLevel: undefined,
    activeToolNames: undefined,
    modelChange: undefined,
  };
  let settings = index.settingsAnchorOf(leaf);
  while (
    settings !== NONE &&
    (found.thinkingLevel === undefined ||
      found.modelChange === undefined ||
      found.activeToolNames === undefined)
  ) {
    const entry = index.validEntry(settings);
    if (entry?.type === "thinking_level_change") found.thinkingLevel ??= entry.thinkingLevel;
    else if (entry?.type === "model_change") {
      found.modelChange ??= { order: settings, model: { provider: entry.provider, modelId: entry.modelId } };
    } else if (entry?.type === "active_tools_change") found.activeToolNames ??= [...entry.activeToolNames];
    const parent = index.parentOf(settings);
    settings = parent === NONE ? NONE : index.settingsAnchorOf(parent);
  }
  return found;
}

/** Thinking level, model and active tools of the built context's leaf (step 4). */
function applySettings(index: SessionIndex, built: Built): void {
  const { context, lastAssistant } = built;
  const { thinkingLevel, activeToolNames, modelChange } = settingEntries(index, built.leaf);
  context.thinkingLevel = thinkingLevel;
  context.activeToolNames = activeToolNames;
  context.model =
    lastAssistant !== undefined && (modelChange === undefined || built.lastAssistantOrder > modelChange.order)
      ? { provider: lastAssistant.provider, modelId: lastAssistant.model }
      : modelChange?.model;
}

/** The settings of a leaf: what {@link buildSessionContext} reports as `thinkingLevel`, `model`, `activeToolNames`. */
export type SessionSettings = Pick<SessionContext, "thinkingLevel" | "model" | "activeToolNames">;

/**
 * The thinking level, model and active tools in effect at a leaf — the same as
 * `buildSessionContext(index, leafId)` reports — without building the messages: the settings entries are
 * found through the index, and the model of the latest assistant message in the context by walking back
 * from the leaf, parsing only `message` entries, up to the latest model change.
 *
 * Contract: reads only; parses the settings entries of the path and the messages after the last assistant
 * message of the context (usually one or two), never the rest.
 */
export function sessionSettings(index: SessionIndex, leafId: string | null): SessionSettings {
  const leaf = leafId === null ? undefined : index.orderOf(leafId);
  if (leaf === undefined) return { thinkingLevel: undefined, model: undefined, activeToolNames: undefined };
  const { thinkingLevel, activeToolNames, modelChange } = settingEntries(index, leaf);
  const stop = modelChange?.order ?? NONE;
  const assistantAt = (node: number): ContextModel | undefined => {
    if (index.typeOf(node) !== "message") return undefined;
    const entry = index.validEntry(node);
    const message = entry === undefined ? undefined : entryMessage(entry);
    return message?.role === "assistant" ? { provider: message.provider, modelId: message.model } : undefined;
  };
  let model: ContextModel | undefined;
  let anchor = index.compactionAnchorOf(leaf);
  for (let node = leaf; node !== NONE && node > stop && model === undefined; node = index.parentOf(node)) {
    if (node === anchor) {
      const entry = index.validEntry(node);
      if (entry?.type === "compaction") {
        // The context holds the compaction's kept span, then the tail walked so far.
        const kept = keptSpan(index, node, entry);
        for (let position = kept.length - 1; position >= 0 && model === undefined; position--) {
          const keptNode = kept[position] as number;
          if (keptNode > stop) model = assistantAt(keptNode);
        }
        break;
      }
      const parent = index.parentOf(node);
      anchor = parent === NONE ? NONE : index.compactionAnchorOf(parent);
    }
    model = assistantAt(node);
  }
  return { thinkingLevel, activeToolNames, model: model ?? modelChange?.model };
}
