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
 * sees them through {@link convertSessionMessageToLlm}).
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
 * The harness's `convertMessageToLlm` (what the session agent uses): one transcript message as the model
 * sees it, by `convertSessionMessagesToLlm` — `user`, `assistant` and `toolResult` messages as they are,
 * compaction and branch summaries, custom and bash-execution messages as user messages, everything else
 * dropped. Each message converts on its own, so agent-core converts a run's transcript incrementally (each
 * message once) and a turn's cost does not grow with the session.
 *
 * Contract: pure (a new user message per call for the converted kinds; agent-core caches them per message);
 * never throws for session messages.
 */
export function convertSessionMessageToLlm(message: AgentMessage): Message[] {
  if (isModelMessage(message)) return [message];
  return convertSessionMessagesToLlm([asSessionMessage(message)]);
}

/**
 * A whole-transcript `convertToLlm` with the result of {@link convertSessionMessageToLlm} for every message,
 * incremental and memoized: over the same, only-growing array (what the agent loop hands over within a run),
 * only the messages appended since the previous call are converted (a new array starts over), and a converted
 * summary is the same object on every call. For callers that need a `convertToLlm`; the harness itself passes
 * `convertMessageToLlm: convertSessionMessageToLlm`, which agent-core applies incrementally without the
 * whole-list check a custom `convertToLlm` costs per call.
 *
 * Contract: pure for inputs that are not mutated in place (the loop's contract); returns an array the caller
 * must not change (it grows with the next call over the same transcript).
 */
export function createSessionMessageConverter(): (messages: AgentMessage[]) => Message[] {
  const converted = new WeakMap<object, Message[]>();
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
        result = convertSessionMessageToLlm(message);
        converted.set(message, result);
      }
      for (const item of result) output.push(item);
    }
    seen = messages.length;
    return output;
  };
}

/** A user message with text (and images), stamped with `timestamp`. */
export function userMessage(text: string, images: readonly ImageContent[], timestamp: number): UserMessage {
  return { role: "user", content: [{ type: "text", text }, ...images], timestamp };
}
