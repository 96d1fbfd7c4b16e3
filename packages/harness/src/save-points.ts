import type { AgentEvent, BeforeToolCallResult } from "@arbor/agent-core";
import type { AssistantMessage } from "@arbor/ai-providers";
import type { SaveReason } from "./events.js";
import { stoppedRunText } from "./save-failure.js";
import type { SessionEvents } from "./session-events.js";
import type { SessionWriter } from "./session-writer.js";

/**
 * The save point an agent event is (docs/reference/harness.md, "Failed saves"), or `undefined`:
 *
 * - `tool_calls`: the `message_end` of an assistant message whose tool calls will run — it is stored before
 *   they run, so that a tool that ran is never missing from the store (at worst its result is, and the
 *   recovery file holds it);
 * - `turn_end`: the turn's tool results (and the settings changed during it);
 * - `agent_end`: the end of the run.
 *
 * Contract: pure.
 */
export function savePointOf(event: AgentEvent): SaveReason | undefined {
  if (event.type === "turn_end") return "turn_end";
  if (event.type === "agent_end") return "agent_end";
  if (event.type === "message_end" && callsTools(event.message)) return "tool_calls";
  return undefined;
}

/** An assistant message whose tool calls agent-core runs (not those of a failed, aborted or cut response). */
function callsTools(message: unknown): boolean {
  const reply = message as Partial<AssistantMessage>;
  if (reply.role !== "assistant" || !Array.isArray(reply.content)) return false;
  if (reply.stopReason === "error" || reply.stopReason === "aborted" || reply.stopReason === "length")
    return false;
  return reply.content.some((block) => block.type === "toolCall");
}

/** What a tool call gets instead of running once a save failed (its result says why). */
export const NOT_RUN_AFTER_FAILED_SAVE: BeforeToolCallResult = {
  block: true,
  reason:
    "Not run: the session could not be saved, so the run stopped before this tool (no tool runs unrecorded).",
};

/** Emits `run_stopped` when the writer holds a failed save: what stopped the run, and where the entries are. */
export async function reportRunStopped(events: SessionEvents, writer: SessionWriter): Promise<void> {
  const failure = writer.lastFailure;
  if (failure === undefined) return;
  const kept = failure.kept === undefined ? {} : { kept: failure.kept };
  await events.emit({
    type: "run_stopped",
    reason: "save_failed",
    message: stoppedRunText(failure),
    ...kept,
  });
}
