/**
 * Agent loop overhead per turn: does a turn cost more when the conversation is longer?
 *
 * A trivial StreamFn answers instantly with a prebuilt stream (start, one block, done): each turn but
 * the last calls a `noop` tool, so a turn is the full path (context preparation, stream, events, tool
 * lookup, validation, execution, result message, turn_end). Runs start from histories of 100 and
 * 10,000 messages. The cost of a turn is the median time between two consecutive `turn_start`
 * events over runs of TURNS turns; the one-time work of a run (copying the history, preparing it for
 * the first model call) is reported apart, as the time of a run of one turn.
 *
 * The same turn with a per-message `convertMessageToLlm` (converted incrementally, like the default)
 * and with a custom whole-list `convertToLlm` (called over the whole transcript at every model call:
 * a prefix check and a copy per call) shows what each conversion contract costs.
 *
 * Baselines, measured in the same run on the same history:
 * - the StreamFn call alone (create + drain the prebuilt stream): what the loop must pay anyway;
 * - `JSON.stringify` of the request (system prompt + messages + tools): the least a real provider does
 *   per call, since every request carries the whole conversation;
 * - `transformMessages()` and `defaultConvertToLlm()` over the whole history, for reference.
 */

import { performance } from "node:perf_hooks";
import {
  Agent,
  type AgentContext,
  type AgentEvent,
  type AgentLoopConfig,
  type AgentMessage,
  defaultConvertToLlm,
  defineTool,
  isLlmMessage,
  runAgentLoop,
  Type,
} from "@arbor/agent-core";
import {
  type AssistantMessage,
  type AssistantStream,
  createAssistantStream,
  emptyUsage,
  type Message,
  type Model,
  type StreamFn,
  transformMessages,
} from "@arbor/ai-providers";
import type { Bench } from "./bench.js";

const TURNS = 50;

const model: Model = {
  id: "bench-model",
  name: "bench",
  provider: "bench",
  api: "scripted",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1_000_000,
  maxTokens: 64_000,
};

const noop = defineTool({
  name: "noop",
  description: "does nothing",
  parameters: Type.Object({ step: Type.Integer() }),
  execute: ({ step }) => ({ content: [{ type: "text", text: `step ${step}` }] }),
});

function assistantMessage(content: AssistantMessage["content"]): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason: content.some((block) => block.type === "toolCall") ? "toolUse" : "stop",
    timestamp: 1,
  };
}

/** A conversation of `size` messages: user, assistant (text + tool call), tool result, repeated. */
function history(size: number): AgentMessage[] {
  const messages: AgentMessage[] = [];
  const filler = "Some realistic text of a coding session, about two hundred characters long. ".repeat(3);
  for (let index = 0; messages.length < size; index++) {
    messages.push({ role: "user", content: [{ type: "text", text: `${filler} ${index}` }], timestamp: 1 });
    if (messages.length >= size) break;
    const id = `call_${index}`;
    messages.push(
      assistantMessage([
        { type: "text", text: filler },
        { type: "toolCall", id, name: "noop", arguments: { step: index } },
      ]),
    );
    if (messages.length >= size) break;
    messages.push({
      role: "toolResult",
      toolCallId: id,
      toolName: "noop",
      content: [{ type: "text", text: filler }],
      isError: false,
      timestamp: 1,
    });
  }
  // End on a user message, as a prompt would.
  if ((messages.at(-1) as Message).role !== "user") messages.pop();
  return messages.slice(0, size);
}

/** A prebuilt stream: start, one text or tool-call block, done. */
function instantStream(message: AssistantMessage): AssistantStream {
  const stream = createAssistantStream();
  const block = message.content[0]!;
  stream.push({ type: "start", partial: message });
  if (block.type === "toolCall") {
    stream.push({ type: "toolcall_start", contentIndex: 0, partial: message });
    stream.push({ type: "toolcall_end", contentIndex: 0, toolCall: block, partial: message });
  } else {
    stream.push({ type: "text_start", contentIndex: 0, partial: message });
    stream.push({ type: "text_end", contentIndex: 0, content: "ok", partial: message });
  }
  const reason = message.stopReason === "toolUse" ? "toolUse" : "stop";
  stream.push({ type: "done", reason, message, partial: message });
  return stream;
}

/** A StreamFn that calls `noop` until the `turns`-th call of a run, then answers with text. */
function scriptedTurns(turns: number): { streamFn: StreamFn; reset: () => void } {
  let calls = 0;
  const streamFn: StreamFn = () => {
    calls++;
    const message =
      calls < turns
        ? assistantMessage([
            { type: "toolCall", id: `turn_${calls}`, name: "noop", arguments: { step: calls } },
          ])
        : assistantMessage([{ type: "text", text: "ok" }]);
    return instantStream(message);
  };
  return { streamFn, reset: () => (calls = 0) };
}

async function drain(stream: AssistantStream): Promise<AssistantMessage> {
  for await (const _event of stream) {
    // draining
  }
  return stream.result();
}

/** Median and minimum of `runs` timed calls of an async function (after `warmup` untimed ones). */
async function measureAsync(
  fn: () => Promise<unknown>,
  options: { runs?: number; warmup?: number } = {},
): Promise<{ medianMs: number; minMs: number }> {
  const runs = options.runs ?? 15;
  const warmup = options.warmup ?? 3;
  const collectGarbage = (globalThis as { gc?: () => void }).gc;
  for (let index = 0; index < warmup; index++) await fn();
  const times: number[] = [];
  for (let index = 0; index < runs; index++) {
    collectGarbage?.();
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)]!, minMs: times[0]! };
}

function microseconds(ms: number): string {
  const us = ms * 1000;
  return `${us >= 100 ? us.toFixed(0) : us.toFixed(1)} µs`.padStart(10);
}

interface SizeResult {
  size: number;
  /** A run of one turn (prompt, instant text reply): includes the run's one-time work over the history. */
  loopRun: number;
  /** Each further turn of a run, (run of TURNS turns - run of 1 turn) / (TURNS - 1). */
  loopTurn: number;
  agentRun: number;
  agentTurn: number;
  /** A turn of runAgentLoop with a per-message `convertMessageToLlm`. */
  perMessageTurn: number;
  /** A turn of runAgentLoop with a custom whole-list `convertToLlm`. */
  wholeListTurn: number;
  streamAlone: number;
  serialize: number;
  transform: number;
  convert: number;
}

/** Median of a list of numbers. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Runs of `turns` turns through runAgentLoop and through Agent.prompt: the median run time, and the
 * median time between two consecutive `turn_start` events (one whole turn) over all runs.
 */
async function measureRuns(
  messages: AgentMessage[],
  turns: number,
  conversion: Pick<AgentLoopConfig, "convertToLlm" | "convertMessageToLlm"> = {},
): Promise<{ loopRun: number; loopTurn: number; agentRun: number; agentTurn: number }> {
  const prompt: AgentMessage = { role: "user", content: [{ type: "text", text: "go" }], timestamp: 1 };
  const context: AgentContext = { systemPrompt: "You are a bench.", messages, tools: [noop] };
  const loopTurns = scriptedTurns(turns);
  const loopIntervals: number[] = [];
  let last = 0;
  const probe = (event: AgentEvent) => {
    if (event.type !== "turn_start") return;
    const now = performance.now();
    if (last !== 0) loopIntervals.push(now - last);
    last = now;
  };
  const loop = await measureAsync(async () => {
    loopTurns.reset();
    last = 0;
    const config = { model, streamFn: loopTurns.streamFn, ...conversion };
    const added = await runAgentLoop([prompt], context, config, probe);
    if (added.length !== 2 * turns) throw new Error(`expected ${2 * turns} messages, got ${added.length}`);
  });
  const loopTurn = median(loopIntervals);
  const agentTurns = scriptedTurns(turns);
  const agent = new Agent({
    model,
    streamFn: agentTurns.streamFn,
    tools: [noop],
    systemPrompt: "You are a bench.",
    ...conversion,
  });
  loopIntervals.length = 0;
  agent.subscribe(probe);
  const agentRun = await measureAsync(async () => {
    agentTurns.reset();
    last = 0;
    agent.replaceMessages(messages);
    await agent.prompt(prompt);
  });
  return { loopRun: loop.medianMs, loopTurn, agentRun: agentRun.medianMs, agentTurn: median(loopIntervals) };
}

async function measureSize(size: number): Promise<SizeResult> {
  const messages = history(size);
  const one = await measureRuns(messages, 1);
  const many = await measureRuns(messages, TURNS);
  const perMessage = await measureRuns(messages, TURNS, {
    convertMessageToLlm: (message) => (isLlmMessage(message) ? [message] : []),
  });
  const wholeList = await measureRuns(messages, TURNS, {
    convertToLlm: (all) => defaultConvertToLlm(all),
  });

  // Baselines on the same history, per model call.
  const llmMessages = transformMessages(defaultConvertToLlm(messages), model);
  const llmContext = { systemPrompt: "You are a bench.", messages: llmMessages, tools: [noop] };
  const repeat = 200;
  const streamAlone = await measureAsync(async () => {
    for (let index = 0; index < repeat; index++) {
      await drain(
        instantStream(
          assistantMessage([{ type: "toolCall", id: "x", name: "noop", arguments: { step: 1 } }]),
        ),
      );
    }
  });
  const serializeRepeat = size > 1000 ? 5 : 200;
  const serialize = await measureAsync(async () => {
    let length = 0;
    for (let index = 0; index < serializeRepeat; index++) length += JSON.stringify(llmContext).length;
    return length;
  });
  const transform = await measureAsync(async () => {
    for (let index = 0; index < serializeRepeat; index++) transformMessages(llmMessages, model);
  });
  const convert = await measureAsync(async () => {
    for (let index = 0; index < serializeRepeat; index++) defaultConvertToLlm(messages);
  });
  return {
    size,
    loopRun: one.loopRun,
    loopTurn: many.loopTurn,
    agentRun: one.agentRun,
    agentTurn: many.agentTurn,
    perMessageTurn: perMessage.loopTurn,
    wholeListTurn: wholeList.loopTurn,
    streamAlone: streamAlone.medianMs / repeat,
    serialize: serialize.medianMs / serializeRepeat,
    transform: transform.medianMs / serializeRepeat,
    convert: convert.medianMs / serializeRepeat,
  };
}

async function runAgentLoopBench(): Promise<string[]> {
  const results = [await measureSize(100), await measureSize(10_000)];
  const [small, large] = results as [SizeResult, SizeResult];
  const lines = [
    `one turn inside a run (median time between two turn_start events, over 15 runs of ${TURNS} turns;`,
    "a turn = instant model reply with one noop tool call, its execution and result)",
    "  history    runAgentLoop   Agent.prompt   StreamFn alone   turn / StreamFn   turn / JSON request",
  ];
  for (const result of results) {
    lines.push(
      `  ${String(result.size).padEnd(8)} ${microseconds(result.loopTurn)}     ${microseconds(result.agentTurn)}     ${microseconds(result.streamAlone)}        ${(result.loopTurn / result.streamAlone).toFixed(1).padStart(6)}x         ${(result.loopTurn / result.serialize).toFixed(3).padStart(7)}x`,
    );
  }
  lines.push(
    "",
    "the same turn of runAgentLoop by conversion contract (default: incremental over the append-only transcript)",
    "  history    default        convertMessageToLlm   custom convertToLlm",
  );
  for (const result of results) {
    lines.push(
      `  ${String(result.size).padEnd(8)} ${microseconds(result.loopTurn)}     ${microseconds(result.perMessageTurn)}            ${microseconds(result.wholeListTurn)}`,
    );
  }
  lines.push(
    "",
    "a whole run of one turn (agent_start … agent_end; the first model call of a run prepares the whole history)",
    "  history    runAgentLoop   Agent.prompt",
  );
  for (const result of results) {
    lines.push(
      `  ${String(result.size).padEnd(8)} ${microseconds(result.loopRun)}     ${microseconds(result.agentRun)}`,
    );
  }
  lines.push(
    "",
    "work over the whole history, per call, for reference",
    "  history    JSON request   transformMessages   defaultConvertToLlm",
  );
  for (const result of results) {
    lines.push(
      `  ${String(result.size).padEnd(8)} ${microseconds(result.serialize)}     ${microseconds(result.transform)}          ${microseconds(result.convert)}`,
    );
  }
  lines.push(
    "",
    `growth from 100 to 10,000 messages: each further turn ${(large.loopTurn / small.loopTurn).toFixed(1)}x ` +
      `(Agent.prompt ${(large.agentTurn / small.agentTurn).toFixed(1)}x, ` +
      `convertMessageToLlm ${(large.perMessageTurn / small.perMessageTurn).toFixed(1)}x, ` +
      `custom convertToLlm ${(large.wholeListTurn / small.wholeListTurn).toFixed(1)}x; ` +
      `a provider's JSON request: ${(large.serialize / small.serialize).toFixed(1)}x)`,
  );
  return lines;
}

const bench: Bench = { name: "agent-loop: overhead per turn vs context size", run: runAgentLoopBench };
export default bench;
