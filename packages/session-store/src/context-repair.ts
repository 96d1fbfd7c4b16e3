import { MISSING_TOOL_RESULT_TEXT, type ToolResultMessage } from "@arbor/ai-providers";
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

/** A tool call of the open turn: its id as stored, its id in the output, and its result once seen. */
interface PendingCall {
  id: string;
  outId: string;
  name: string;
  result: { message: ToolResultMessage; entryId: string } | undefined;
}

/** Calls of one turn above which results are matched through a map rather than a scan. */
const SCAN_LIMIT = 16;

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

/** The tool calls of the last assistant message, until all are answered or the next one arrives. */
class OpenTurn {
  readonly calls: PendingCall[] = [];
  /** Calls still waiting for their result. */
  unanswered = 0;
  /** For turns with many calls: the unanswered calls by id, in order (a broken message may repeat one). */
  private byId: Map<string, PendingCall[]> | undefined;
  /** How many of the messages held while calls were open a later result was moved ahead of. */
  overtaken = 0;
  /** The assistant message as it goes out (a copy when a call got a new id). */
  readonly message: Extract<SessionMessage, { role: "assistant" }>;
  /** Calls that got a new id, for the repairs. */
  readonly renamed: PendingCall[] = [];

  constructor(
    stored: Extract<SessionMessage, { role: "assistant" }>,
    readonly entryId: string,
    ids: ToolCallIds,
  ) {
    let content: typeof stored.content | undefined;
    stored.content.forEach((block, index) => {
      if (block.type !== "toolCall") return;
      const outId = ids.unique(block.id);
      const call: PendingCall = { id: block.id, outId, name: block.name, result: undefined };
      this.calls.push(call);
      if (outId !== block.id) {
        content ??= [...stored.content];
        content[index] = { ...block, id: outId };
        this.renamed.push(call);
      }
    });
    this.message = content === undefined ? stored : { ...stored, content };
    this.unanswered = this.calls.length;
    if (this.calls.length > SCAN_LIMIT) {
      this.byId = new Map();
      for (const call of this.calls) {
        const same = this.byId.get(call.id);
        if (same === undefined) this.byId.set(call.id, [call]);
        else same.push(call);
      }
    }
  }

  /** Gives the first unanswered call with this id its result; false when there is none. */
  answer(message: ToolResultMessage, entryId: string): boolean {
    let call: PendingCall | undefined;
    if (this.byId !== undefined) call = this.byId.get(message.toolCallId)?.shift();
    else
      call = this.calls.find(
        (candidate) => candidate.result === undefined && candidate.id === message.toolCallId,
      );
    if (call === undefined) return false;
    call.result = { message, entryId };
    this.unanswered -= 1;
    return true;
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
  const held: { message: SessionMessage; entryId: string }[] = [];
  const ids = new ToolCallIds(storedToolCallIds(messages));
  let turn: OpenTurn | undefined;

  const close = (): void => {
    if (turn === undefined) return;
    for (const call of turn.calls) {
      if (call.result !== undefined) {
        const { message, entryId } = call.result;
        outMessages.push(
          message.toolCallId === call.outId ? message : { ...message, toolCallId: call.outId },
        );
        outIds.push(entryId);
        continue;
      }
      const synthetic: ToolResultMessage = {
        role: "toolResult",
        toolCallId: call.outId,
        toolName: call.name,
        content: [{ type: "text", text: MISSING_TOOL_RESULT_TEXT }],
        isError: true,
        timestamp: turn.message.timestamp,
      };
      outMessages.push(synthetic);
      outIds.push(turn.entryId);
      repairs.push({
        kind: "missing_tool_result",
        entryId: turn.entryId,
        toolCallId: call.id,
        toolName: call.name,
      });
    }
    for (const [index, item] of held.entries()) {
      outMessages.push(item.message);
      outIds.push(item.entryId);
      if (index < turn.overtaken) repairs.push({ kind: "moved_message", entryId: item.entryId });
    }
    held.length = 0;
    turn = undefined;
  };

  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as SessionMessage;
    const entryId = entryIds[index] as string;
    if (message.role === "toolResult") {
      if (turn === undefined || !turn.answer(message, entryId)) {
        repairs.push({ kind: "orphan_tool_result", entryId, toolCallId: message.toolCallId });
        continue;
      }
      turn.overtaken = held.length;
      if (turn.unanswered === 0) close();
      continue;
    }
    if (message.role === "assistant") {
      close();
      const opened = new OpenTurn(message, entryId, ids);
      outMessages.push(opened.message);
      outIds.push(entryId);
      for (const call of opened.renamed) {
        repairs.push({ kind: "renamed_tool_call", entryId, toolCallId: call.id, newId: call.outId });
      }
      if (opened.unanswered > 0) turn = opened;
      continue;
    }
    if (turn !== undefined) held.push({ message, entryId });
    else {
      outMessages.push(message);
      outIds.push(entryId);
    }
  }
  close();
  return { messages: outMessages, entryIds: outIds, repairs };
}

/**
 * Makes a context safe to send: every tool call of an assistant message is followed by exactly one
 * result before the next non-result message.
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
