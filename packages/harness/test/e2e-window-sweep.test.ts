import { type AgentTool, defineTool, Type } from "@arbor/agent-core";
import type { Context, Message, StreamFn } from "@arbor/ai-providers";
import { createScriptedProvider, type ScriptedCall, script } from "@arbor/ai-providers/testing";
import { SUMMARIZER_SYSTEM_PROMPT } from "@arbor/compaction";
import { MemorySessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { createHarness, type HarnessEvent } from "../src/index.js";
import { createResourceLoader, createSystemPromptBuilder } from "../src/resources/index.js";

/**
 * Windows from a 4k local model to a 1M-token model, each driven past its window by long answers and by
 * large tool results (a built-in-sized read, an MCP-like and an extension-like tool returning more than the
 * window), against a server that refuses any request over its window — and once against a server whose
 * window is a quarter of what the model claims. Counted per run: refused requests, the first request after
 * each compaction (at most 60% of the window), "nothing to compact" while over the threshold, warnings.
 */

const WINDOWS = [4000, 6000, 8000, 32_000, 200_000, 1_000_000];

/** What a server counts: chars/4 of the system prompt, the tools and every message's text and arguments. */
function requestTokens(context: Context): number {
  let chars = (context.systemPrompt ?? "").length + JSON.stringify(context.tools ?? []).length;
  for (const message of context.messages) chars += messageChars(message);
  return Math.ceil(chars / 4);
}

function messageChars(message: Message): number {
  if (typeof message.content === "string") return message.content.length;
  let chars = 0;
  for (const block of message.content) {
    if (block.type === "text") chars += block.text.length;
    else if (block.type === "thinking") chars += block.thinking.length;
    else if (block.type === "toolCall") chars += block.name.length + JSON.stringify(block.arguments).length;
    else chars += 1000;
  }
  return chars;
}

function textTool(name: string, chars: number): AgentTool {
  return defineTool({
    name,
    description: `Returns the requested part (${name}).`,
    parameters: Type.Object({ part: Type.Integer({ description: "Which part to return." }) }),
    execute: ({ part }) => ({ content: [{ type: "text", text: `part ${part}:\n${line(chars)}` }] }),
  }) as unknown as AgentTool;
}

/** `chars` characters of varied text in lines (so that cuts can land at line ends). */
function line(chars: number): string {
  const unit = "The quick brown fox jumps over the lazy dog; error 42 at src/main.ts:17.\n";
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

interface Scenario {
  name: string;
  /** The prompts of the run, each answered as `respond` says. */
  prompts: number;
  /** Tool calls per prompt before the answer. */
  toolCalls: (window: number) => { tool: string }[];
  /** Characters of each answer. */
  answerChars: (window: number) => number;
  tools: (window: number) => AgentTool[];
  /** The model claims this window; the server's is `window`. */
  claimed?: (window: number) => number;
}

const SCENARIOS: Scenario[] = [
  {
    name: "long answers",
    prompts: 14,
    toolCalls: () => [],
    answerChars: (window) => Math.floor(window * 0.12 * 4),
    tools: () => [],
  },
  {
    name: "large tool results (built-in, MCP, extension)",
    prompts: 4,
    toolCalls: () => [{ tool: "read" }, { tool: "mcp__files__read_file" }, { tool: "ext_fetch" }],
    answerChars: () => 400,
    tools: (window) => [
      textTool("read", 50_000),
      textTool("mcp__files__read_file", Math.max(window * 6, 200_000)),
      textTool("ext_fetch", Math.max(window * 3, 100_000)),
    ],
  },
  {
    name: "a server whose window is a quarter of the model's",
    prompts: 14,
    toolCalls: () => [{ tool: "read" }],
    answerChars: (window) => Math.floor(window * 0.1 * 4),
    tools: () => [textTool("read", 50_000)],
    claimed: (window) => window * 4,
  },
];

interface RunReport {
  refused: number[];
  afterCompaction: number[];
  stuck: string[];
  warnings: readonly string[];
  errors: string[];
  compactions: number;
  answers: number;
}

async function drive(window: number, scenario: Scenario): Promise<RunReport> {
  const refused: number[] = [];
  const afterCompaction: number[] = [];
  let compactedSinceLastCall = false;
  const respond = (call: ScriptedCall) => {
    const tokens = requestTokens(call.context);
    if (tokens > window) {
      refused.push(tokens);
      return script.error(`prompt is too long: ${tokens} tokens > ${window} maximum`);
    }
    if (call.context.systemPrompt === SUMMARIZER_SYSTEM_PROMPT) {
      // A verbose summarizer: it fills the output cap it was given.
      const cap = Number(call.options.maxTokens ?? 1000);
      return script.text(`## Goal\n${line(Math.max(40, Math.floor(cap * 4 * 0.95)))}`);
    }
    if (compactedSinceLastCall) {
      afterCompaction.push(tokens);
      compactedSinceLastCall = false;
    }
    const messages = call.context.messages;
    let calls = 0;
    for (let index = messages.length - 1; index >= 0 && messages[index]!.role !== "user"; index--) {
      if (messages[index]!.role === "toolResult") calls++;
    }
    const planned = scenario.toolCalls(window);
    if (calls < planned.length) return script.toolCall(planned[calls]!.tool, { part: calls + 1 });
    return script.text(line(scenario.answerChars(window)));
  };
  const provider = createScriptedProvider(respond, {
    model: { contextWindow: scenario.claimed?.(window) ?? window, maxTokens: Math.min(8192, window / 2) },
    chunkSize: 4096,
  });
  const errors: string[] = [];
  const stream: StreamFn = (model, context, options) => provider.stream(model, context, options);
  const harness = createHarness({
    streamFn: stream,
    model: provider.model,
    store: new MemorySessionStore(),
    cwd: "/tmp/arbor-window-sweep",
    resources: createResourceLoader({ home: "/tmp/arbor-window-sweep-home" }),
    systemPrompt: createSystemPromptBuilder(),
    tools: scenario.tools(window),
    sleep: async () => {},
    onError: (error) => errors.push(String(error)),
    settings: { retry: { jitter: 0 } },
  });
  const session = await harness.newSession();
  const stuck: string[] = [];
  let compactions = 0;
  session.subscribe((event: HarnessEvent) => {
    if (event.type !== "compaction_end") return;
    if (event.outcome.kind === "compacted") {
      compactions++;
      compactedSinceLastCall = true;
    } else if (event.reason !== "manual") {
      const threshold = session.contextUsage().compactionThreshold;
      if (event.tokensBefore > threshold) stuck.push(`${event.outcome.kind}: ${event.outcome.message}`);
    }
  });
  let answers = 0;
  for (let prompt = 1; prompt <= scenario.prompts; prompt++) {
    await session.prompt(`Question ${prompt}: go on.`);
    if (session.state.errorMessage !== undefined) errors.push(session.state.errorMessage);
    else answers++;
  }
  const warnings = session.warnings;
  await session.close();
  return { refused, afterCompaction, stuck, warnings, errors, compactions, answers };
}

describe("context that fits at every window", () => {
  describe.each(WINDOWS)("a %i-token window", (window) => {
    it.each(SCENARIOS)("$name", async (scenario) => {
      const report = await drive(window, scenario);
      const expectedRefusals = scenario.claimed === undefined ? 0 : 1;
      expect(report.errors).toEqual([]);
      expect(report.answers).toBe(scenario.prompts);
      expect(report.refused.length).toBeLessThanOrEqual(expectedRefusals);
      expect(report.stuck).toEqual([]);
      expect(report.warnings).toEqual([]);
      const afterCompaction = report.afterCompaction;
      // The retry after an overflow is smaller than the refused request.
      if (report.refused.length > 0) expect(afterCompaction[0]).toBeLessThan(report.refused[0]!);
      for (const tokens of afterCompaction) expect(tokens).toBeLessThanOrEqual(window * 0.6);
    });
  });
});
