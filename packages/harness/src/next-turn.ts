import type { AgentTurnContext, AgentTurnUpdate } from "@arbor/agent-core";
import { SessionUnsavedError } from "./errors.js";
import type { SessionCompactor } from "./session-compaction.js";
import type { SessionContext } from "./session-context.js";

/**
 * Between two turns (agent-core's `prepareNextTurn`): compacts when the next call would not fit (only while an
 * operation is in flight: `signal`), then runs the `prepareNextTurn` handlers and queues the model and thinking
 * level they chose as entries for the next save point. Internal.
 *
 * @throws {SessionUnsavedError} when the compaction could not be saved: the loop then ends the run with this
 * error instead of making another model call (docs/reference/harness.md, "Failed saves").
 */
export async function prepareNextTurn(
  context: SessionContext,
  compactor: SessionCompactor,
  turn: AgentTurnContext,
  signal: AbortSignal | undefined,
): Promise<AgentTurnUpdate> {
  const { writer } = context;
  const initial: AgentTurnUpdate = {};
  if (signal !== undefined) {
    const queued = context.agent.queuedSteeringMessages;
    const compacted = await compactor.beforeCall(turn.context.messages, queued, signal);
    if (compacted !== undefined) initial.context = { ...turn.context, messages: compacted };
    const failure = writer.lastFailure;
    if (failure !== undefined) throw new SessionUnsavedError(context.session.id, failure);
  }
  const update = await context.hooks.prepareNextTurn(turn, initial);
  if (update.model !== undefined && update.model !== turn.model) {
    writer.queue({ type: "model_change", provider: update.model.provider, modelId: update.model.id });
  }
  if (update.thinkingLevel !== undefined && update.thinkingLevel !== turn.thinkingLevel) {
    writer.queue({ type: "thinking_level_change", thinkingLevel: update.thinkingLevel });
  }
  return update;
}
