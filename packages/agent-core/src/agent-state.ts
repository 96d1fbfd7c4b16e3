import type { AssistantMessage, Model, ThinkingLevel } from "@arbor/ai-providers";
import type { AgentTool } from "./agent-tool.js";
import type { AgentEvent } from "./events.js";
import type { AgentMessage } from "./types.js";

/**
 * The agent's observable state (docs/reference/agent-core.md). Read it through `agent.state`; change it
 * through the agent's methods. Events update it before listeners see them.
 */
export interface AgentState {
  readonly systemPrompt: string;
  /** The model of the next model call. */
  readonly model: Model;
  readonly thinkingLevel: ThinkingLevel;
  readonly tools: readonly AgentTool[];
  /** The transcript: a message is added when its `message_end` is emitted. */
  readonly messages: readonly AgentMessage[];
  /** True from `prompt()`/`continue()` until the run's `agent_end` listeners have settled. */
  readonly isStreaming: boolean;
  /** The assistant message being streamed (set by `message_update`, cleared by `message_end`). */
  readonly streamingMessage: AssistantMessage | undefined;
  /** Ids of the tool calls between `tool_execution_start` and `tool_execution_end`. */
  readonly pendingToolCalls: ReadonlySet<string>;
  /** The `errorMessage` of the last turn whose assistant message failed or was aborted; cleared by `agent_start`. */
  readonly errorMessage: string | undefined;
}

/** The agent's own, writable view of {@link AgentState}. Internal. */
export interface MutableAgentState {
  systemPrompt: string;
  model: Model;
  thinkingLevel: ThinkingLevel;
  tools: AgentTool[];
  messages: AgentMessage[];
  isStreaming: boolean;
  streamingMessage: AssistantMessage | undefined;
  pendingToolCalls: Set<string>;
  errorMessage: string | undefined;
}

/**
 * Applies one event to the state, as docs/reference/agent-core.md lists. `pendingToolCalls` is replaced (not
 * mutated) on change, so a UI holding the old set sees a difference.
 */
export function applyAgentEvent(state: MutableAgentState, event: AgentEvent): void {
  switch (event.type) {
    case "agent_start":
      state.isStreaming = true;
      state.streamingMessage = undefined;
      state.errorMessage = undefined;
      break;
    case "message_update":
      state.streamingMessage = event.message;
      break;
    case "message_end":
      state.streamingMessage = undefined;
      state.messages.push(event.message);
      break;
    case "tool_execution_start":
      state.pendingToolCalls = new Set(state.pendingToolCalls).add(event.toolCallId);
      break;
    case "tool_execution_end":
      if (state.pendingToolCalls.has(event.toolCallId)) {
        const pending = new Set(state.pendingToolCalls);
        pending.delete(event.toolCallId);
        state.pendingToolCalls = pending;
      }
      break;
    case "turn_end":
      if (event.message.errorMessage !== undefined) state.errorMessage = event.message.errorMessage;
      break;
    case "agent_end":
      state.streamingMessage = undefined;
      break;
    case "turn_start":
    case "message_start":
    case "tool_execution_update":
      break;
  }
}
