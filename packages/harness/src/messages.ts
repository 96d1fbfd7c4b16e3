import type { AgentMessage } from "@arbor/agent-core";
import type { ImageContent, Message, UserMessage } from "@arbor/ai-providers";
import {
  type BashExecutionMessage,
  type BranchSummaryMessage,
  type CompactionSummaryMessage,
  type CustomMessage,
  convertSessionMessagesToLlm,
  type SessionMessage,
} from "@arbor/session-store";

/**
 * The session's own message kinds join the agent's transcript: a built context starts with a compaction
 * summary, carries branch summaries and custom messages, and the agent keeps them as they are (the model
 * sees them through {@link createSessionMessageConverter}).
 */
declare module "@arbor/agent-core" {
  interface CustomAgentMessages {
    compactionSummary: CompactionSummaryMessage;
    branchSummary: BranchSummaryMessage;
    custom: CustomMessage;
    bashExecution: BashExecutionMessage;
  }
}

/** A transcript message as the session sees it (the two vocabularies are the same objects). */
export function asSessionMessage(message: AgentMessage): SessionMessage {
  return message as SessionMessage;
}

/** True for the messages a model sees as they are. */
function isModelMessage(message: AgentMessage): message is Message {
  const role = (message as { role?: unknown }).role;
  return role === "user" || role === "assistant" || role === "toolResult";
}

/**
 * The harness's `convertToLlm`: `convertSessionMessagesToLlm` (summaries and custom messages become user
 * messages), incremental and memoized. Within a run the agent loop hands over the same, only-growing
 * transcript array at every model call, so only the messages appended since the previous call are converted
 * (a new array starts over); a converted summary is the same object on every call, so the loop extends its
 * prepared request instead of rebuilding it.
 *
 * Contract: pure for inputs that are not mutated in place (the loop's contract); returns an array the caller
 * must not change (it grows with the next call over the same transcript).
 */
export function createSessionMessageConverter(): (messages: AgentMessage[]) => Message[] {
  const converted = new WeakMap<object, Message | null>();
  let input: readonly AgentMessage[] | undefined;
  let seen = 0;
  let output: Message[] = [];
  return (messages) => {
    if (messages !== input || messages.length < seen) {
      input = messages;
      seen = 0;
      output = [];
    }
    for (let index = seen; index < messages.length; index++) {
      const message = messages[index]!;
      if (isModelMessage(message)) {
        output.push(message);
        continue;
      }
      let result = converted.get(message);
      if (result === undefined) {
        result = convertSessionMessagesToLlm([asSessionMessage(message)])[0] ?? null;
        converted.set(message, result);
      }
      if (result !== null) output.push(result);
    }
    seen = messages.length;
    return output;
  };
}

/** A user message with text (and images), stamped with `timestamp`. */
export function userMessage(text: string, images: readonly ImageContent[], timestamp: number): UserMessage {
  return { role: "user", content: [{ type: "text", text }, ...images], timestamp };
}
