import type { AssistantEvent, AssistantMessage, Context, Tool } from "@arbor/ai-providers";
import { Type } from "@arbor/ai-providers";
import type { ScriptedResponse, ScriptedStep } from "@arbor/ai-providers/testing";
import { SUMMARIZER_SYSTEM_PROMPT, summaryInstructions, summaryRequest } from "@arbor/compaction";
import type { HarnessEvent } from "@arbor/harness";
import { describe, expect, it, vi } from "vitest";
import { demoStep } from "../src/demo/demo-model.js";
import { demoWords } from "../src/demo/demo-text.js";
import { JsonEventWriter } from "../src/protocol/json-events.js";

const partial = { role: "assistant", content: [{ type: "text", text: "" }] } as unknown as AssistantMessage;

function textDelta(delta: string, contentIndex = 0): HarnessEvent {
  const event: AssistantEvent = { type: "text_delta", contentIndex, delta, partial };
  return { type: "message_update", message: partial, assistantMessageEvent: event };
}

describe("JsonEventWriter", () => {
  it("merges deltas of one block within the window and writes them before any other line", () => {
    vi.useFakeTimers();
    try {
      const lines: string[] = [];
      const writer = new JsonEventWriter((line) => lines.push(line), { coalesceMs: 25 });
      writer.handle(textDelta("Hel"));
      writer.handle(textDelta("lo"));
      expect(lines).toEqual([]);
      vi.advanceTimersByTime(25);
      expect(lines).toEqual(['{"type":"text_delta","contentIndex":0,"delta":"Hello"}\n']);
      writer.handle(textDelta(" wor"));
      writer.handle(textDelta("ld", 1));
      writer.handle({ type: "turn_start" });
      expect(lines.slice(1)).toEqual([
        '{"type":"text_delta","contentIndex":0,"delta":" wor"}\n',
        '{"type":"text_delta","contentIndex":1,"delta":"ld"}\n',
        '{"type":"turn_start"}\n',
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("records a refused save with its retries, what was kept and why the run stopped", () => {
    const lines: Record<string, unknown>[] = [];
    const writer = new JsonEventWriter((line) => lines.push(JSON.parse(line) as Record<string, unknown>), {
      coalesceMs: 0,
    });
    const error = new Error("EIO: i/o error, write");
    const kept = { location: "/home/u/.arbor/recovery/s1/t.jsonl" };
    writer.handle({ type: "save_retry", attempt: 1, delayMs: 250, timeoutMs: 30_000, error });
    writer.handle({ type: "save_error", error, attempts: 9, entryCount: 2, kept });
    writer.handle({ type: "run_stopped", reason: "save_failed", message: "the session was not saved", kept });
    expect(lines).toEqual([
      { type: "save_retry", attempt: 1, delayMs: 250, timeoutMs: 30_000, error: "EIO: i/o error, write" },
      { type: "save_error", error: "EIO: i/o error, write", attempts: 9, entryCount: 2, kept: kept.location },
      {
        type: "run_stopped",
        reason: "save_failed",
        message: "the session was not saved",
        kept: kept.location,
      },
    ]);
  });

  it("records a compaction's start and its end with the outcome in words", () => {
    const lines: Record<string, unknown>[] = [];
    const writer = new JsonEventWriter((line) => lines.push(JSON.parse(line) as Record<string, unknown>), {
      coalesceMs: 0,
    });
    const message =
      "Nothing to compact: the conversation fits in the recent part that compaction keeps verbatim (compaction.keepRecentTokens).";
    writer.handle({ type: "compaction_start", reason: "threshold", tokensBefore: 5812 });
    writer.handle({
      type: "compaction_end",
      reason: "threshold",
      outcome: { kind: "nothing_to_compact", reason: "fits_in_kept_tail", tokensBefore: 5812, message },
      tokensBefore: 5812,
      tokensAfter: 5812,
    });
    expect(lines).toEqual([
      { type: "compaction_start", reason: "threshold", tokensBefore: 5812 },
      {
        type: "compaction_end",
        reason: "threshold",
        outcome: "nothing_to_compact",
        tokensBefore: 5812,
        tokensAfter: 5812,
        message,
        why: "fits_in_kept_tail",
      },
    ]);
  });

  it("sends only what a tool's output added, or the whole text when it was cut", () => {
    const lines: Record<string, unknown>[] = [];
    const writer = new JsonEventWriter((line) => lines.push(JSON.parse(line) as Record<string, unknown>), {
      coalesceMs: 0,
    });
    const update = (text: string): HarnessEvent => ({
      type: "tool_execution_update",
      toolCallId: "c1",
      toolName: "bash",
      args: {},
      partialResult: { content: [{ type: "text", text }] },
    });
    writer.handle({
      type: "tool_execution_start",
      toolCallId: "c1",
      toolName: "bash",
      args: { command: "ls" },
    });
    writer.handle(update("a\n"));
    writer.handle(update("a\nb\n"));
    writer.handle(update("b\nc\n"));
    expect(lines.slice(1)).toEqual([
      { type: "tool_update", toolCallId: "c1", delta: "a\n" },
      { type: "tool_update", toolCallId: "c1", delta: "b\n" },
      { type: "tool_update", toolCallId: "c1", text: "b\nc\n" },
    ]);
  });
});

const TOOLS: Tool[] = ["bash", "read", "write", "edit", "ls", "find", "grep"].map((name) => ({
  name,
  description: name,
  parameters: Type.Object({}),
}));

function answer(text: string, tools = TOOLS): ScriptedResponse {
  const context: Context = { messages: [{ role: "user", content: text, timestamp: 1 }], tools };
  let step: ScriptedStep = demoStep(context);
  while (typeof step === "function")
    step = step({ index: 0, model: {} as never, context, options: {}, aborted: false });
  return step as ScriptedResponse;
}

describe("the scripted demo model", () => {
  it("calls the tools its grammar names", () => {
    expect(answer("run ls -la").parts.at(-1)).toMatchObject({
      type: "toolCall",
      name: "bash",
      arguments: { command: "ls -la" },
    });
    expect(answer("read src/a.ts 10-19").parts.at(-1)).toMatchObject({
      name: "read",
      arguments: { path: "src/a.ts", offset: 10, limit: 10 },
    });
    expect(answer("write notes.md: hello").parts.at(-1)).toMatchObject({
      name: "write",
      arguments: { path: "notes.md", content: "hello\n" },
    });
    expect(answer("edit a.ts: foo => bar").parts.at(-1)).toMatchObject({
      name: "edit",
      arguments: { path: "a.ts", edits: [{ oldText: "foo", newText: "bar" }] },
    });
    expect(answer("grep TODO src").parts.at(-1)).toMatchObject({
      name: "grep",
      arguments: { pattern: "TODO", path: "src" },
    });
    expect(answer("run ls", []).parts).toEqual([
      { type: "text", text: expect.stringContaining("not available in this session") },
    ]);
  });

  it("writes n words, thinks, fails, and echoes the rest", () => {
    expect(demoWords(2000).split(/\s+/)).toHaveLength(2000);
    expect((answer("words 12").parts[0] as { text: string }).text.split(" ")).toHaveLength(12);
    expect(answer("think why?").parts[0]).toMatchObject({ type: "thinking" });
    expect(answer("fail boom")).toMatchObject({ kind: "failure", errorMessage: "Scripted failure: boom" });
    expect((answer("good morning").parts[0] as { text: string }).text).toContain('You said: "good morning"');
  });

  it("reports tool results, and answers summary requests in the requested format", () => {
    const context: Context = {
      messages: [
        { role: "user", content: "run echo hi", timestamp: 1 },
        {
          role: "assistant",
          content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "echo hi" } }],
        } as unknown as AssistantMessage,
        {
          role: "toolResult",
          toolCallId: "c1",
          toolName: "bash",
          content: [{ type: "text", text: "hi\n" }],
          isError: false,
          timestamp: 2,
        },
      ],
    };
    const reported = demoStep(context) as ScriptedResponse;
    expect((reported.parts[0] as { text: string }).text).toContain("`echo hi` printed:");

    const conversation =
      '[User]: write the parser\n[Assistant tool call]: write(path="parser.ts")\n[Assistant]: Done.';
    const request = summaryRequest(conversation, undefined, summaryInstructions("history", false));
    const summary = demoStep({
      systemPrompt: SUMMARIZER_SYSTEM_PROMPT,
      messages: [{ role: "user", content: request, timestamp: 1 }],
    }) as ScriptedResponse;
    const text = (summary.parts[0] as { text: string }).text;
    expect(text).toContain("## Goal\n- write the parser");
    expect(text).toContain('- [x] write(path="parser.ts")');
    const turn = demoStep({
      systemPrompt: SUMMARIZER_SYSTEM_PROMPT,
      messages: [
        {
          role: "user",
          content: summaryRequest(conversation, undefined, summaryInstructions("turnPrefix", false)),
          timestamp: 1,
        },
      ],
    }) as ScriptedResponse;
    expect((turn.parts[0] as { text: string }).text).toContain("## Original Request\n- write the parser");
  });
});
