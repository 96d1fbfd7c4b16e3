import type { AssistantMessage, Message, ToolResultMessage } from "@arbor/ai-providers";
import type { AgentToolCall } from "./agent-tool.js";
import { CannotContinueError } from "./errors.js";
import type { AgentMessage } from "./types.js";

function roleOf(message: AgentMessage): unknown {
  return (message as { role?: unknown }).role;
}

/** A response that failed or was aborted: providers never see it (`transformMessages` drops it). */
function isFailedResponse(message: AgentMessage): boolean {
  if (roleOf(message) !== "assistant") return false;
  const { stopReason } = message as AssistantMessage;
  return stopReason === "error" || stopReason === "aborted";
}

/**
 * The tool calls of the conversation's last assistant message that have no result after it, e.g.
 * after a crash in the middle of a tool call. Only the messages after that assistant message are
 * read; a user message after it closes it. Failed and aborted responses are passed over (no model
 * sees them), so the answer concerns the last response that reaches the model.
 */
export function findUnansweredToolCalls(messages: readonly AgentMessage[]): AgentToolCall[] {
  const answered = new Set<string>();
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    const role = roleOf(message);
    if (role === "user") return [];
    if (role === "toolResult") answered.add((message as ToolResultMessage).toolCallId);
    if (role === "assistant" && !isFailedResponse(message)) {
      return (message as AssistantMessage).content.filter(
        (block): block is AgentToolCall => block.type === "toolCall" && !answered.has(block.id),
      );
    }
  }
  return [];
}

/**
 * Checks that a conversation can be continued without a new prompt: it must end with a `user` or
 * `toolResult` message (a custom message counts when `convertToLlm` turns it into one of those), and
 * its last assistant message must have no unanswered tool call. Trailing failed or aborted responses
 * are passed over, since no model sees them: that is how a failed request is retried.
 *
 * Contract: throws {@link CannotContinueError} (code `cannot_continue`) with a `reason` and a message
 * saying what to do; returns quietly otherwise.
 */
export async function assertCanContinue(
  messages: readonly AgentMessage[],
  convertToLlm: (messages: AgentMessage[]) => Message[] | Promise<Message[]>,
): Promise<void> {
  let lastIndex = messages.length - 1;
  while (lastIndex >= 0 && isFailedResponse(messages[lastIndex]!)) lastIndex--;
  const last = messages[lastIndex];
  if (last === undefined) {
    throw new CannotContinueError(
      "no_messages",
      "Cannot continue: the conversation has no message for the model to answer. Use prompt().",
    );
  }
  const unanswered = findUnansweredToolCalls(messages);
  if (unanswered.length > 0) {
    const ids = unanswered.map((call) => call.id);
    throw new CannotContinueError(
      "unanswered_tool_calls",
      `Cannot continue: the last assistant message has ${unanswered.length} tool call(s) without a result ` +
        `(${unanswered.map((call) => `${call.name} ${call.id}`).join(", ")}). Append a toolResult message for each ` +
        "(e.g. an error saying the call was interrupted), or call prompt() with a new message.",
      ids,
    );
  }
  const role = roleOf(last);
  if (role === "user" || role === "toolResult") return;
  if (role === "assistant") {
    throw new CannotContinueError(
      "last_message_assistant",
      "Cannot continue: the last message is the assistant's reply, so there is nothing to answer. " +
        "Use prompt() (or followUp()) with a new user message.",
    );
  }
  const converted = await convertToLlm([last]);
  const convertedRole = converted[converted.length - 1]?.role;
  if (convertedRole === "user" || convertedRole === "toolResult") return;
  throw new CannotContinueError(
    "last_message_not_llm",
    `Cannot continue: the last message (role "${String(role)}") does not reach the model as a user or toolResult ` +
      `message (convertToLlm turns it into ${convertedRole === undefined ? "nothing" : `a "${convertedRole}" message`}). ` +
      "Use prompt() with a new user message.",
  );
}
