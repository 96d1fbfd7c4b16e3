import type { SessionMessage } from "./context-messages.js";
import { type ContextRepair, repairToolPairsOf } from "./context-repair.js";
import type { CompactionEntry } from "./entries.js";
import { compactionSummaryMessage, entryMessage } from "./entry-message.js";
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
}

/** The entries of a compaction's kept span (from `firstKeptEntryId` to its parent), computed once. */
function keptSpan(index: SessionIndex, compaction: number, entry: CompactionEntry): readonly number[] {
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
      index.warnings.push(
        `Compaction "${entry.id}" keeps from "${entry.firstKeptEntryId}", which is not on its path; ` +
          "nothing before the compaction is kept.",
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
 * 4. Thinking level, model and active tools come from the settings entries on the path (each node knows
 *    its nearest settings ancestor, so this follows a chain of settings entries only); an assistant
 *    message later on the path than the latest `model_change` sets the model.
 * 5. `repairToolPairs` pairs every tool call with exactly one result.
 *
 * Contract: reads (and parses) only the entries of the context span and the settings chain, never the
 * rest of the session; costs O(entries on the path since the latest compaction + its kept span).
 */
export function buildSessionContext(index: SessionIndex, leafId: string | null): SessionContext {
  // The context of a leaf never changes (entries are only appended): the last one built is reused, so
  // that the path is walked and its tool pairs repaired once, however often it is asked for.
  const leafOrder = leafId === null ? undefined : index.orderOf(leafId);
  const cached = lastBuilt.get(index);
  if (cached !== undefined && leafOrder !== undefined && cached.leaf === leafOrder)
    return copyContext(cached.context);
  const built = buildUncached(index, leafId);
  if (leafOrder !== undefined) lastBuilt.set(index, { leaf: leafOrder, context: copyContext(built) });
  return built;
}

/** The last context built per index, by its leaf's order. */
const lastBuilt = new WeakMap<SessionIndex, { leaf: number; context: SessionContext }>();

/** A context whose arrays are the caller's own (the messages are shared). */
function copyContext(context: SessionContext): SessionContext {
  const copy: SessionContext = {
    ...context,
    messages: [...context.messages],
    entryIds: [...context.entryIds],
    repairs: [...context.repairs],
  };
  if (context.activeToolNames !== undefined) copy.activeToolNames = [...context.activeToolNames];
  if (context.model !== undefined) copy.model = { ...context.model };
  return copy;
}

function buildUncached(index: SessionIndex, leafId: string | null): SessionContext {
  const context: SessionContext = {
    messages: [],
    entryIds: [],
    leafId,
    thinkingLevel: undefined,
    model: undefined,
    activeToolNames: undefined,
    compactionId: undefined,
    repairs: [],
  };
  const leaf = leafId === null ? undefined : index.orderOf(leafId);
  if (leaf === undefined) return context;

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

  const messages: SessionMessage[] = [];
  const entryIds: string[] = [];
  let kept: readonly number[] = [];
  if (compaction !== undefined) {
    messages.push(compactionSummaryMessage(compaction.entry));
    entryIds.push(compaction.entry.id);
    context.compactionId = compaction.entry.id;
    kept = keptSpan(index, compaction.order, compaction.entry);
  }

  let lastAssistantOrder = NONE;
  let lastAssistant: { provider: string; model: string } | undefined;
  const visit = (node: number): void => {
    const type = index.typeOf(node);
    if (type !== "message" && type !== "custom_message" && type !== "branch_summary") return;
    const entry = index.validEntry(node);
    const message = entry === undefined ? undefined : entryMessage(entry);
    if (message === undefined) return;
    messages.push(message);
    entryIds.push(index.idOf(node));
    if (message.role === "assistant") {
      lastAssistantOrder = node;
      lastAssistant = message;
    }
  };
  for (const node of kept) visit(node);
  for (let position = tail.length - 1; position >= 0; position--) visit(tail[position] as number);

  let modelChange: { order: number; model: ContextModel } | undefined;
  let settings = index.settingsAnchorOf(leaf);
  while (
    settings !== NONE &&
    (context.thinkingLevel === undefined ||
      modelChange === undefined ||
      context.activeToolNames === undefined)
  ) {
    const entry = index.validEntry(settings);
    if (entry?.type === "thinking_level_change") context.thinkingLevel ??= entry.thinkingLevel;
    else if (entry?.type === "model_change") {
      modelChange ??= { order: settings, model: { provider: entry.provider, modelId: entry.modelId } };
    } else if (entry?.type === "active_tools_change") context.activeToolNames ??= [...entry.activeToolNames];
    const parent = index.parentOf(settings);
    settings = parent === NONE ? NONE : index.settingsAnchorOf(parent);
  }
  context.model =
    lastAssistant !== undefined && (modelChange === undefined || lastAssistantOrder > modelChange.order)
      ? { provider: lastAssistant.provider, modelId: lastAssistant.model }
      : modelChange?.model;

  const repaired = repairToolPairsOf(messages, entryIds);
  context.messages = repaired.messages;
  context.entryIds = repaired.entryIds;
  context.repairs = repaired.repairs;
  return context;
}
