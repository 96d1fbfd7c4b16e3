import { ToolPairing } from "@arbor/ai-providers";
import type { SessionMessage } from "./context-messages.js";

/** A change {@link repairToolPairs} made to keep every tool call paired with exactly one result. */
export type ContextRepair =
  | {
      /** A tool call had no result: a synthetic error result was added after the call's turn. */
      kind: "missing_tool_result";
      /** The entry of the assistant message that made the call. */
      entryId: string;
      toolCallId: string;
      toolName: string;
    }
  | {
      /** A tool result answered no open call (no call, a closed turn, or a second result): dropped. */
      kind: "orphan_tool_result";
      /** The entry of the dropped result. */
      entryId: string;
      toolCallId: string;
    }
  | {
      /**
       * A tool call repeats the id of an earlier call of the context (a provider reused ids): it goes out
       * under `newId` (`<id>_<n>`), and so does its result. Providers reject repeated ids.
       */
      kind: "renamed_tool_call";
      /** The entry of the assistant message that made the call. */
      entryId: string;
      toolCallId: string;
      newId: string;
    }
  | {
      /**
       * A message came between a tool call and its results: it was moved after the results (providers
       * reject anything between a call and its result).
       */
      kind: "moved_message";
      entryId: string;
    };

/** A context message with the id of the entry it comes from. */
export interface SourcedMessage {
  message: SessionMessage;
  entryId: string;
}

/**
 * Hands out the output id of every tool call: its own id the first time it is seen, else `<id>_<n>` with
 * the smallest `n` (from 2) that no call of the context uses (providers reject a repeated id).
 */
class ToolCallIds {
  private readonly given = new Set<string>();
  private readonly nextSuffix = new Map<string, number>();

  constructor(private readonly stored: ReadonlySet<string>) {}

  unique(id: string): string {
    if (!this.given.has(id)) {
      this.given.add(id);
      return id;
    }
    let counter = this.nextSuffix.get(id) ?? 2;
    let candidate: string;
    do {
      candidate = `${id}_${counter}`;
      counter += 1;
    } while (this.stored.has(candidate) || this.given.has(candidate));
    this.nextSuffix.set(id, counter);
    this.given.add(candidate);
    return candidate;
  }
}

/** Every tool-call id the assistant messages of a context hold. */
function storedToolCallIds(messages: readonly SessionMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) if (block.type === "toolCall") ids.add(block.id);
  }
  return ids;
}

/**
 * Declares the calls of an assistant message to the pairing, giving each its output id; returns the
 * message as it goes out (a copy when a call got a new id) and records the renames.
 */
function declareCalls(
  stored: Extract<SessionMessage, { role: "assistant" }>,
  entryId: string,
  ids: ToolCallIds,
  pairing: ToolPairing<SessionMessage, string>,
  repairs: ContextRepair[],
): Extract<SessionMessage, { role: "assistant" }> {
  let content: typeof stored.content | undefined;
  const blocks = stored.content;
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index] as (typeof blocks)[number];
    if (block.type !== "toolCall") continue;
    const outId = ids.unique(block.id);
    pairing.call(block.id, outId, block.name);
    if (outId !== block.id) {
      content ??= [...blocks];
      content[index] = { ...block, id: outId };
      repairs.push({ kind: "renamed_tool_call", entryId, toolCallId: block.id, newId: outId });
    }
  }
  return content === undefined ? stored : { ...stored, content };
}

/**
 * {@link repairToolPairs} over parallel arrays (the form `buildSessionContext` holds): returns the
 * repaired arrays, never touching the input ones.
 */
export function repairToolPairsOf(
  messages: readonly SessionMessage[],
  entryIds: readonly string[],
): { messages: SessionMessage[]; entryIds: string[]; repairs: ContextRepair[] } {
  const outMessages: SessionMessage[] = [];
  const outIds: string[] = [];
  const repairs: ContextRepair[] = [];
  const ids = new ToolCallIds(storedToolCallIds(messages));
  const pairing = new ToolPairing<SessionMessage, string>({
    emit: (message, entryId) => {
      outMessages.push(message);
      outIds.push(entryId);
    },
    orphan: (result, entryId) => {
      repairs.push({ kind: "orphan_tool_result", entryId, toolCallId: result.toolCallId });
    },
    missing: (call, entryId) => {
      repairs.push({ kind: "missing_tool_result", entryId, toolCallId: call.id, toolName: call.name });
    },
    moved: (_message, entryId) => {
      repairs.push({ kind: "moved_message", entryId });
    },
  });

  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as SessionMessage;
    const entryId = entryIds[index] as string;
    if (message.role === "toolResult") pairing.result(message, entryId);
    else if (message.role === "assistant") {
      pairing.close(); // first, so that the repairs of the closing turn come before this one's renames
      pairing.open(declareCalls(message, entryId, ids, pairing, repairs), entryId);
    } else pairing.message(message, entryId);
  }
  pairing.close();
  return { messages: outMessages, entryIds: outIds, repairs };
}

/**
 * Makes a context safe to send: every tool call of an assistant message is followed by exactly one
 * result before the next non-result message. The pairing is `ToolPairing` of `@arbor/ai-providers` in
 * call order (the rule `transformMessages` follows too); this adds the renames and the repair records.
 *
 * - Tool-call ids are unique in the output: a call that repeats an earlier call's id (a provider reused
 *   ids) goes out as `<id>_<n>`, its result with it (`renamed_tool_call`).
 * - A result for an open call of the last assistant message is kept; the results of a turn follow its
 *   assistant message in the order of its calls. Messages that came between the call and its last
 *   result are moved after the results (`moved_message`); the turn closes as soon as every call is
 *   answered.
 * - A result that answers no open call is dropped (`orphan_tool_result`).
 * - When the next assistant message arrives, or the context ends, each call still unanswered gets a
 *   synthetic error result (`MISSING_TOOL_RESULT_TEXT`, `isError: true`, the assistant's timestamp) in
 *   its call's place, attributed to the assistant's entry (`missing_tool_result`).
 *
 * Contract: never mutates its input (a renamed call or result is a copy); keeps the relative order of
 * everything it does not move; linear in the number of messages and tool calls.
 */
export function repairToolPairs(items: readonly SourcedMessage[]): {
  items: SourcedMessage[];
  repairs: ContextRepair[];
} {
  const repaired = repairToolPairsOf(
    items.map((item) => item.message),
    items.map((item) => item.entryId),
  );
  const output = repaired.messages.map((message, index) => ({
    message,
    entryId: repaired.entryIds[index] as string,
  }));
  return { items: output, repairs: repaired.repairs };
}
