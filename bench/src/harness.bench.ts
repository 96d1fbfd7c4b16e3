/**
 * Harness overhead: what does running a session through the harness (session <-> agent, hooks, pending writes,
 * the compaction check before every model call) cost per turn over a bare `Agent`, and does it grow with the
 * session?
 *
 * Sessions of 100 and 10,000 messages are built in a store, then opened by the harness. A trivial StreamFn
 * answers instantly (each turn but the last calls a `noop` tool), so a turn is the full path: the compaction
 * check, context hooks, conversion, stream, tool execution, the save point (flush to the store) and events.
 * The cost of a turn is the median time between two consecutive `turn_start` events over runs of TURNS turns;
 * each run starts from the same leaf (`navigateTree(…, { summarize: false })`), so the path stays N long.
 *
 * Baselines, in the same run on the same history:
 * - a bare `Agent` over the same messages (no session, no persistence, no check);
 * - an `Agent` with the harness's message conversion, as the harness passes it (`convertMessageToLlm:
 *   convertSessionMessageToLlm`, converted incrementally) and as a whole-list `convertToLlm`
 *   (`createSessionMessageConverter()`: agent-core must check the prefix and copy the list at every call);
 * - the compaction check alone (`estimateTranscriptTokens`, O(messages since the last reply)) against
 *   `estimateContextTokens` over the whole transcript (what a naive check would pay).
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Agent, type AgentEvent, type AgentMessage, defineTool, Type } from "@arbor/agent-core";
import {
  type AssistantMessage,
  type AssistantStream,
  createAssistantStream,
  emptyUsage,
  type Model,
  type StreamFn,
} from "@arbor/ai-providers";
import { estimateContextTokens } from "@arbor/compaction";
import {
  convertSessionMessageToLlm,
  createHarness,
  createSessionMessageConverter,
  estimateTranscriptTokens,
  type HarnessEvent,
} from "@arbor/harness";
import { MemorySessionStore, Session, type SessionMessage, type SessionStore } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import type { Bench } from "./bench.js";
import { measure } from "./measure.js";

const TURNS = 30;
const RUNS = 9;

const model: Model = {
  id: "bench-model",
  name: "bench",
  provider: "bench",
  api: "scripted",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 100_000_000,
  maxTokens: 64_000,
};

const noop = defineTool({
  name: "noop",
  description: "does nothing",
  parameters: Type.Object({ step: Type.Integer() }),
  execute: ({ step }) => ({ content: [{ type: "text", text: `step ${step}` }] }),
});

/** An assistant message with provider-reported usage, as real providers send it. */
function assistantMessage(content: AssistantMessage["content"], inputTokens: number): AssistantMessage {
  const usage = emptyUsage();
  usage.input = inputTokens;
  usage.output = 20;
  usage.totalTokens = inputTokens + 20;
  return {
    role: "assistant",
    content,
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage,
    stopReason: content.some((block) => block.type === "toolCall") ? "toolUse" : "stop",
    timestamp: Date.now(),
  };
}

/** A conversation of `size` messages (user, assistant with a tool call, tool result, …), ending with an answer. */
function history(size: number): AgentMessage[] {
  const messages: AgentMessage[] = [];
  const filler = "Some realistic text of a coding session, about two hundred characters long. ".repeat(3);
  for (let index = 0; messages.length < size - 1; index++) {
    messages.push({
      role: "user",
      content: [{ type: "text", text: `${filler} ${index}` }],
      timestamp: Date.now(),
    });
    const id = `call_${index}`;
    const tokens = messages.length * 60;
    messages.push(
      assistantMessage(
        [
          { type: "text", text: filler },
          { type: "toolCall", id, name: "noop", arguments: { step: index } },
        ],
        tokens,
      ),
    );
    messages.push({
      role: "toolResult",
      toolCallId: id,
      toolName: "noop",
      content: [{ type: "text", text: filler }],
      isError: false,
      timestamp: Date.now(),
    });
  }
  messages.length = size - 1;
  messages.push(assistantMessage([{ type: "text", text: "done" }], size * 60));
  return messages;
}

/** A prebuilt stream: start, one block, done. */
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
  stream.push({
    type: "done",
    reason: message.stopReason === "toolUse" ? "toolUse" : "stop",
    message,
    partial: message,
  });
  return stream;
}

/** Calls `noop` until the `turns`-th call of a run, then answers with text. */
function scriptedTurns(turns: number, size: number): { streamFn: StreamFn; reset: () => void } {
  let calls = 0;
  const streamFn: StreamFn = () => {
    calls++;
    const tokens = size * 60 + calls * 30;
    const message =
      calls < turns
        ? assistantMessage(
            [{ type: "toolCall", id: `turn_${calls}`, name: "noop", arguments: { step: calls } }],
            tokens,
          )
        : assistantMessage([{ type: "text", text: "ok" }], tokens);
    return instantStream(message);
  };
  return { streamFn, reset: () => (calls = 0) };
}

/** Collects garbage between runs when node runs with `--expose-gc` (as `pnpm bench` does). */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Records the time between consecutive `turn_start` events. */
function turnProbe() {
  const intervals: number[] = [];
  let last = 0;
  return {
    intervals,
    reset: () => {
      last = 0;
    },
    onEvent: (event: AgentEvent | HarnessEvent) => {
      if (event.type !== "turn_start") return;
      const now = performance.now();
      if (last !== 0) intervals.push(now - last);
      last = now;
    },
  };
}

/** How the bench's bare `Agent` converts messages: the default, or the session's converter in either form. */
type Conversion = "default" | "per message" | "whole list";

async function agentTurn(messages: AgentMessage[], conversion: Conversion): Promise<number> {
  const turns = scriptedTurns(TURNS, messages.length);
  const agent = new Agent({
    model,
    streamFn: turns.streamFn,
    tools: [noop],
    systemPrompt: "You are a bench.",
    ...(conversion === "per message" ? { convertMessageToLlm: convertSessionMessageToLlm } : {}),
    ...(conversion === "whole list" ? { convertToLlm: createSessionMessageConverter() } : {}),
  });
  const probe = turnProbe();
  agent.subscribe(probe.onEvent);
  for (let run = 0; run < RUNS + 2; run++) {
    if (run === 2) probe.intervals.length = 0; // warm-up runs
    agent.replaceMessages(messages);
    collectGarbage();
    turns.reset();
    probe.reset();
    await agent.prompt("go");
  }
  return median(probe.intervals);
}

async function harnessTurn(messages: AgentMessage[], store: SessionStore): Promise<number> {
  const session = await Session.create(store, { cwd: "/bench" });
  for (const message of messages) session.appendMessage(message as SessionMessage as never);
  await session.flush();
  const start = session.leafId;
  const turns = scriptedTurns(TURNS, messages.length);
  const harness = createHarness({
    streamFn: turns.streamFn,
    model,
    store,
    tools: [noop],
    systemPrompt: "You are a bench.",
    onError: (error) => {
      throw error;
    },
  });
  const running = await harness.openSession(session.id);
  const probe = turnProbe();
  running.subscribe(probe.onEvent);
  for (let run = 0; run < RUNS + 2; run++) {
    if (run === 2) probe.intervals.length = 0;
    await running.navigateTree(start, { summarize: false });
    collectGarbage();
    turns.reset();
    probe.reset();
    await running.prompt("go");
  }
  await running.close();
  return median(probe.intervals);
}

function microseconds(ms: number): string {
  const us = ms * 1000;
  return `${us >= 100 ? us.toFixed(0) : us.toFixed(1)} µs`.padStart(10);
}

interface SizeResult {
  size: number;
  agent: number;
  perMessage: number;
  wholeList: number;
  memory: number;
  jsonl: number;
  check: number;
  naive: number;
}

async function measureSize(size: number, home: string): Promise<SizeResult> {
  const messages = history(size);
  const agent = await agentTurn(messages, "default");
  const perMessage = await agentTurn(messages, "per message");
  const wholeList = await agentTurn(messages, "whole list");
  const memory = await harnessTurn(messages, new MemorySessionStore());
  const jsonlStore = new JsonlSessionStore({ home, durability: "flush" });
  const jsonl = await harnessTurn(messages, jsonlStore);
  await jsonlStore.close();
  const repeat = 1000;
  const transcript = [
    ...messages,
    { role: "user", content: "x".repeat(400), timestamp: Date.now() } as AgentMessage,
  ];
  const check = measure(() => {
    let tokens = 0;
    for (let index = 0; index < repeat; index++) tokens += estimateTranscriptTokens(transcript).tokens;
    return tokens;
  });
  const naiveRepeat = size > 1000 ? 20 : repeat;
  const naive = measure(() => {
    let tokens = 0;
    for (let index = 0; index < naiveRepeat; index++) {
      tokens += estimateContextTokens(transcript as SessionMessage[]).trailingTokens;
    }
    return tokens;
  });
  return {
    size,
    agent,
    perMessage,
    wholeList,
    memory,
    jsonl,
    check: check.medianMs / repeat,
    naive: naive.medianMs / naiveRepeat,
  };
}

async function runHarnessBench(): Promise<string[]> {
  const home = await mkdtemp(join(tmpdir(), "arbor-harness-bench-"));
  try {
    const results = [await measureSize(100, home), await measureSize(10_000, home)];
    const [small, large] = results as [SizeResult, SizeResult];
    const lines = [
      `one turn inside a run (median time between two turn_start events; runs of ${TURNS} turns, instant model,`,
      "one noop tool call per turn; the harness flushes the session at every turn_end)",
      "  session    bare Agent   Agent+convertMessageToLlm   harness+memory   harness+jsonl(flush)   harness/Agent",
    ];
    for (const result of results) {
      lines.push(
        `  ${String(result.size).padEnd(8)} ${microseconds(result.agent)}     ${microseconds(result.perMessage)}                ${microseconds(result.memory)}       ${microseconds(result.jsonl)}             ${(result.memory / result.agent).toFixed(1).padStart(5)}x`,
      );
    }
    lines.push(
      "  (the harness converts with convertMessageToLlm: agent-core applies it to the new messages only)",
      "",
      "for reference, the same session conversion as a whole-list convertToLlm (createSessionMessageConverter):",
      "agent-core cannot know that its output only grows, so it checks the prefix and copies the list per call",
      "  session    Agent+convertToLlm",
    );
    for (const result of results) {
      lines.push(`  ${String(result.size).padEnd(8)} ${microseconds(result.wholeList)}`);
    }
    lines.push(
      "",
      "the compaction check before each model call",
      "  session    estimateTranscriptTokens (harness)   estimateContextTokens over all messages (naive)",
    );
    for (const result of results) {
      lines.push(
        `  ${String(result.size).padEnd(8)} ${microseconds(result.check)}                         ${microseconds(result.naive)}`,
      );
    }
    lines.push(
      "",
      `growth from 100 to 10,000 messages: harness turn ${(large.memory / small.memory).toFixed(1)}x ` +
        `(bare Agent ${(large.agent / small.agent).toFixed(1)}x, convertMessageToLlm ${(large.perMessage / small.perMessage).toFixed(1)}x, ` +
        `whole-list convertToLlm ${(large.wholeList / small.wholeList).toFixed(1)}x), compaction check ${(large.check / small.check).toFixed(1)}x ` +
        `(naive check ${(large.naive / small.naive).toFixed(1)}x)`,
    );
    return lines;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

const bench: Bench = {
  name: "harness: overhead per turn and the compaction check vs session size",
  run: runHarnessBench,
};
export default bench;
