import type { AssistantEvent, AssistantMessage, ToolResultMessage } from "@arbor/ai-providers";
import type { AgentToolResult, AgentToolUpdate } from "./agent-tool.js";
import type { AgentMessage } from "./types.js";

/**
 * What the agent loop reports, in this order (docs/reference/agent-core.md):
 *
 * ```
 * agent_start
 *   turn_start                                  one turn = one model response and its tool calls
 *     message_start / message_end               each prompt, steering or follow-up message
 *     message_start                             the assistant message
 *       message_update*                         one per streamed AssistantEvent (deltas, block ends)
 *     message_end
 *     tool_execution_start / _update* / _end    per tool call
 *     message_start / message_end               per tool result, in the assistant's call order
 *   turn_end                                    the assistant message and its tool results
 *   turn_start …
 * agent_end                                     every message the run added
 * ```
 *
 * A message is part of the transcript once its `message_end` has been emitted. Every tool call of an
 * assistant message gets exactly one tool result inside the same turn, whatever happens.
 */
export type AgentEvent =
  | { type: "agent_start" }
  | {
      type: "agent_end";
      /** The messages this run added (prompts included), in transcript order. */
      messages: AgentMessage[];
    }
  | { type: "turn_start" }
  | {
      type: "turn_end";
      /** The turn's assistant message (the model's reply, or a synthetic error message). */
      message: AssistantMessage;
      /** One result per tool call of `message`, in the order of the calls. */
      toolResults: ToolResultMessage[];
    }
  | { type: "message_start"; message: AgentMessage }
  | {
      type: "message_update";
      /** The partial assistant message (a live object the provider updates in place; copy it to keep it). */
      message: AssistantMessage;
      /** The provider event that changed it. */
      assistantMessageEvent: AssistantEvent;
    }
  | { type: "message_end"; message: AgentMessage }
  | {
      type: "tool_execution_start";
      toolCallId: string;
      toolName: string;
      /** The arguments as the model sent them. */
      args: Record<string, unknown>;
    }
  | {
      type: "tool_execution_update";
      toolCallId: string;
      toolName: string;
      args: Record<string, unknown>;
      partialResult: AgentToolUpdate;
    }
  | {
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      /** The final result (after `afterToolCall`); `result.content` is what the model will see. */
      result: AgentToolResult;
      isError: boolean;
    };

/** The `type` of any {@link AgentEvent}. */
export type AgentEventType = AgentEvent["type"];

/**
 * Receives the loop's events. The loop awaits it before going on, so a slow sink slows the run (and a
 * sink can rely on nothing happening between two of its calls).
 *
 * Contract: should not throw. When it does, the loop treats it as an internal failure: the run ends
 * with a synthetic assistant error message and `agent_end` (each emitted on a best-effort basis).
 */
export type AgentEventSink = (event: AgentEvent) => void | Promise<void>;
