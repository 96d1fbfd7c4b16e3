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

interface PendingCall {
  id: string;
  name: string;
  answered: boolean;
}

/** Calls of one turn above which results are matched through a map rather than a scan. */
const SCAN_LIMIT = 16;

/** The tool calls of the last assistant message, until all are answered or the next one arrives. */
class OpenTurn {
  readonly calls: PendingCall[] = [];
  /** Calls still waiting for their result. */
  unanswered = 0;
  /** For turns with many calls: the unanswered calls by id, in order (a broken message may repeat one). */
  private byId: Map<string, PendingCall[]> | undefined;
  /** How many of the messages held while calls were open a later result was moved ahead of. */
  overtaken = 0;

  constructor(
    readonly message: Extract<SessionMessage, { role: "assistant" }>,
    readonly entryId: string,
  ) {
    for (const block of message.content) {
      if (block.type === "toolCall") this.calls.push({ id: block.id, name: block.name, answered: false });
    }
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

  /** Marks the first unanswered call with this id as answered; false when there is none. */
  answer(toolCallId: string): boolean {
    let call: PendingCall | undefined;
    if (this.byId !== undefined) call = this.byId.get(toolCallId)?.shift();
    else call = this.calls.find((candidate) => !candidate.answered && candidate.id === toolCallId);
    if (call === undefined) return false;
    call.answered = true;
    this.unanswered -= 1;
    return true;
  }
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
  let turn: OpenTurn | undefined;

  const close = (): void => {
    if (turn === undefined) return;
    for (const call of turn.calls) {
      if (call.answered) continue;
      const synthetic: ToolResultMessage = {
        role: "toolResult",
        toolCallId: call.id,
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
      if (turn === undefined || !turn.answer(message.toolCallId)) {
        repairs.push({ kind: "orphan_tool_result", entryId, toolCallId: message.toolCallId });
        continue;
      }
      outMessages.push(message);
      outIds.push(entryId);
      turn.overtaken = held.length;
      if (turn.unanswered === 0) close();
      continue;
    }
    if (message.role === "assistant") {
      close();
      outMessages.push(message);
      outIds.push(entryId);
      const opened = new OpenTurn(message, entryId);
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
 * - A result for an open call of the last assistant message is kept. Messages that came between the
 *   call and its last result are moved after the results (`moved_message`); the turn closes as soon
 *   as every call is answered.
 * - A result that answers no open call is dropped (`orphan_tool_result`).
 * - When the next assistant message arrives, or the context ends, each call still unanswered gets a
 *   synthetic error result (`MISSING_TOOL_RESULT_TEXT`, `isError: true`, the assistant's timestamp),
 *   attributed to the assistant's entry (`missing_tool_result`).
 *
 * Contract: never mutates its input; keeps the relative order of everything it does not move; linear
 * in the number of messages and tool calls.
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
