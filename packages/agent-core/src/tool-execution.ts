import type { AssistantMessage, ToolResultMessage, ValidationResult } from "@arbor/ai-providers";
import type { AgentTool, AgentToolCall, AgentToolUpdate } from "./agent-tool.js";
import type { AgentLoopConfig } from "./loop-config.js";
import type { RunEmitter } from "./run-emitter.js";
import {
  answerWithoutRunning,
  emitExecutionEnd,
  emitResultMessage,
  errorOutcome,
  outcomeFromResult,
  type ToolOutcome,
  toolResultMessage,
  toolResultText,
} from "./tool-outcome.js";
import { validateAgentToolArguments } from "./tool-schema.js";
import type { AgentContext } from "./types.js";
import { ABORTED, untilAborted } from "./until-aborted.js";

/** What tool execution needs from the running loop. Internal. */
export interface ToolRunEnvironment {
  emitter: RunEmitter;
  config: AgentLoopConfig;
  /** The run's context at the time of the turn. */
  context: AgentContext;
  /** The run's signal (fires on abort and on an internal failure). */
  signal: AbortSignal;
  /** Aborts the run's signal (used when an internal failure interrupts a parallel batch). */
  abortRun: (reason: unknown) => void;
}

/** The results of one assistant message's tool calls, in call order. Internal. */
export interface ToolBatch {
  results: ToolResultMessage[];
  /** Some result asked to end the run after this turn. */
  terminate: boolean;
}

/** A call that passed lookup, validation and `beforeToolCall`. */
interface ReadyCall {
  call: AgentToolCall;
  tool: AgentTool;
  args: Record<string, unknown>;
}

type Preparation = { kind: "ready"; ready: ReadyCall } | { kind: "answered"; outcome: ToolOutcome };

/**
 * Answers every tool call of an assistant message, whatever happens: the calls of a failed or aborted
 * response and of a truncated one (`stopReason: "length"`) are answered with errors without running;
 * the others run (see the module's two modes) and each gets exactly one result.
 *
 * Throws only when the event sink throws (an internal failure); the caller then closes the turn.
 */
export async function runToolCalls(env: ToolRunEnvironment, assistant: AssistantMessage): Promise<ToolBatch> {
  const calls = assistant.content.filter((block): block is AgentToolCall => block.type === "toolCall");
  if (calls.length === 0) return { results: [], terminate: false };
  const { stopReason } = assistant;
  if (stopReason === "error" || stopReason === "aborted") {
    const results = await answerWithoutRunning(env.emitter, calls, (call) =>
      toolResultText.responseFailed(call.name, stopReason),
    );
    return { results, terminate: false };
  }
  if (stopReason === "length") {
    const results = await answerWithoutRunning(env.emitter, calls, (call) =>
      toolResultText.responseTruncated(call.name),
    );
    return { results, terminate: false };
  }
  const tools = env.context.tools ?? [];
  const sequential =
    env.config.toolExecution === "sequential" ||
    calls.some((call) => tools.find((tool) => tool.name === call.name)?.executionMode === "sequential");
  return sequential ? runSequential(env, assistant, calls) : runParallel(env, assistant, calls);
}

/** Each call: start, prepare, execute, `afterToolCall`, end, result message; then the next call. */
async function runSequential(
  env: ToolRunEnvironment,
  assistant: AssistantMessage,
  calls: readonly AgentToolCall[],
): Promise<ToolBatch> {
  const results: ToolResultMessage[] = [];
  let terminate = false;
  for (const call of calls) {
    await emitStart(env, call);
    let outcome: ToolOutcome;
    if (env.signal.aborted) {
      outcome = errorOutcome(toolResultText.runAborted(call.name, env.signal));
    } else {
      const preparation = await prepare(env, assistant, call);
      outcome =
        preparation.kind === "answered"
          ? preparation.outcome
          : await finish(env, assistant, preparation.ready, await execute(env, preparation.ready));
    }
    await emitExecutionEnd(env.emitter, call, outcome);
    const message = toolResultMessage(call, outcome);
    await emitResultMessage(env.emitter, message);
    results.push(message);
    terminate ||= outcome.result.terminate === true;
  }
  return { results, terminate };
}

/**
 * Starts and prepares the calls one by one in the message's order; each ready call starts executing
 * at once, concurrently with the preparation of the next. `tool_execution_end` is emitted as each call
 * finishes (completion order); the result messages follow once all are done, in the message's order.
 */
async function runParallel(
  env: ToolRunEnvironment,
  assistant: AssistantMessage,
  calls: readonly AgentToolCall[],
): Promise<ToolBatch> {
  const running: Promise<ToolOutcome>[] = [];
  try {
    for (const call of calls) {
      await emitStart(env, call);
      const preparation = env.signal.aborted
        ? ({
            kind: "answered",
            outcome: errorOutcome(toolResultText.runAborted(call.name, env.signal)),
          } as const)
        : await prepare(env, assistant, call);
      if (preparation.kind === "answered") {
        await emitExecutionEnd(env.emitter, call, preparation.outcome);
        running.push(Promise.resolve(preparation.outcome));
        continue;
      }
      const task = (async () => {
        const outcome = await finish(
          env,
          assistant,
          preparation.ready,
          await execute(env, preparation.ready),
        );
        await emitExecutionEnd(env.emitter, call, outcome);
        return outcome;
      })();
      task.catch(() => {}); // observed below; avoids an unhandled-rejection report in between
      running.push(task);
    }
  } catch (error) {
    env.abortRun(error);
    await Promise.allSettled(running);
    throw error;
  }
  const settled = await Promise.allSettled(running);
  const failure = settled.find((entry) => entry.status === "rejected");
  if (failure !== undefined) throw failure.reason;
  const results: ToolResultMessage[] = [];
  let terminate = false;
  for (const [index, call] of calls.entries()) {
    const outcome = (settled[index] as PromiseFulfilledResult<ToolOutcome>).value;
    const message = toolResultMessage(call, outcome);
    await emitResultMessage(env.emitter, message);
    results.push(message);
    terminate ||= outcome.result.terminate === true;
  }
  return { results, terminate };
}

function emitStart(env: ToolRunEnvironment, call: AgentToolCall): Promise<void> {
  return env.emitter.emit({
    type: "tool_execution_start",
    toolCallId: call.id,
    toolName: call.name,
    args: call.arguments,
  });
}

/** Lookup, `prepareArguments`, validation, `beforeToolCall`. */
async function prepare(
  env: ToolRunEnvironment,
  assistant: AssistantMessage,
  call: AgentToolCall,
): Promise<Preparation> {
  const tools = env.context.tools ?? [];
  const tool = tools.find((candidate) => candidate.name === call.name);
  if (tool === undefined) {
    const available = tools.map((candidate) => candidate.name);
    return { kind: "answered", outcome: errorOutcome(toolResultText.unknownTool(call.name, available)) };
  }
  let raw: unknown = call.arguments;
  if (tool.prepareArguments !== undefined) {
    try {
      raw = await tool.prepareArguments(call.arguments);
    } catch (error) {
      return { kind: "answered", outcome: errorOutcome(toolResultText.prepareFailed(call.name, error)) };
    }
  }
  let validation: ValidationResult;
  try {
    // A Standard Schema validates asynchronously; the others stay synchronous (no extra tick).
    const pending = validateAgentToolArguments(tool, raw);
    validation = pending instanceof Promise ? await pending : pending;
  } catch (error) {
    // The tool's schema itself is broken: not something the model can fix, but still a result.
    return { kind: "answered", outcome: errorOutcome(toolResultText.thrown(call.name, error)) };
  }
  if (!validation.ok) {
    return {
      kind: "answered",
      outcome: errorOutcome(validation.message, { validationErrors: validation.errors }),
    };
  }
  const ready: ReadyCall = { call, tool, args: validation.value };
  const hook = env.config.beforeToolCall;
  if (hook === undefined) return { kind: "ready", ready };
  try {
    const decision = await hook(
      { assistantMessage: assistant, toolCall: call, args: ready.args, context: env.context },
      env.signal,
    );
    if (decision?.block === true) {
      return {
        kind: "answered",
        outcome: errorOutcome(decision.reason ?? toolResultText.blocked(call.name)),
      };
    }
  } catch (error) {
    return { kind: "answered", outcome: errorOutcome(toolResultText.beforeHookFailed(call.name, error)) };
  }
  return { kind: "ready", ready };
}

/**
 * Runs the tool, forwarding its updates as events in order. Stops waiting as soon as the run's signal
 * fires (the call is then an "aborted" error; whatever the tool settles with later is ignored).
 */
async function execute(env: ToolRunEnvironment, { call, tool, args }: ReadyCall): Promise<ToolOutcome> {
  const { emitter, signal } = env;
  let settled = false;
  let updates: Promise<void> = Promise.resolve();
  let updateFailure: { error: unknown } | undefined;
  const onUpdate = (update: AgentToolUpdate) => {
    if (settled) return;
    updates = updates
      .then(() =>
        emitter.emit({
          type: "tool_execution_update",
          toolCallId: call.id,
          toolName: call.name,
          args: call.arguments,
          partialResult: update,
        }),
      )
      .catch((error: unknown) => {
        updateFailure ??= { error };
      });
  };
  let outcome: ToolOutcome;
  try {
    const pending = Promise.resolve().then(() =>
      tool.execute(args, { toolCallId: call.id, signal, onUpdate }),
    );
    const value = await untilAborted(pending, signal);
    outcome =
      value === ABORTED
        ? errorOutcome(toolResultText.aborted(call.name, signal))
        : outcomeFromResult(call, value);
  } catch (error) {
    outcome = errorOutcome(
      signal.aborted ? toolResultText.aborted(call.name, signal) : toolResultText.thrown(call.name, error),
    );
  } finally {
    settled = true;
  }
  await updates;
  if (updateFailure !== undefined) throw updateFailure.error;
  return outcome;
}

/** `afterToolCall`: each field it returns replaces the result's field. */
async function finish(
  env: ToolRunEnvironment,
  assistant: AssistantMessage,
  { call, args }: ReadyCall,
  outcome: ToolOutcome,
): Promise<ToolOutcome> {
  const hook = env.config.afterToolCall;
  if (hook === undefined) return outcome;
  try {
    const override = await hook(
      {
        assistantMessage: assistant,
        toolCall: call,
        args,
        context: env.context,
        result: outcome.result,
        isError: outcome.isError,
      },
      env.signal,
    );
    if (override === undefined || override === null) return outcome;
    const result = { ...outcome.result };
    if (override.content !== undefined) result.content = override.content;
    if (override.details !== undefined) result.details = override.details;
    if (override.isError !== undefined) result.isError = override.isError;
    if (override.terminate !== undefined) result.terminate = override.terminate;
    return { result, isError: result.isError === true };
  } catch (error) {
    return errorOutcome(toolResultText.afterHookFailed(call.name, error));
  }
}
