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
  /** Every tool-call id the assistant messages fed so far hold. */
  readonly stored = new Set<string>();
  /** The new ids given by renames (`<id>_<n>`). */
  readonly renames = new Set<string>();
  private readonly given = new Set<string>();
  private readonly nextSuffix = new Map<string, number>();

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
    this.renames.add(candidate);
    return candidate;
  }
}

type AssistantMessage = Extract<SessionMessage, { role: "assistant" }>;

/**
 * The tool-pair repair of a context that grows at its end (see {@link repairToolPairs} for the rule):
 * {@link ContextRepairer.extend} feeds the messages appended since the last call and brings
 * {@link ContextRepairer.messages} (and `entryIds`, `repairs`) to what a repair of the whole sequence
 * gives. Everything before the last assistant message is final once fed (the next assistant message
 * closes every turn before it), so an extension re-runs the pairing from that message only.
 */
export class ContextRepairer {
  /** The repaired messages of everything fed so far (the repairer's own array: copy it to keep it). */
  readonly messages: SessionMessage[] = [];
  /** The entry of each repaired message. */
  readonly entryIds: string[] = [];
  /** What the repair changed, in the order a whole-sequence repair reports it. */
  readonly repairs: ContextRepair[] = [];
  private readonly ids = new ToolCallIds();
  /** The fed messages from the last assistant message on (the pairing re-runs over them). */
  private suffix: SessionMessage[] = [];
  private suffixIds: string[] = [];
  /** The last assistant message as it went out (its calls renamed), or undefined: none yet. */
  private lastOut: AssistantMessage | undefined;
  /** Output messages before the last assistant message; repairs up to its renames. */
  private messageMark = 0;
  private repairMark = 0;

  /**
   * Feeds the messages that follow those fed before. Returns false, feeding nothing, when they hold a
   * tool-call id that an earlier rename handed out (a whole-sequence repair would have chosen another
   * name before: repair from scratch then).
   *
   * Contract: never mutates the messages; costs O(new messages + the fed messages since the last
   * assistant message), not O(everything fed).
   */
  extend(messages: readonly SessionMessage[], entryIds: readonly string[]): boolean {
    const { ids } = this;
    const added: string[] = [];
    for (const message of messages) {
      if (message.role !== "assistant") continue;
      for (const block of message.content) {
        if (block.type !== "toolCall") continue;
        if (ids.renames.has(block.id)) {
          for (const id of added) ids.stored.delete(id);
          return false;
        }
        if (!ids.stored.has(block.id)) {
          ids.stored.add(block.id);
          added.push(block.id);
        }
      }
    }
    this.messages.length = this.messageMark;
    this.entryIds.length = this.messageMark;
    this.repairs.length = this.repairMark;
    const pairing = this.pairing();
    const lastOut = this.lastOut;
    const suffix = this.suffix;
    const suffixIds = this.suffixIds;
    let start = 0;
    if (lastOut !== undefined) {
      // Re-open the last assistant's turn under the ids its calls went out with.
      const stored = suffix[0] as AssistantMessage;
      for (let index = 0; index < stored.content.length; index++) {
        const block = stored.content[index] as (typeof stored.content)[number];
        if (block.type !== "toolCall") continue;
        const out = lastOut.content[index] as typeof block;
        pairing.call(block.id, out.id, block.name);
      }
      pairing.open(lastOut, suffixIds[0] as string);
      start = 1;
    }
    for (let index = start; index < suffix.length; index++)
      this.feed(pairing, suffix[index] as SessionMessage, suffixIds[index] as string);
    for (let index = 0; index < messages.length; index++) {
      const message = messages[index] as SessionMessage;
      const entryId = entryIds[index] as string;
      if (message.role === "assistant") {
        pairing.close(); // first, so that the repairs of the closing turn come before this one's renames
        this.messageMark = this.messages.length;
        const out = declareCalls(message, entryId, this.ids, pairing, this.repairs);
        this.repairMark = this.repairs.length;
        this.lastOut = out;
        this.suffix = [message];
        this.suffixIds = [entryId];
        pairing.open(out, entryId);
        continue;
      }
      if (this.lastOut !== undefined) {
        this.suffix.push(message);
        this.suffixIds.push(entryId);
      }
      this.feed(pairing, message, entryId);
    }
    pairing.close();
    if (this.lastOut === undefined) {
      // No turn yet: everything went out as it came and is final.
      this.messageMark = this.messages.length;
      this.repairMark = this.repairs.length;
    }
    return true;
  }

  private feed(pairing: ToolPairing<SessionMessage, string>, message: SessionMessage, entryId: string): void {
    if (message.role === "toolResult") pairing.result(message, entryId);
    else pairing.message(message, entryId);
  }

  private pairing(): ToolPairing<SessionMessage, string> {
    const { messages, entryIds, repairs } = this;
    return new ToolPairing<SessionMessage, string>({
      emit: (message, entryId) => {
        messages.push(message);
        entryIds.push(entryId);
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
  }
}

/**
 * Declares the calls of an assistant message to the pairing, giving each its output id; returns the
 * message as it goes out (a copy when a call got a new id) and records the renames.
 */
function declareCalls(
  stored: AssistantMessage,
  entryId: string,
  ids: ToolCallIds,
  pairing: ToolPairing<SessionMessage, string>,
  repairs: ContextRepair[],
): AssistantMessage {
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
  const repairer = new ContextRepairer();
  repairer.extend(messages, entryIds);
  return { messages: repairer.messages, entryIds: repairer.entryIds, repairs: repairer.repairs };
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
