import {
  Agent,
  type AgentEvent,
  type AgentMessage,
  type AgentTool,
  type AgentTurnContext,
  type AgentTurnUpdate,
} from "@arbor/agent-core";
import type { Model, ProviderResponseInfo, ThinkingLevel } from "@arbor/ai-providers";
import type { HarnessRuntime } from "./harness-options.js";
import type { HookRunner } from "./hook-registry.js";
import { convertSessionMessageToLlm } from "./messages.js";
import { wrapStreamFn } from "./provider-stream.js";

/** What the agent of a harness session is built from. Internal. */
export interface SessionAgentOptions {
  runtime: HarnessRuntime;
  hooks: HookRunner;
  model: Model;
  thinkingLevel: ThinkingLevel;
  tools: readonly AgentTool[];
  systemPrompt: string;
  messages: readonly AgentMessage[];
  /** Between two turns (the harness compacts there, then runs the `prepareNextTurn` handlers). */
  prepareNextTurn: (turn: AgentTurnContext) => Promise<AgentTurnUpdate | undefined>;
  /** Every event of every run (persistence and forwarding). */
  onEvent: (event: AgentEvent) => Promise<void>;
  /** The provider reported a response (its status and headers feed the retry decision). */
  onResponse: (info: ProviderResponseInfo | undefined) => void;
  report: (error: unknown) => void;
  /** The last step of every call's context, after the `context` hooks: fits it to the window. */
  fitContext: (messages: AgentMessage[]) => AgentMessage[];
}

/**
 * The `Agent` of a harness session: the harness's stream function wrapped with the provider hooks, the session
 * message converter (summaries reach the model as user messages; given per message, so agent-core converts each
 * run's transcript incrementally), the loop hooks bound to the hook runner, and the harness's settings (tool
 * execution, queue modes, request options). With retries on, providers are asked not to retry by themselves
 * (`maxRetries: 0`) unless the settings say otherwise.
 */
export function createSessionAgent(options: SessionAgentOptions): Agent {
  const { runtime, hooks } = options;
  const settings = runtime.settings;
  const streamOptions = { ...settings.streamOptions };
  if (settings.retryEnabled && streamOptions.maxRetries === undefined) streamOptions.maxRetries = 0;
  const agent = new Agent({
    model: options.model,
    streamFn: wrapStreamFn(runtime.streamFn, hooks, {
      onRequest: () => options.onResponse(undefined),
      onResponse: (info) => options.onResponse(info),
    }),
    systemPrompt: options.systemPrompt,
    thinkingLevel: options.thinkingLevel,
    tools: options.tools,
    messages: options.messages,
    toolExecution: settings.toolExecution,
    streamOptions,
    steeringMode: settings.steeringMode,
    followUpMode: settings.followUpMode,
    convertMessageToLlm: convertSessionMessageToLlm,
    transformContext: async (messages) => options.fitContext(await hooks.context(messages)),
    beforeToolCall: (context) => hooks.toolCall(context),
    afterToolCall: (context) => hooks.toolResult(context),
    prepareNextTurn: options.prepareNextTurn,
    shouldStopAfterTurn: (turn) => hooks.shouldStopAfterTurn(turn),
    onListenerError: options.report,
  });
  agent.subscribe((event) => options.onEvent(event));
  return agent;
}
