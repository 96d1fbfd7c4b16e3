import type { AssistantMessage, StopReason, ToolCall } from "./types.js";

/**
 * The streaming protocol every provider speaks (docs/architecture.md, "The event protocol"). A stream is:
 *
 * `start`, then for each content block `*_start`, any number of `*_delta`, `*_end` (blocks may not
 * interleave: a block ends before the next starts), then exactly one terminal event — `done` or
 * `error`. Every event carries `partial`, the assistant message built so far (the same object,
 * updated in place); block events carry `contentIndex`, the block's index in `partial.content`.
 */
export type AssistantEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "text_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "text_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "thinking_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "thinking_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; partial: AssistantMessage }
  | {
      type: "toolcall_delta";
      contentIndex: number;
      /** A piece of the raw JSON of the arguments. */
      delta: string;
      partial: AssistantMessage;
    }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
  | {
      type: "done";
      reason: Extract<StopReason, "stop" | "length" | "toolUse">;
      message: AssistantMessage;
      partial: AssistantMessage;
    }
  | {
      type: "error";
      reason: Extract<StopReason, "error" | "aborted">;
      /** The final message, with `stopReason` and `errorMessage` set and any partial content kept. */
      error: AssistantMessage;
      partial: AssistantMessage;
    };

/** The `type` of any {@link AssistantEvent}. */
export type AssistantEventType = AssistantEvent["type"];

/** True for the two events that end a stream. */
export function isTerminalEvent(
  event: AssistantEvent,
): event is Extract<AssistantEvent, { type: "done" } | { type: "error" }> {
  return event.type === "done" || event.type === "error";
}
