import {
  type AfterToolCallContext,
  type AfterToolCallResult,
  Agent,
  type AgentEvent,
  type AgentMessage,
  type AgentTool,
  type AgentTurnContext,
  type AgentTurnUpdate,
} from "@arbor/agent-core";
import type { Model, StreamFn, ThinkingLevel } from "@arbor/ai-providers";
import { fitFixedPart } from "./fixed-part.js";
import { convertSessionMessageToLlm } from "./messages.js";
import { wrapStreamFn } from "./provider-stream.js";
import { RECALL_TOOL_NAME } from "./recall-tool.js";
import { NOT_RUN_AFTER_FAILED_SAVE } from "./save-points.js";
import type { SessionContext } from "./session-context.js";
import { budgetToolResult } from "./tool-output-budget.js";

/**
 * The stream function with the tools of each request as the fixed-part budget allows (`fitFixedPart`:
 * shortened or fewer at small windows; the same tools otherwise).
 */
function withFixedPart(context: SessionContext, inner: StreamFn): StreamFn {
  return (model, request, options) => {
    if (request.tools === undefined || request.tools.length === 0) return inner(model, request, options);
    const fit = fitFixedPart(request.systemPrompt ?? "", request.tools, context.fixedBudgetTokens());
    if (fit.level === "full") return inner(model, request, options);
    return inner(model, { ...request, tools: fit.tools }, options);
  };
}

/** What the agent of a harness session starts with. Internal. */
export interface SessionAgentStart {
  model: Model;
  thinkingLevel: ThinkingLevel;
  tools: readonly AgentTool[];
  systemPrompt: string;
  messages: readonly AgentMessage[];
}

/** Where the agent's loop calls back into its harness session. Internal. */
export interface SessionAgentWiring {
  /** Between two turns (the harness compacts there, then runs the `prepareNextTurn` handlers). */
  prepareNextTurn: (turn: AgentTurnContext) => Promise<AgentTurnUpdate | undefined>;
  /** Every event of every run (persistence and forwarding). */
  onEvent: (event: AgentEvent) => Promise<void>;
  /** The last step of every call's context, after the `context` hooks: fits it to the window. */
  fitContext: (messages: AgentMessage[]) => AgentMessage[];
}

/**
 * The `Agent` of a harness session: the harness's stream function wrapped with the provider hooks, the session
 * message converter (summaries reach the model as user messages; given per message, so agent-core converts each
 * run's transcript incrementally), the loop hooks bound to the hook runner, and the harness's settings (tool
 * execution, queue modes, request options). With retries on, providers are asked not to retry by themselves
 * (`maxRetries: 0`) unless the settings say otherwise. Once a save point failed (`context.writer.failed`), no
 * tool runs and the run ends after the turn (docs/reference/harness.md, "Failed saves"). Every executed call's
 * result, as the `tool_result` hooks leave it, is fitted to the tool-output budget (`recall` excepted, see
 * {@link limitResult}).
 */
export function createSessionAgent(
  context: SessionContext,
  start: SessionAgentStart,
  wiring: SessionAgentWiring,
): Agent {
  const { runtime, hooks } = context;
  const settings = runtime.settings;
  const streamOptions = { ...settings.streamOptions };
  if (settings.retryEnabled && streamOptions.maxRetries === undefined) streamOptions.maxRetries = 0;
  const agent = new Agent({
    model: start.model,
    streamFn: wrapStreamFn(withFixedPart(context, runtime.streamFn), hooks, {
      onRequest: () => {
        context.lastProviderResponse = undefined;
      },
      onResponse: (info) => {
        context.lastProviderResponse = info;
      },
    }),
    systemPrompt: start.systemPrompt,
    thinkingLevel: start.thinkingLevel,
    tools: start.tools,
    messages: start.messages,
    toolExecution: settings.toolExecution,
    streamOptions,
    steeringMode: settings.steeringMode,
    followUpMode: settings.followUpMode,
    convertMessageToLlm: convertSessionMessageToLlm,
    transformContext: async (messages) => wiring.fitContext(await hooks.context(messages)),
    // After a failed save nothing more runs: no tool (each gets a result saying why) and no further turn.
    // A call whose `tool_call` handlers were still running when the run was aborted does not run (their
    // answer was not waited for, so a handler that would have refused it fails closed).
    beforeToolCall: async (call, signal) => {
      if (context.writer.failed) return NOT_RUN_AFTER_FAILED_SAVE;
      const result = await hooks.toolCall(call);
      if (signal.aborted && result?.block !== true) return { block: true, reason: NOT_RUN_AFTER_ABORT };
      return result;
    },
    afterToolCall: async (call) => limitResult(context, call, await hooks.toolResult(call)),
    prepareNextTurn: wiring.prepareNextTurn,
    shouldStopAfterTurn: (turn) => context.writer.failed || hooks.shouldStopAfterTurn(turn),
    onListenerError: (error) => context.events.report(error),
  });
  agent.subscribe((event) => wiring.onEvent(event));
  return agent;
}

/**
 * The tool-output budget of one executed call (docs/context-budget.md): the tool's own `maxOutputTokens`, else
 * the session's `budget().toolOutputTokens`. A cut result's whole output is handed to the writer, which
 * stores it after the result message. `recall` is excepted: its results are bounded pages of what the
 * session holds.
 */
/** The result of a call the run's abort reached while its `tool_call` handlers ran. */
const NOT_RUN_AFTER_ABORT = "Not run: the run was aborted before the tool started.";

function limitResult(
  context: SessionContext,
  call: AfterToolCallContext,
  patch: AfterToolCallResult | undefined,
): AfterToolCallResult | undefined {
  const name = call.toolCall.name;
  if (name === RECALL_TOOL_NAME) return patch;
  const own = call.context.tools?.find((tool) => tool.name === name)?.maxOutputTokens;
  const maxTokens =
    typeof own === "number" && Number.isFinite(own) && own >= 1 ? own : context.budget().toolOutputTokens;
  const limited = budgetToolResult(call, patch, maxTokens);
  if (limited.record !== undefined) context.writer.keepToolOutput(limited.record);
  return limited.patch;
}
