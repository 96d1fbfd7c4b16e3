import type { AgentMessage } from "@arbor/agent-core";
import { type AssistantMessage, emptyUsage } from "@arbor/ai-providers";
import { estimateContextTokens } from "@arbor/compaction";
import type { SessionMessage } from "@arbor/session-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contextUsageOf, estimateTranscriptTokens } from "../src/index.js";

function assistant(
  text: string,
  input: number,
  timestamp: number,
  stopReason: AssistantMessage["stopReason"] = "stop",
) {
  const usage = emptyUsage();
  usage.input = input;
  usage.output = Math.ceil(text.length / 4);
  usage.totalTokens = usage.input + usage.output;
  const message: AssistantMessage = {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "scripted",
    provider: "scripted",
    model: "m",
    usage,
    stopReason,
    timestamp,
  };
  return message;
}

const messageArbitrary: fc.Arbitrary<AgentMessage> = fc.oneof(
  fc
    .record({ text: fc.string({ maxLength: 200 }), timestamp: fc.integer({ min: 1, max: 2000 }) })
    .map(({ text, timestamp }) => ({ role: "user", content: text, timestamp }) as AgentMessage),
  fc
    .record({
      text: fc.string({ maxLength: 200 }),
      input: fc.integer({ min: 0, max: 50_000 }),
      timestamp: fc.integer({ min: 1, max: 2000 }),
      stopReason: fc.constantFrom("stop", "toolUse", "error", "aborted" as const),
    })
    .map(
      ({ text, input, timestamp, stopReason }) =>
        assistant(text, input, timestamp, stopReason) as AgentMessage,
    ),
  fc.record({ text: fc.string({ maxLength: 300 }), timestamp: fc.integer({ min: 1, max: 2000 }) }).map(
    ({ text, timestamp }) =>
      ({
        role: "toolResult",
        toolCallId: "call",
        toolName: "tool",
        content: [{ type: "text", text }],
        isError: false,
        timestamp,
      }) as AgentMessage,
  ),
  fc
    .record({ summary: fc.string({ maxLength: 200 }), timestamp: fc.integer({ min: 1, max: 2000 }) })
    .map(
      ({ summary, timestamp }) =>
        ({ role: "branchSummary", summary, fromId: "x", timestamp }) as unknown as AgentMessage,
    ),
);

describe("estimateTranscriptTokens", () => {
  it("equals estimateContextTokens over a harness transcript (a compaction summary at most, first)", () => {
    fc.assert(
      fc.property(
        fc.option(
          fc.record({ summary: fc.string({ maxLength: 400 }), timestamp: fc.integer({ min: 0, max: 2000 }) }),
        ),
        fc.array(messageArbitrary, { maxLength: 40 }),
        (summary, rest) => {
          const transcript: AgentMessage[] = [...rest];
          if (summary !== null) {
            transcript.unshift({
              role: "compactionSummary",
              tokensBefore: 1,
              ...summary,
            } as unknown as AgentMessage);
          }
          const expected = estimateContextTokens(transcript as SessionMessage[]);
          expect(estimateTranscriptTokens(transcript)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads only the tail after the usage anchor", () => {
    const reads: number[] = [];
    const transcript: AgentMessage[] = [];
    for (let index = 0; index < 5000; index++) {
      transcript.push({ role: "user", content: `message ${index}`, timestamp: 1 } as AgentMessage);
    }
    transcript.push(assistant("answer", 12_345, 2));
    transcript.push({ role: "user", content: "x".repeat(400), timestamp: 3 } as AgentMessage);
    const watched = new Proxy(transcript, {
      get(target, property, receiver) {
        if (typeof property === "string" && /^\d+$/.test(property)) reads.push(Number(property));
        return Reflect.get(target, property, receiver);
      },
    });
    const estimate = estimateTranscriptTokens(watched);
    expect(estimate.tokens).toBe(12_345 + 2 + 100);
    expect(estimate.lastUsageIndex).toBe(5000);
    // Index 0 (is there a compaction summary?) and the tail: nothing in between.
    expect(reads.filter((index) => index > 0 && index < 4999)).toEqual([]);
  });

  it("reports usage against the window and the threshold", () => {
    const usage = contextUsageOf(
      { tokens: 50_000, usageTokens: 50_000, trailingTokens: 0, lastUsageIndex: 3 },
      200_000,
      { reserveTokens: 16_384 },
    );
    expect(usage).toEqual({
      tokens: 50_000,
      contextWindow: 200_000,
      percent: 25,
      compactionThreshold: 183_616,
      reserveTokens: 16_384,
      anchored: true,
    });
    // A thresholdPercent below what the reserve leaves moves the threshold.
    const early = contextUsageOf(
      { tokens: 50_000, usageTokens: 50_000, trailingTokens: 0, lastUsageIndex: 3 },
      200_000,
      { reserveTokens: 16_384, thresholdPercent: 80 },
    );
    expect(early.compactionThreshold).toBe(160_000);
  });
});
